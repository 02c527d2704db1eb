package api

import (
	"encoding/json"
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
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
	// URL is where a wiki is read (a path on this server); empty for other kinds.
	URL     string `json:"url,omitempty"`
	Created string `json:"created"`
}

// WikiURL is the address of a wiki project's home page.
func WikiURL(slug string) string { return "/wiki/" + slug + "/" }

func projectJSON(p store.Project) ProjectJSON {
	cfg := json.RawMessage(p.Config)
	if !json.Valid(cfg) {
		cfg = json.RawMessage("{}")
	}
	j := ProjectJSON{ID: p.ID, WorldID: p.WorldID, Kind: p.Kind, Name: p.Name, Config: cfg, Created: apiTime(p.Created)}
	if p.Kind == store.KindWiki {
		j.URL = WikiURL(p.Slug)
	}
	return j
}

type createProjectBody struct {
	Kind   *string         `json:"kind"`
	Name   *string         `json:"name"`
	Config json.RawMessage `json:"config"`
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
	p, err := a.Store.CreateProjectWithConfig(w.ID, kind, n, body.Config)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, projectJSON(p))
}

func (a *API) listProjects(e *core.RequestEvent) error {
	return worldList(a, e, a.Store.Projects, projectJSON)
}

// project resolves {projectId} in a world the caller may act on at level.
func (a *API) project(e *core.RequestEvent, level auth.Need) (store.Project, error) {
	w, _, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), level)
	if err != nil {
		return store.Project{}, err
	}
	p, err := a.Store.Project(w.ID, e.Request.PathValue("projectId"))
	if err != nil {
		return store.Project{}, apierr.NotFound("project")
	}
	return p, nil
}

func (a *API) getProject(e *core.RequestEvent) error {
	p, err := a.project(e, auth.ReadMeta)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, projectJSON(p))
}

type updateProjectBody struct {
	Name   *string         `json:"name"`
	Config json.RawMessage `json:"config"`
}

// updateProject renames a project and/or changes its settings (editors); its url stays.
func (a *API) updateProject(e *core.RequestEvent) error {
	p, err := a.project(e, auth.Edit)
	if err != nil {
		return err
	}
	var body updateProjectBody
	if err := decode(e, &body); err != nil {
		return err
	}
	if body.Name == nil && body.Config == nil {
		return apierr.NothingToChange("name", "config")
	}
	if body.Config != nil && string(body.Config) == "null" {
		return apierr.Field("config", "\"config\" must be a JSON object")
	}
	p, err = a.Store.UpdateProject(p, store.ProjectChange{Name: body.Name, Config: body.Config})
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, projectJSON(p))
}

// deleteProject deletes a project (editors); a wiki's address then answers 404.
func (a *API) deleteProject(e *core.RequestEvent) error {
	p, err := a.project(e, auth.Edit)
	if err != nil {
		return err
	}
	if err := a.Store.DeleteProject(p); err != nil {
		return err
	}
	return e.NoContent(http.StatusNoContent)
}
