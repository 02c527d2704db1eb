package mcp_test

import (
	"net/http"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// A world in the trash is gone for MCP clients too: list_worlds leaves it out and every tool
// that names it answers not_found, as for a world that does not exist; restored, it is back.
func TestTrashedWorldIsGoneOverMCP(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Atlantis")
	doc := s.Document(ann, w, "Temple", "card")
	session := connect(t, s, ann.Key)
	s.Must(s.Do(apptest.Request{Method: http.MethodDelete, Path: "/api/v1/worlds/" + w, Key: ann.Key}), http.StatusOK)

	var list struct{ TotalItems int }
	call(t, session, "list_worlds", nil, &list)
	if list.TotalItems != 0 {
		t.Fatalf("list_worlds after delete: %+v", list)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_world", map[string]any{"worldId": w}},
		{"list_documents", map[string]any{"worldId": w}},
		{"get_document", map[string]any{"worldId": w, "documentId": doc}},
		{"search", map[string]any{"worldId": w, "q": "temple"}},
		{"create_era", map[string]any{"worldId": w, "name": "Later"}},
	} {
		var e toolErr
		if !call(t, session, c.tool, c.args, &e) || e.Error.Code != "not_found" {
			t.Errorf("%s on a trashed world: %+v", c.tool, e)
		}
	}
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/restore", nil), http.StatusOK)
	call(t, session, "list_worlds", nil, &list)
	if list.TotalItems != 1 {
		t.Fatalf("list_worlds after restore: %+v", list)
	}
}
