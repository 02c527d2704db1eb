package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

type opsResult struct {
	DocumentType string
	Applied      int
	Created      []struct{ ID, Label string }
	Version      int
	Ops          []map[string]any
}

type docRead struct {
	Version int
	Content struct {
		Data   json.RawMessage
		Source string
		Text   string
	}
}

func ops(list ...map[string]any) map[string]any {
	items := make([]any, len(list))
	for i, o := range list {
		items[i] = o
	}
	return map[string]any{"ops": items}
}

func TestTimelineAddEvent(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History of Eldoria", "timeline")
	path := "/api/v1/worlds/" + w + "/documents/" + tl

	var r opsResult
	s.Must(s.Post(ann.Key, path+"/content", ops(
		map[string]any{"op": "timeline.addEvent", "label": "The Sundering", "dateMs": 1000, "description": "The isles split.", "precision": "year"},
		map[string]any{"op": "timeline.addEvent", "label": "Dawn", "dateMs": -9007199254740991},
	)), http.StatusOK).JSON(t, &r)
	if r.DocumentType != "timeline" || r.Applied != 2 || r.Version != 1 || len(r.Created) != 2 || len(r.Ops) != 2 {
		t.Fatalf("result = %+v", r)
	}
	for i, label := range []string{"The Sundering", "Dawn"} {
		if !strings.HasPrefix(r.Created[i].ID, "evt-") || r.Created[i].Label != label || r.Ops[i]["id"] != r.Created[i].ID {
			t.Fatalf("created[%d] = %+v, op %v", i, r.Created[i], r.Ops[i])
		}
	}
	if r.Ops[1]["precision"] != "day" {
		t.Fatalf("default precision: %v", r.Ops[1])
	}

	// The very next read sees the write, events sorted by date.
	var d docRead
	s.Must(s.Get(ann.Key, path), http.StatusOK).JSON(t, &d)
	var data struct {
		Events []struct {
			ID, Label, Description, Precision string
			DateMs                            int64
		}
	}
	if err := json.Unmarshal(d.Content.Data, &data); err != nil {
		t.Fatal(err)
	}
	if d.Version != 1 || d.Content.Source != "live" || len(data.Events) != 2 || data.Events[0].Label != "Dawn" || data.Events[1].Precision != "year" {
		t.Fatalf("read = %+v / %s", d, d.Content.Data)
	}
	if d.Content.Text != "History of Eldoria Dawn The Sundering The isles split." {
		t.Fatalf("text %q", d.Content.Text)
	}

	// One version, one op-log row and one outbox row per accepted request.
	if n := s.Count("document_ops", "document = '"+tl+"'"); n != 1 {
		t.Fatalf("op log rows %d", n)
	}
	if n := s.Count("outbox", "kind = 'document.content' AND document = '"+tl+"'"); n != 1 {
		t.Fatalf("outbox rows %d", n)
	}
	s.Must(s.Post(ann.Key, path+"/content", ops(map[string]any{"op": "timeline.addEvent", "label": "Third", "dateMs": 5})), http.StatusOK).JSON(t, &r)
	if r.Version != 2 || s.Count("document_ops", "document = '"+tl+"'") != 2 {
		t.Fatalf("second write version %d", r.Version)
	}
}

