package api

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"
)

func (a *API) openAPI(e *core.RequestEvent) error {
	return e.JSON(http.StatusOK, map[string]any{"openapi": "3.1.0"})
}
