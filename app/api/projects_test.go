package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
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

// TestCreateProjectRequiredFields checks that a missing kind or name is named as missing,
// not judged as a value.
func TestCreateProjectRequiredFields(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	base := "/api/v1/worlds/" + s.World(ann, "Eldoria") + "/projects"
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": "Lore wiki"}, "kind"},
		{map[string]any{"kind": "wiki"}, "name"},
		{map[string]any{}, "name"},
	} {
		expectMissing(t, s.Post(ann.Key, base, c.body), c.field)
	}
}

// expectMissing fails the test unless res is the 422 invalid_field saying field is required.
func expectMissing(t *testing.T, res *apptest.Response, field string) {
	t.Helper()
	e, _ := res.Map(t)["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != "invalid_field" || e["field"] != field || !strings.Contains(msg, field) || !strings.Contains(msg, "required") {
		t.Fatalf("missing %s: %d %s", field, res.Status, res.Body)
	}
}
