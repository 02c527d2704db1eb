package api

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// documentLinks serves the links a document holds and the documents that link to it, in
// ?era=, one page of each. Links that only secret sections hold are for the world's editors.
func (a *API) documentLinks(e *core.RequestEvent) error {
	_, d, role, err := a.documentAs(e, auth.ReadContent)
	if err != nil {
		return err
	}
	pg, err := page(e)
	if err != nil {
		return err
	}
	out, err := a.Store.LinksJSON(d, era(e), store.CanEdit(role), pg)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, out)
}
