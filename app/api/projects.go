package api

import (
	"encoding/json"
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// ProjectJSON is an app instance inside a world.
type ProjectJSON struct {
	ID      string          `json:"id"`
	WorldID string          `json:"worldId"`
	Kind    string          `json:"kind"`
	Name    string          `json:"name"`
	Config  json.RawMessage `json:"config"`
	Created string          `json:"created"`
}

func projectJSON(p store.Project) ProjectJSON {
	cfg := json.RawMessage(p.Config)
	if !json.Valid(cfg) {
		cfg = json.RawMessage("{}")
	}
	return ProjectJSON{ID: p.ID, WorldID: p.WorldID, Kind: p.Kind, Name: p.Name, Config: cfg, Created: apiTime(p.Created)}
}

type createProjectBody struct {
	Kind *string `json:"kind"`
	Name *string `json:"name"`
}

func (a *API) createProject(e *core.RequestEvent) error {
	w, _, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.Edit)
	if err != nil {
		return err
	}
	var body createProjectBody
	if err := decode(e, &body); err != nil {
		return err
	}
	n, err := required("name", body.Name)
	if err != nil {
		return err
	}
	kind, err := required("kind", body.Kind)
	if err != nil {
		return err
	}
	p, err := a.Store.CreateProject(w.ID, kind, n)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, projectJSON(p))
}

func (a *API) listProjects(e *core.RequestEvent) error {
	return worldList(a, e, a.Store.Projects, projectJSON)
}