func TestContentOpErrors(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	an := s.Document(ann, w, "Dragon", "animator")
	cd := s.Document(ann, w, "Ada", "card")
	tlPath := "/api/v1/worlds/" + w + "/documents/" + tl + "/content"
	anPath := "/api/v1/worlds/" + w + "/documents/" + an + "/content"
	cdPath := "/api/v1/worlds/" + w + "/documents/" + cd + "/content"
	model := `{"op":"animator.setModel","url":"/m.glb"},`

	cases := []struct {
		name    string
		path    string
		body    any
		status  int
		code    string
		opIndex float64
		check   func(t *testing.T, e map[string]any)
	}{
		{"op of another type", tlPath, ops(map[string]any{"op": "animator.setActiveClip", "clipId": "walk"}), 422, "unsupported_operation", 0,
			func(t *testing.T, e map[string]any) {
				sup := e["supported"].([]any)
				if len(sup) == 0 || !contains(sup, "timeline.addEvent") {
					t.Fatalf("supported = %v", sup)
				}
			}},
		{"unknown op", tlPath, ops(map[string]any{"op": "timeline.explode"}), 422, "unsupported_operation", 0, nil},
		{"missing label", tlPath, ops(map[string]any{"op": "timeline.addEvent", "dateMs": 1}), 422, "invalid_field", 0, fieldIs("label")},
		{"empty label", tlPath, ops(map[string]any{"op": "timeline.addEvent", "label": "", "dateMs": 1}), 422, "invalid_field", 0, fieldIs("label")},
		{"label too long", tlPath, ops(map[string]any{"op": "timeline.addEvent", "label": strings.Repeat("x", 501), "dateMs": 1}), 422, "invalid_field", 0, fieldIs("label")},
		{"missing dateMs", tlPath, ops(map[string]any{"op": "timeline.addEvent", "label": "x"}), 422, "invalid_field", 0, fieldIs("dateMs")},
		{"fractional dateMs", tlPath, ops(map[string]any{"op": "timeline.addEvent", "label": "x", "dateMs": 1.5}), 422, "invalid_field", 0, fieldIs("dateMs")},
		{"dateMs past 2^53 and not a whole day", tlPath, `{"ops":[{"op":"timeline.addEvent","label":"x","dateMs":9007199254740993}]}`, 422, "invalid_field", 0, fieldIs("dateMs")},
		{"label wrong type", tlPath, ops(map[string]any{"op": "timeline.addEvent", "label": 7, "dateMs": 1}), 422, "invalid_field", 0, fieldIs("label")},
		{"bad precision", tlPath, ops(map[string]any{"op": "timeline.addEvent", "label": "x", "dateMs": 1, "precision": "fortnight"}), 422, "invalid_field", 0, fieldIs("precision")},
		{"unknown parameter", tlPath, ops(map[string]any{"op": "timeline.addEvent", "label": "x", "date": 1}), 422, "invalid_field", 0, nil},
		{"op not an object", tlPath, `{"ops":["timeline.addEvent"]}`, 422, "invalid_field", 0, nil},
		{"op name missing", tlPath, `{"ops":[{"label":"x"}]}`, 422, "invalid_field", 0, fieldIs("op")},
		{"failure reports its index", tlPath, ops(
			map[string]any{"op": "timeline.addEvent", "label": "ok", "dateMs": 1},
			map[string]any{"op": "timeline.addEvent", "label": "ok", "dateMs": 2},
			map[string]any{"op": "timeline.addEvent", "label": "", "dateMs": 3},
		), 422, "invalid_field", 2, nil},
		{"unknown clip", anPath, ops(map[string]any{"op": "animator.setActiveClip", "clipId": "fly"}), 422, "unknown_clip", 0,
			func(t *testing.T, e map[string]any) {
				if ids, ok := e["clipIds"].([]any); !ok || len(ids) != 0 {
					t.Fatalf("clipIds = %v", e["clipIds"])
				}
			}},
		// A fault inside an op names the op (opIndex), where it is in the op (field) and
		// where it is in the body (path), with every array index on the way.
		{"unknown member in a clip", anPath, `{"ops":[` + model + `{"op":"animator.setClips","clips":[{"id":"a"},{"id":"b","extra":1}]}]}`, 422, "invalid_field", 1,
			pathIs("clips[1].extra", "ops[1].clips[1].extra")},
		{"member twice in a clip", anPath, `{"ops":[` + model + `{"op":"animator.setClips","clips":[{"id":"a"},{"id":"b","id":"c"}]}]}`, 422, "invalid_field", 1,
			pathIs("clips[1].id", "ops[1].clips[1].id")},
		{"member twice in an op", anPath, `{"ops":[` + model + `{"op":"animator.setModel","url":"/a.glb","url":"/b.glb"}]}`, 422, "invalid_field", 1,
			pathIs("url", "ops[1].url")},
		{"clip member in capitals", anPath, `{"ops":[` + model + `{"op":"animator.setClips","clips":[{"ID":"a"}]}]}`, 422, "invalid_field", 1,
			pathIs("clips[0].ID", "ops[1].clips[0].ID")},
		{"splice pos not a number", cdPath, `{"ops":[{"op":"card.editSectionText","id":"sec-x","baseVersion":0,"splices":[{"pos":0},{"pos":0},{"pos":"1"}]}]}`, 422, "invalid_field", 0,
			pathIs("splices[2].pos", "ops[0].splices[2].pos")},
		{"no ops", tlPath, map[string]any{"ops": []any{}}, 422, "invalid_field", -1, fieldIs("ops")},
		{"ops missing", tlPath, map[string]any{}, 422, "invalid_field", -1, fieldIs("ops")},
		{"ops not an array", tlPath, map[string]any{"ops": "timeline.addEvent"}, 422, "invalid_field", -1, fieldIs("ops")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := s.Do(apptest.Request{Method: "POST", Path: tc.path, Key: ann.Key, Body: tc.body})
			if res.Status != tc.status || res.ErrorCode() != tc.code {
				t.Fatalf("got %d %s", res.Status, res.Body)
			}
			e := res.Map(t)["error"].(map[string]any)
			if msg, _ := e["message"].(string); msg == "" {
				t.Fatalf("no message: %s", res.Body)
			}
			if tc.opIndex >= 0 && e["opIndex"] != tc.opIndex {
				t.Fatalf("opIndex = %v, want %v", e["opIndex"], tc.opIndex)
			}
			if tc.check != nil {
				tc.check(t, e)
			}
		})
	}
	// Nothing was stored by any rejected request.
	if n := s.Count("document_ops", ""); n != 0 {
		t.Fatalf("rejected requests wrote %d op rows", n)
	}
	if n := s.Count("document_states", ""); n != 0 {
		t.Fatalf("rejected requests wrote %d state rows", n)
	}
}

