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
	s.InstallTool(w, apptest.QuestTool)
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

// TestWikiProjectSettings checks a wiki's config on create and PATCH, the url that stays
// when it is renamed, the refusals naming their field, and DELETE.
func TestWikiProjectSettings(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	vic := s.NewUser("Vic")
	out := s.NewUser("Out")
	w := s.World(ann, "Eldoria")
	s.AddMember(ann, w, vic, "viewer")
	base := "/api/v1/worlds/" + w + "/projects"
	var era struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/eras", map[string]any{"name": "Second Age"}), http.StatusCreated).JSON(t, &era)

	type project struct {
		ID, Name, URL string
		Config        struct{ Visibility, EraID string }
	}
	var p project
	s.Must(s.Post(ann.Key, base, map[string]any{"kind": "wiki", "name": "Lore of Eldoria"}), http.StatusCreated).JSON(t, &p)
	if p.Config.Visibility != "members" || p.Config.EraID != "" || !strings.HasPrefix(p.URL, "/wiki/lore-of-eldoria-") || !strings.HasSuffix(p.URL, "/") {
		t.Fatalf("new wiki %+v", p)
	}
	patch := func(key string, body any) *apptest.Response {
		return s.Do(apptest.Request{Method: http.MethodPatch, Path: base + "/" + p.ID, Key: key, Body: body})
	}
	var q project
	s.Must(patch(ann.Key, map[string]any{"name": "Eldoria Wiki", "config": map[string]any{"visibility": "public", "eraId": era.ID}}), http.StatusOK).JSON(t, &q)
	if q.Name != "Eldoria Wiki" || q.URL != p.URL || q.Config.Visibility != "public" || q.Config.EraID != era.ID {
		t.Fatalf("patched %+v, was %+v", q, p)
	}
	// A PATCH of one member keeps the others.
	s.Must(patch(ann.Key, map[string]any{"config": map[string]any{"eraId": ""}}), http.StatusOK).JSON(t, &q)
	if q.Config.Visibility != "public" || q.Config.EraID != "" {
		t.Fatalf("partial patch %+v", q)
	}
	for _, c := range []struct {
		body  any
		code  string
		field string
	}{
		{map[string]any{"name": ""}, "invalid_field", "name"},
		{map[string]any{"config": map[string]any{"visibility": "everyone"}}, "invalid_field", "config.visibility"},
		{map[string]any{"config": map[string]any{"eraId": "nosuchera000000"}}, "invalid_field", "config.eraId"},
		{map[string]any{"config": map[string]any{"theme": "dark"}}, "invalid_field", "config.theme"},
		{map[string]any{"config": "public"}, "invalid_field", "config"},
		{map[string]any{"config": nil}, "invalid_field", "config"},
	} {
		res := patch(ann.Key, c.body)
		if res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != c.code || res.Map(t)["error"].(map[string]any)["field"] != c.field {
			t.Errorf("PATCH %v: %d %s, want 422 %s naming %s", c.body, res.Status, res.Body, c.code, c.field)
		}
	}
	if res := patch(ann.Key, map[string]any{}); res.Status != http.StatusBadRequest || res.ErrorCode() != "nothing_to_change" {
		t.Errorf("PATCH {}: %d %s, want 400 nothing_to_change", res.Status, res.Body)
	}
	res := s.Post(ann.Key, base, map[string]any{"kind": "wiki", "name": "Bad", "config": map[string]any{"visibility": "secret"}})
	if res.Status != http.StatusUnprocessableEntity || res.Map(t)["error"].(map[string]any)["field"] != "config.visibility" {
		t.Errorf("create with a bad visibility: %d %s", res.Status, res.Body)
	}
	if res := patch(vic.Key, map[string]any{"name": "Mine"}); res.Status != http.StatusForbidden {
		t.Errorf("viewer PATCH: %d %s", res.Status, res.Body)
	}
	if res := patch(out.Key, map[string]any{"name": "Mine"}); res.Status != http.StatusNotFound {
		t.Errorf("non-member PATCH: %d %s", res.Status, res.Body)
	}
	del := func(key string) *apptest.Response {
		return s.Do(apptest.Request{Method: http.MethodDelete, Path: base + "/" + p.ID, Key: key})
	}
	if res := del(out.Key); res.Status != http.StatusNotFound {
		t.Errorf("non-member DELETE: %d", res.Status)
	}
	if res := del(vic.Key); res.Status != http.StatusForbidden {
		t.Errorf("viewer DELETE: %d", res.Status)
	}
	s.Must(del(ann.Key), http.StatusNoContent)
	s.Must(s.Get(ann.Key, base+"/"+p.ID), http.StatusNotFound)
	s.Must(del(ann.Key), http.StatusNotFound)
}
