package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestInputHygiene: bodies must be valid Unicode, member names are case-sensitive and
// unique, and names and labels hold no control or bidirectional formatting characters;
// encoding/json would otherwise forgive all of these quietly.
func TestInputHygiene(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	content := "/api/v1/worlds/" + w + "/documents/" + tl + "/content"
	for _, c := range []struct {
		name, path, body string
		status           int
		code, field      string
	}{
		{"invalid UTF-8", "/api/v1/worlds", "{\"name\": \"Eld\xffria\"}", 400, "malformed_json", ""},
		{"lone high surrogate", "/api/v1/worlds", `{"name": "Eld\ud800ria"}`, 400, "malformed_json", ""},
		{"lone low surrogate", "/api/v1/worlds", `{"name": "Eld\udc00ria"}`, 400, "malformed_json", ""},
		{"duplicate member", "/api/v1/worlds", `{"name": "Eldoria", "name": "Other"}`, 422, "invalid_field", "name"},
		{"member in another case", "/api/v1/worlds", `{"Name": "Eldoria"}`, 422, "invalid_field", "Name"},
		{"NUL in a name", "/api/v1/worlds", `{"name": "Eld\u0000oria"}`, 422, "invalid_field", "name"},
		{"ESC in a name", "/api/v1/worlds", `{"name": "\u001b[31mEldoria"}`, 422, "invalid_field", "name"},
		{"bidi override in a name", "/api/v1/worlds", `{"name": "Eldoria\u202egpj.exe"}`, 422, "invalid_field", "name"},
		{"control character in a genre", "/api/v1/worlds", `{"name": "Eldoria", "genre": "fan\u0007tasy"}`, 422, "invalid_field", "genre"},
		{"control character in a document name", "/api/v1/worlds/" + w + "/documents", `{"name": "Hi\u001bstory", "documentType": "card"}`, 422, "invalid_field", "name"},
		{"ESC in a label", content, `{"ops": [{"op": "timeline.addEvent", "label": "\u001b]0;pwned\u0007", "dateMs": 1}]}`, 422, "invalid_field", "label"},
		{"bidi isolate in a label", content, `{"ops": [{"op": "timeline.addEvent", "label": "a\u2066b", "dateMs": 1}]}`, 422, "invalid_field", "label"},
		{"op member in another case", content, `{"ops": [{"op": "timeline.addEvent", "Label": "x", "dateMs": 1}]}`, 422, "invalid_field", "Label"},
		{"duplicate op member", content, `{"ops": [{"op": "timeline.addEvent", "label": "x", "label": "y", "dateMs": 1}]}`, 422, "invalid_field", "label"},
		{"surrogate pair", "/api/v1/worlds", `{"name": "Eldoria \ud83d\udc09"}`, 201, "", ""},
		{"newline in a description", content, `{"ops": [{"op": "timeline.addEvent", "label": "ok", "description": "two\nlines", "dateMs": 1}]}`, 200, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := s.Do(apptest.Request{Method: http.MethodPost, Path: c.path, Key: ann.Key, Body: c.body})
			if res.Status != c.status {
				t.Fatalf("status %d, want %d: %s", res.Status, c.status, res.Body)
			}
			if c.code == "" {
				return
			}
			e, _ := res.Map(t)["error"].(map[string]any)
			if res.ErrorCode() != c.code || c.field != "" && e["field"] != c.field {
				t.Fatalf("%s", res.Body)
			}
		})
	}

	// A carriage return is named as such, though ops make line breaks line feeds first.
	res := s.Post(ann.Key, content, `{"ops": [{"op": "timeline.addEvent", "label": "a\rb", "dateMs": 1}]}`)
	if msg, _ := res.Map(t)["error"].(map[string]any)["message"].(string); res.Status != 422 || !strings.Contains(msg, "U+000D") {
		t.Errorf("carriage return in a label: %d %s", res.Status, res.Body)
	}
}

// TestErrorsCutLongValuesShort: an error repeats at most the first 64 characters of a value
// the client sent (ops.Echo), however long it is.
func TestErrorsCutLongValuesShort(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	content := "/api/v1/worlds/" + w + "/documents/" + tl + "/content"
	huge := strings.Repeat("x", 100_000)
	for name, req := range map[string]apptest.Request{
		"op name":              {Method: "POST", Path: content, Body: `{"ops":[{"op":"` + huge + `"}]}`},
		"op parameter":         {Method: "POST", Path: content, Body: `{"ops":[{"op":"timeline.addEvent","label":"a","dateMs":1,"` + huge + `":1}]}`},
		"op parameter twice":   {Method: "POST", Path: content, Body: `{"ops":[{"op":"timeline.addEvent","label":"a","dateMs":1,"` + huge + `":1,"` + huge + `":1}]}`},
		"body member":          {Method: "POST", Path: "/api/v1/worlds", Body: `{"name":"a","` + huge + `":1}`},
		"endpoint":             {Method: "GET", Path: "/api/v1/" + strings.Repeat("y", 4000)},
		"id not in a document": {Method: "POST", Path: content, Body: `{"ops":[{"op":"timeline.removeEvent","id":"` + huge + `"}]}`},
	} {
		req.Key = ann.Key
		res := s.Do(req)
		e, _ := res.Map(t)["error"].(map[string]any)
		msg, _ := e["message"].(string)
		field, _ := e["field"].(string)
		if res.Status < 400 || len(res.Body) > 1000 || !strings.Contains(msg, "…") || len(field) > 100 {
			t.Errorf("%s: %d, %d bytes: %.300s", name, res.Status, len(res.Body), res.Body)
		}
	}
}
