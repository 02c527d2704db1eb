package api

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// era resolves {eraId} in a world the caller may act on at level.
func (a *API) era(e *core.RequestEvent, level auth.Need) (store.Era, error) {
	w, _, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), level)
	if err != nil {
		return store.Era{}, err
	}
	era, err := a.Store.Era(w.ID, e.Request.PathValue("eraId"))
	if err != nil {
		return store.Era{}, apierr.NotFound("era")
	}
	return era, nil
}

type renameEraBody struct {
	Name *string `json:"name"`
}

// renameEra renames an era (owner and admins).
func (a *API) renameEra(e *core.RequestEvent) error {
	era, err := a.era(e, auth.Manage)
	if err != nil {
		return err
	}
	var body renameEraBody
	if err := decode(e, &body); err != nil {
		return err
	}
	if body.Name == nil {
		return apierr.NothingToChange("name")
	}
	era, err = a.Store.RenameEra(era, *body.Name)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, eraJSON(era))
}

// deleteEra deletes an era without child eras, with what was made in it (owner and admins);
// one with children answers 409 era_has_children.
func (a *API) deleteEra(e *core.RequestEvent) error {
	era, err := a.era(e, auth.Manage)
	if err != nil {
		return err
	}
	if err := a.Store.DeleteEra(era); err != nil {
		return err
	}
	return e.NoContent(http.StatusNoContent)
}
