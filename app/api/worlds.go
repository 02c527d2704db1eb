package api

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// MeJSON identifies the calling account.
type MeJSON struct {
	ID         string         `json:"id"`
	Email      string         `json:"email"`
	Name       string         `json:"name"`
	Credential CredentialJSON `json:"credential"`
}

// CredentialJSON says which credential a request came with.
type CredentialJSON struct {
	Kind string `json:"kind"`
	ID   string `json:"id,omitempty"`
}

func (a *API) me(e *core.RequestEvent) error {
	p := auth.PrincipalOf(e)
	return e.JSON(http.StatusOK, MeJSON{ID: p.UserID, Email: p.Email, Name: p.Name, Credential: CredentialJSON{Kind: p.Kind, ID: p.CredentialID}})
}

// WorldJSON is a world as the API shows it to a member.
type WorldJSON struct {
	ID      string `json:"id"`
	Slug    string `json:"slug"`
	Name    string `json:"name"`
	Genre   string `json:"genre"`
	Theme   string `json:"theme"`
	Plan    string `json:"plan"`
	Role    string `json:"role"`
	OwnerID string `json:"ownerId"`
	Created string `json:"created"`
	Updated string `json:"updated"`
}

func worldJSON(w store.World, role string) WorldJSON {
	return WorldJSON{ID: w.ID, Slug: w.Slug, Name: w.Name, Genre: w.Genre, Theme: w.Theme, Plan: w.Plan,
		Role: role, OwnerID: w.OwnerID, Created: apiTime(w.Created), Updated: apiTime(w.Updated)}
}

type createWorldBody struct {
	Name  *string `json:"name"`
	Genre *string `json:"genre"`
}

func (a *API) createWorld(e *core.RequestEvent) error {
	var body createWorldBody
	if err := decode(e, &body); err != nil {
		return err
	}
	n, err := required("name", body.Name)
	if err != nil {
		return err
	}
	p := auth.PrincipalOf(e)
	w, err := a.Store.CreateWorld(p.UserID, n, deref(body.Genre), a.Config.DefaultPlan)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, worldJSON(w, "owner"))
}

func (a *API) listWorlds(e *core.RequestEvent) error {
	pg, err := page(e)
	if err != nil {
		return err
	}
	ws, total, err := a.Store.WorldsOf(auth.PrincipalOf(e).UserID, pg)
	if err != nil {
		return err
	}
	items := make([]WorldJSON, len(ws))
	for i, w := range ws {
		items[i] = worldJSON(w.World, w.Role)
	}
	return e.JSON(http.StatusOK, list(items, pg, total))
}

func (a *API) getWorld(e *core.RequestEvent) error {
	w, role, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.ReadMeta)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, worldJSON(w, role))
}