func TestAnimatorActiveClip(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	an := s.Document(ann, w, "Dragon", "animator")
	path := "/api/v1/worlds/" + w + "/documents/" + an

	var r opsResult
	s.Must(s.Post(ann.Key, path+"/content", ops(
		map[string]any{"op": "animator.setModel", "url": "https://models.example/dragon.glb", "name": "Dragon"},
		map[string]any{"op": "animator.setClips", "clips": []any{map[string]any{"id": "idle"}, map[string]any{"id": "fly"}}},
		map[string]any{"op": "animator.setActiveClip", "clipId": "idle"},
	)), http.StatusOK).JSON(t, &r)
	if r.Version != 1 || r.Applied != 3 || len(r.Created) != 0 {
		t.Fatalf("result %+v", r)
	}
	s.Must(s.Post(ann.Key, path+"/content", ops(map[string]any{"op": "animator.setActiveClip", "clipId": "fly"})), http.StatusOK)

	var d docRead
	s.Must(s.Get(ann.Key, path), http.StatusOK).JSON(t, &d)
	want := `{"model":{"url":"https://models.example/dragon.glb","name":"Dragon"},"clips":[{"id":"idle"},{"id":"fly"}],"activeClipId":"fly"}`
	if string(d.Content.Data) != want || d.Version != 2 {
		t.Fatalf("data %s version %d", d.Content.Data, d.Version)
	}
	if d.Content.Text != "Dragon idle fly" {
		t.Fatalf("text %q", d.Content.Text)
	}

	// unknown_clip lists the clips; the batch it was in changes nothing.
	res := s.Post(ann.Key, path+"/content", ops(
		map[string]any{"op": "animator.setActiveClip", "clipId": "idle"},
		map[string]any{"op": "animator.setActiveClip", "clipId": "swim"},
	))
	if res.Status != 422 || res.ErrorCode() != "unknown_clip" {
		t.Fatalf("unknown clip %d %s", res.Status, res.Body)
	}
	if ids := res.Map(t)["error"].(map[string]any)["clipIds"].([]any); len(ids) != 2 || ids[0] != "idle" || ids[1] != "fly" {
		t.Fatalf("clipIds %v", ids)
	}
	s.Must(s.Get(ann.Key, path), http.StatusOK).JSON(t, &d)
	if string(d.Content.Data) != want || d.Version != 2 {
		t.Fatalf("after rejected batch: %s v%d", d.Content.Data, d.Version)
	}
}

func contains(list []any, v any) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// pathIs checks an op's error's field (in the op) and path (in the body).
func pathIs(field, path string) func(t *testing.T, e map[string]any) {
	return func(t *testing.T, e map[string]any) {
		t.Helper()
		if e["field"] != field || e["path"] != path {
			t.Fatalf("field, path = %v, %v; want %s, %s", e["field"], e["path"], field, path)
		}
	}
}

func fieldIs(field string) func(t *testing.T, e map[string]any) {
	return func(t *testing.T, e map[string]any) {
		t.Helper()
		if e["field"] != field {
			t.Fatalf("field = %v, want %s", e["field"], field)
		}
	}
}

// TestEmptyTextEditIsRefused: a text edit without splices is refused, as an update that sets
// nothing is, instead of making a version that changes nothing.
func TestEmptyTextEditIsRefused(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	path := "/api/v1/worlds/" + w + "/documents/" + s.Document(ann, w, "Ada", "card")
	var r opsResult
	s.Must(s.Post(ann.Key, path+"/content", ops(map[string]any{"op": "card.addSection", "title": "Life", "body": "Born."})), http.StatusOK).JSON(t, &r)
	res := s.Post(ann.Key, path+"/content", ops(map[string]any{"op": "card.editSectionText", "id": r.Created[0].ID, "baseVersion": 1, "splices": []any{}}))
	if e, _ := res.Map(t)["error"].(map[string]any); res.Status != 422 || e["field"] != "splices" || e["path"] != "ops[0].splices" {
		t.Fatalf("empty splices: %d %s", res.Status, res.Body)
	}
	var d docRead
	if s.Must(s.Get(ann.Key, path), http.StatusOK).JSON(t, &d); d.Version != 1 {
		t.Fatalf("version %d after a refused edit, want 1", d.Version)
	}
}
