package api_test

import (
	"net/http"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

func TestErasCopyOnWrite(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	base := "/api/v1/worlds/" + w
	doc := base + "/documents/" + tl
	s.Must(s.Post(ann.Key, doc+"/content", ops(map[string]any{"op": "timeline.addEvent", "label": "First Age", "dateMs": 1})), http.StatusOK)

	rowsBefore := counts(s)
	var era struct{ ID, Name, ParentID, WorldID string }
	s.Must(s.Post(ann.Key, base+"/eras", map[string]any{"name": "Second Age"}), http.StatusCreated).JSON(t, &era)
	if era.Name != "Second Age" || era.ParentID != "" || era.WorldID != w {
		t.Fatalf("era = %+v", era)
	}
	// Creating an era writes one era row and one outbox row, nothing else.
	if s.Count("eras", "") != 1 || s.Count("document_states", "") != 1 {
		t.Fatalf("era creation copied rows: %s -> %s", rowsBefore, counts(s))
	}

	// The era inherits the main line's current content...
	var d docRead
	s.Must(s.Get(ann.Key, doc+"?era="+era.ID), http.StatusOK).JSON(t, &d)
	if d.Version != 1 || d.Content.Source != "live" || d.Content.Text != "History First Age" {
		t.Fatalf("inherited read %+v", d)
	}
	// ...and keeps following it until its first write.
	s.Must(s.Post(ann.Key, doc+"/content", ops(map[string]any{"op": "timeline.addEvent", "label": "Main Two", "dateMs": 2})), http.StatusOK)
	s.Must(s.Get(ann.Key, doc+"?era="+era.ID), http.StatusOK).JSON(t, &d)
	if d.Version != 2 || d.Content.Text != "History First Age Main Two" {
		t.Fatalf("era does not follow main: %+v", d)
	}

	// The first write in the era copies, continues the version, and leaves main alone.
	var r opsResult
	s.Must(s.Post(ann.Key, doc+"/content?era="+era.ID, ops(map[string]any{"op": "timeline.addEvent", "label": "Era Only", "dateMs": 3})), http.StatusOK).JSON(t, &r)
	if r.Version != 3 {
		t.Fatalf("era write version %d", r.Version)
	}
	s.Must(s.Get(ann.Key, doc), http.StatusOK).JSON(t, &d)
	if d.Version != 2 || d.Content.Text != "History First Age Main Two" {
		t.Fatalf("main changed by era write: %+v", d)
	}
	s.Must(s.Get(ann.Key, doc+"?era="+era.ID), http.StatusOK).JSON(t, &d)
	if d.Version != 3 || d.Content.Text != "History First Age Main Two Era Only" {
		t.Fatalf("era read %+v", d)
	}
	// Later main writes no longer reach the era.
	s.Must(s.Post(ann.Key, doc+"/content", ops(map[string]any{"op": "timeline.addEvent", "label": "Main Three", "dateMs": 4})), http.StatusOK)
	s.Must(s.Get(ann.Key, doc+"?era="+era.ID), http.StatusOK).JSON(t, &d)
	if d.Content.Text != "History First Age Main Two Era Only" {
		t.Fatalf("era picked up a later main write: %+v", d)
	}

	// Documents created in an era exist there only.
	var inEra struct{ ID, EraID string }
	s.Must(s.Post(ann.Key, base+"/documents?era="+era.ID, map[string]any{"name": "Era hero", "documentType": "card"}), http.StatusCreated).JSON(t, &inEra)
	if inEra.EraID != era.ID {
		t.Fatalf("era doc %+v", inEra)
	}
	if res := s.Get(ann.Key, base+"/documents/"+inEra.ID); res.Status != http.StatusNotFound {
		t.Fatalf("era doc visible on main: %d", res.Status)
	}
	s.Must(s.Get(ann.Key, base+"/documents/"+inEra.ID+"?era="+era.ID), http.StatusOK)

	var l struct{ TotalItems int }
	s.Must(s.Get(ann.Key, base+"/eras"), http.StatusOK).JSON(t, &l)
	if l.TotalItems != 1 {
		t.Fatalf("eras %d", l.TotalItems)
	}
	// An era of another world is unknown here.
	other := s.World(ann, "Other")
	if res := s.Get(ann.Key, "/api/v1/worlds/"+other+"/documents?era="+era.ID); res.Status != http.StatusNotFound {
		t.Fatalf("foreign era: %d", res.Status)
	}
}

// ?era= with no value is refused on every route that takes it, and changes nothing: an unset
// variable in a script (`?era=$E`) must not delete or write on the main line.
func TestEmptyEraIsRefused(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	doc := "/api/v1/worlds/" + w + "/documents/" + tl
	for _, req := range []struct{ method, path string }{
		{"DELETE", doc + "?era="},
		{"POST", doc + "/content?era="},
		{"GET", doc + "?era="},
		{"GET", doc + "?era=a&era=b"},
		{"GET", "/api/v1/worlds/" + w + "/documents?era="},
		{"GET", "/api/v1/worlds/" + w + "/search?q=history&era="},
		{"GET", doc + "/events?era="},
	} {
		var body any
		if req.method == "POST" {
			body = ops(map[string]any{"op": "timeline.addEvent", "label": "Lost", "dateMs": 1})
		}
		res := s.Do(apptest.Request{Method: req.method, Path: req.path, Key: ann.Key, Body: body})
		if res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != "invalid_field" {
			t.Errorf("%s %s: %d %s, want 422 invalid_field", req.method, req.path, res.Status, res.Body)
		}
	}
	var c struct{ Version int }
	s.Must(s.Get(ann.Key, doc), http.StatusOK).JSON(t, &c)
	if c.Version != 0 {
		t.Fatalf("the document changed: version %d", c.Version)
	}
}

// TestEraDepthLimit: reads and searches in an era walk its chain, so forks stop at
// store.MaxEraDepth eras deep with 422 era_too_deep.
func TestEraDepthLimit(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	base := "/api/v1/worlds/" + s.World(ann, "Eldoria") + "/eras"
	parent := ""
	for i := 1; i <= 32; i++ {
		var era struct{ ID string }
		s.Must(s.Post(ann.Key, base, map[string]any{"name": "Age", "parentId": parent}), http.StatusCreated).JSON(t, &era)
		parent = era.ID
	}
	res := s.Must(s.Post(ann.Key, base, map[string]any{"name": "Too deep", "parentId": parent}), http.StatusUnprocessableEntity)
	if m := res.Map(t); res.ErrorCode() != "era_too_deep" || m["error"].(map[string]any)["limit"] != float64(32) {
		t.Fatalf("33rd era: %s", res.Body)
	}
	// A sibling nearer the main line is still fine.
	s.Must(s.Post(ann.Key, base, map[string]any{"name": "Side"}), http.StatusCreated)
}
