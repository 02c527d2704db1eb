package api_test

import (
	"net/http"
	"testing"
)

func TestProjects(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	base := "/api/v1/worlds/" + w + "/projects"

	var p struct {
		ID, Kind, Name, WorldID string
		Config                  map[string]any
	}
	s.Must(s.Post(ann.Key, base, map[string]any{"kind": "wiki", "name": "Lore wiki"}), http.StatusCreated).JSON(t, &p)
	if p.Kind != "wiki" || p.Name != "Lore wiki" || p.WorldID != w || p.Config == nil {
		t.Fatalf("project %+v", p)
	}
	res := s.Post(ann.Key, base, map[string]any{"kind": "kanban", "name": "Board"})
	if res.Status != 422 || res.ErrorCode() != "unknown_project_kind" {
		t.Fatalf("unknown kind: %d %s", res.Status, res.Body)
	}
	if allowed := res.Map(t)["error"].(map[string]any)["allowed"].([]any); len(allowed) != 1 || allowed[0] != "wiki" {
		t.Fatalf("allowed %v", allowed)
	}
	// A tool can add app kinds.
	if _, err := s.PB.DB().NewQuery(`INSERT INTO tools (id, world, name, manifest, created) VALUES ('tool00000000002', {:w}, 'Boards', '{"appKinds":["kanban"]}', '')`).
		Bind(map[string]any{"w": w}).Execute(); err != nil {
		t.Fatal(err)
	}
	s.Must(s.Post(ann.Key, base, map[string]any{"kind": "kanban", "name": "Board"}), http.StatusCreated)

	var l struct {
		Items      []struct{ Name string }
		TotalItems int
	}
	s.Must(s.Get(ann.Key, base), http.StatusOK).JSON(t, &l)
	if l.TotalItems != 2 || l.Items[0].Name != "Lore wiki" || l.Items[1].Name != "Board" {
		t.Fatalf("list %+v", l)
	}
}
