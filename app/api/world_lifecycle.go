package api

import (
	"net/http"
	"slices"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

type updateWorldBody struct {
	Name  *string `json:"name"`
	Genre *string `json:"genre"`
}

// updateWorld renames a world and/or changes its genre (owner and admins); the theme follows
// the genre, the slug stays.
func (a *API) updateWorld(e *core.RequestEvent) error {
	w, role, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.Manage)
	if err != nil {
		return err
	}
	var body updateWorldBody
	if err := decode(e, &body); err != nil {
		return err
	}
	if body.Name == nil && body.Genre == nil {
		return apierr.NothingToChange("name", "genre")
	}
	w, err = a.Store.UpdateWorld(w, store.WorldChange{Name: body.Name, Genre: body.Genre})
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, worldJSON(w, role))
}

// TrashedWorldJSON is a world in its owner's trash.
type TrashedWorldJSON struct {
	WorldJSON
	// Deleted is when it went to the trash; PurgeAt when it is removed for good.
	Deleted string `json:"deleted"`
	PurgeAt string `json:"purgeAt"`
}

func trashedWorldJSON(t store.TrashedWorld) TrashedWorldJSON {
	return TrashedWorldJSON{WorldJSON: worldJSON(t.World, "owner"), Deleted: apiTime(t.Deleted),
		PurgeAt: t.PurgeAt.UTC().Format("2006-01-02T15:04:05.000Z")}
}

// deleteWorld moves a world to the trash (its owner only): it answers 404 to everyone from
// now on, and is purged after store.TrashKeep unless the owner restores it.
func (a *API) deleteWorld(e *core.RequestEvent) error {
	p := auth.PrincipalOf(e)
	w, role, err := a.Access.World(p, e.Request.PathValue("worldId"), auth.Manage)
	if err != nil {
		return err
	}
	if role != "owner" {
		return apierr.Forbidden("your role in this world is %s; only its owner can delete it", role)
	}
	if err := a.Store.TrashWorld(w.ID); err != nil {
		return err
	}
	trash, err := a.Store.TrashedWorlds(p.UserID)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(trash, func(t store.TrashedWorld) bool { return t.ID == w.ID })
	if i < 0 {
		return apierr.NotFound("world") // restored or purged in between
	}
	return e.JSON(http.StatusOK, trashedWorldJSON(trash[i]))
}

// listTrash lists the caller's worlds in the trash, most recently deleted first.
func (a *API) listTrash(e *core.RequestEvent) error {
	pg, err := page(e)
	if err != nil {
		return err
	}
	trash, err := a.Store.TrashedWorlds(auth.PrincipalOf(e).UserID)
	if err != nil {
		return err
	}
	items := []TrashedWorldJSON{}
	for i := (pg.Page - 1) * pg.PerPage; i >= 0 && i < len(trash) && len(items) < pg.PerPage; i++ {
		items = append(items, trashedWorldJSON(trash[i]))
	}
	return e.JSON(http.StatusOK, list(items, pg, len(trash)))
}

// restoreWorld takes a world out of its owner's trash. To anyone else the world does not
// exist: 404.
func (a *API) restoreWorld(e *core.RequestEvent) error {
	w, err := a.Store.RestoreWorld(auth.PrincipalOf(e).UserID, e.Request.PathValue("worldId"))
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, worldJSON(w, "owner"))
}
