package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

func TestDocumentsCreateListGet(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	base := "/api/v1/worlds/" + w + "/documents"

	var folder struct{ ID, Name, DocumentType, ParentID, WorldID string }
	s.Must(s.Post(ann.Key, base, map[string]any{"name": "People", "documentType": "folder"}), http.StatusCreated).JSON(t, &folder)
	if folder.Name != "People" || folder.DocumentType != "folder" || folder.WorldID != w || folder.ParentID != "" {
		t.Fatalf("folder = %+v", folder)
	}
	var card struct{ ID, ParentID string }
	s.Must(s.Post(ann.Key, base, map[string]any{"name": "Aerendyl", "documentType": "card", "parentId": folder.ID}), http.StatusCreated).JSON(t, &card)
	if card.ParentID != folder.ID {
		t.Fatalf("card parent %q", card.ParentID)
	}
	tl := s.Document(ann, w, "History", "timeline")
	s.Document(ann, w, "Rig", "animator")
	s.Document(ann, w, "Continent", "map")

	// A parent that is not a folder is refused.
	res := s.Post(ann.Key, base, map[string]any{"name": "x", "documentType": "card", "parentId": tl})
	if res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != "invalid_field" || res.Map(t)["error"].(map[string]any)["field"] != "parentId" {
		t.Fatalf("non-folder parent: %d %s", res.Status, res.Body)
	}

	var l struct {
		Items      []struct{ ID, Name, DocumentType string }
		TotalItems int
	}
	s.Must(s.Get(ann.Key, base), http.StatusOK).JSON(t, &l)
	if l.TotalItems != 5 || l.Items[0].ID != folder.ID || l.Items[1].ID != card.ID {
		t.Fatalf("list = %+v", l)
	}
	s.Must(s.Get(ann.Key, base+"?documentType=timeline"), http.StatusOK).JSON(t, &l)
	if l.TotalItems != 1 || l.Items[0].ID != tl {
		t.Fatalf("filtered = %+v", l)
	}
	s.Must(s.Get(ann.Key, base+"?perPage=2&page=3"), http.StatusOK).JSON(t, &l)
	if l.TotalItems != 5 || len(l.Items) != 1 {
		t.Fatalf("page 3 = %+v", l)
	}

	// A never-written document reads as empty, with the type's empty shape.
	for _, tc := range []struct{ id, data, text string }{
		{tl, `{"events":[]}`, "History"},
		{card.ID, `{"name":"","aliases":[],"properties":[],"sections":[]}`, "Aerendyl"},
	} {
		var d struct {
			ID      string
			Version int
			Content struct {
				Data   json.RawMessage
				Source string
				Text   string
			}
		}
		res := s.Must(s.Get(ann.Key, base+"/"+tc.id), http.StatusOK)
		res.JSON(t, &d)
		if d.ID != tc.id || d.Version != 0 || d.Content.Source != "empty" || d.Content.Text != tc.text {
			t.Fatalf("empty read %s", res.Body)
		}
		if got := string(d.Content.Data); got != tc.data {
			t.Fatalf("empty data %s, want %s", got, tc.data)
		}
	}
	if res := s.Get(ann.Key, base+"/nosuchdocument1"); res.Status != http.StatusNotFound || res.ErrorCode() != "not_found" {
		t.Fatalf("unknown doc: %d %s", res.Status, res.Body)
	}
	// A document id from another world is not found through this world.
	other := s.World(ann, "Other")
	if res := s.Get(ann.Key, "/api/v1/worlds/"+other+"/documents/"+tl); res.Status != http.StatusNotFound {
		t.Fatalf("cross-world doc: %d", res.Status)
	}
}

func TestDocumentTypeAllowList(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	base := "/api/v1/worlds/" + w + "/documents"

	res := s.Post(ann.Key, base, map[string]any{"name": "Quest log", "documentType": "quest"})
	if res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != "unsupported_document_type" {
		t.Fatalf("unknown type: %d %s", res.Status, res.Body)
	}
	allowed := res.Map(t)["error"].(map[string]any)["allowed"].([]any)
	if len(allowed) != 5 {
		t.Fatalf("allowed = %v", allowed)
	}

	// Installing a tool adds its types to this world only.
	s.InstallTool(w, apptest.QuestTool)
	var q struct{ ID string }
	s.Must(s.Post(ann.Key, base, map[string]any{"name": "Quest log", "documentType": "quest"}), http.StatusCreated).JSON(t, &q)
	other := s.World(ann, "Other")
	if res := s.Post(ann.Key, "/api/v1/worlds/"+other+"/documents", map[string]any{"name": "Quest log", "documentType": "quest"}); res.ErrorCode() != "unsupported_document_type" {
		t.Fatalf("tool type leaked to another world: %d", res.Status)
	}
	// A new tool document reads as its type's empty document and rejects ops it does not declare.
	var d struct {
		Content struct {
			Source string
			Data   map[string]any
		}
	}
	s.Must(s.Get(ann.Key, base+"/"+q.ID), http.StatusOK).JSON(t, &d)
	if d.Content.Source != "empty" || d.Content.Data["state"] != "open" {
		t.Fatalf("tool doc content %+v", d.Content)
	}
	res = s.Post(ann.Key, base+"/"+q.ID+"/content", map[string]any{"ops": []any{map[string]any{"op": "quest.fly"}}})
	if res.ErrorCode() != "unsupported_operation" {
		t.Fatalf("tool op: %d %s", res.Status, res.Body)
	}
}

// TestCreateDocumentRequiredFields checks that a missing name or documentType is named as
// missing, not judged as a value.
func TestCreateDocumentRequiredFields(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	base := "/api/v1/worlds/" + s.World(ann, "Eldoria") + "/documents"
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": "No type"}, "documentType"},
		{map[string]any{"documentType": "card"}, "name"},
		{map[string]any{}, "name"},
	} {
		expectMissing(t, s.Post(ann.Key, base, c.body), c.field)
	}
}
