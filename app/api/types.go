package api

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// TypeJSON is one document type a world accepts, with its ops, for scripts and agents.
type TypeJSON struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Builtin bool   `json:"builtin"`
	// Tool and ToolVersion name the installed tool that adds the type ("" for a built-in).
	Tool        string `json:"tool"`
	ToolVersion string `json:"toolVersion"`
	// Schema is a tool type's data schema, as its manifest wrote it.
	Schema json.RawMessage `json:"schema,omitempty"`
	Ops    []TypeOpJSON    `json:"ops"`
}

// TypeOpJSON is one op of a type: Params is the JSON Schema of the whole op object.
type TypeOpJSON struct {
	Op      string          `json:"op"`
	Kind    string          `json:"kind,omitempty"`
	Path    string          `json:"path,omitempty"`
	Summary string          `json:"summary"`
	Params  json.RawMessage `json:"params"`
}

// TypeList is every document type of a world.
type TypeList struct {
	Types []TypeJSON `json:"types"`
}

func (a *API) listTypes(e *core.RequestEvent) error {
	w, _, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.ReadMeta)
	if err != nil {
		return err
	}
	types, err := WorldTypes(a.Store, w.ID)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, types)
}

// WorldTypes lists the document types a world accepts: the built-in ones, then those of its
// installed tools by name, each with its ops and their parameters as JSON Schema. The REST
// API and the MCP connector serve the same list.
func WorldTypes(st *store.Store, worldID string) (TypeList, error) {
	names, err := st.DocumentTypes(worldID)
	if err != nil {
		return TypeList{}, err
	}
	out := TypeList{Types: []TypeJSON{}}
	byType := map[string][]TypeOpJSON{}
	for _, spec := range ops.Catalog() {
		params, _ := json.Marshal(spec.Schema()) // plain maps and strings: cannot fail
		byType[spec.DocumentType] = append(byType[spec.DocumentType], TypeOpJSON{Op: spec.Name, Summary: spec.Summary, Params: params})
	}
	for _, name := range ops.Types() {
		t := TypeJSON{Name: name, Title: strings.ToUpper(name[:1]) + name[1:], Builtin: true, Ops: byType[name]}
		if t.Ops == nil {
			t.Ops = []TypeOpJSON{}
		}
		out.Types = append(out.Types, t)
	}
	for _, name := range names {
		if ops.IsBuiltin(name) {
			continue
		}
		tt, ok := st.ToolType(worldID, name)
		if !ok {
			continue // uninstalled meanwhile
		}
		t := TypeJSON{Name: tt.Name, Title: tt.Title, Tool: tt.Tool, ToolVersion: tt.ToolVersion, Schema: tt.Schema(), Ops: []TypeOpJSON{}}
		for _, op := range tt.Ops() {
			t.Ops = append(t.Ops, TypeOpJSON{Op: op.Op, Kind: op.Kind, Path: op.Path, Summary: op.Summary, Params: op.Params})
		}
		out.Types = append(out.Types, t)
	}
	return out, nil
}
