package api

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// EraJSON is an era of a world.
type EraJSON struct {
	ID       string `json:"id"`
	WorldID  string `json:"worldId"`
	Name     string `json:"name"`
	ParentID string `json:"parentId"`
	Created  string `json:"created"`
}

func eraJSON(e store.Era) EraJSON {
	return EraJSON{ID: e.ID, WorldID: e.WorldID, Name: e.Name, ParentID: e.ParentID, Created: apiTime(e.Created)}
}

type createEraBody struct {
	Name     *string `json:"name"`
	ParentID *string `json:"parentId"`
}

func (a *API) createEra(e *core.RequestEvent) error {
	w, _, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.Edit)
	if err != nil {
		return err
	}
	var body createEraBody
	if err := decode(e, &body); err != nil {
		return err
	}
	n, err := required("name", body.Name)
	if err != nil {
		return err
	}
	parent := ""
	if body.ParentID != nil {
		parent = *body.ParentID
	}
	era, err := a.Store.CreateEra(w.ID, n, parent)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, eraJSON(era))
}

func (a *API) listEras(e *core.RequestEvent) error {
	return worldList(a, e, a.Store.Eras, eraJSON)
}
