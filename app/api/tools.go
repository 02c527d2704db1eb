package api

import (
	"encoding/json"
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// ToolList is the tools installed in a world, by name.
type ToolList struct {
	Items      []store.ToolInfo `json:"items"`
	TotalItems int              `json:"totalItems"`
}

// ToolWithManifest is one installed tool with its manifest (canonical JSON).
type ToolWithManifest struct {
	store.ToolInfo
	Manifest json.RawMessage `json:"manifest"`
}

// toolJSON is a tool as the API shows it: its times in RFC 3339.
func toolJSON(t store.ToolInfo) store.ToolInfo {
	t.Installed, t.Updated = apiTime(t.Installed), apiTime(t.Updated)
	return t
}

func (a *API) listTools(e *core.RequestEvent) error {
	w, _, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.ManageTools)
	if err != nil {
		return err
	}
	tools, err := a.Store.Tools(w.ID)
	if err != nil {
		return err
	}
	for i := range tools {
		tools[i] = toolJSON(tools[i])
	}
	return e.JSON(http.StatusOK, ToolList{Items: tools, TotalItems: len(tools)})
}

// installTool installs the manifest sent as the body (201), or upgrades the installed tool
// of its name (200).
func (a *API) installTool(e *core.RequestEvent) error {
	p := auth.PrincipalOf(e)
	w, _, err := a.Access.World(p, e.Request.PathValue("worldId"), auth.ManageTools)
	if err != nil {
		return err
	}
	manifest, err := apierr.ReadJSON(e.Response, e.Request)
	if err != nil {
		return err
	}
	info, upgraded, err := a.Store.InstallTool(w.ID, manifest, p.Actor())
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if upgraded {
		status = http.StatusOK
	}
	return e.JSON(status, toolJSON(info))
}

func (a *API) getTool(e *core.RequestEvent) error {
	w, _, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.ManageTools)
	if err != nil {
		return err
	}
	info, manifest, err := a.Store.Tool(w.ID, e.Request.PathValue("toolId"))
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, ToolWithManifest{ToolInfo: toolJSON(info), Manifest: manifest})
}

// uninstallTool removes a tool; its documents stay, read as stored.
func (a *API) uninstallTool(e *core.RequestEvent) error {
	p := auth.PrincipalOf(e)
	w, _, err := a.Access.World(p, e.Request.PathValue("worldId"), auth.ManageTools)
	if err != nil {
		return err
	}
	if err := a.Store.UninstallTool(w.ID, e.Request.PathValue("toolId"), p.Actor()); err != nil {
		return err
	}
	return e.NoContent(http.StatusNoContent)
}
