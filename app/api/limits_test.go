package api_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestBadInput sends every kind of bad request to every route that takes a body and checks
// the status, the code, and that nothing changed.
func TestBadInput(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	content := "/api/v1/worlds/" + w + "/documents/" + tl + "/content"

	deep := strings.Repeat("[", 40) + strings.Repeat("]", 40)
	bigOps := make([]any, 501)
	for i := range bigOps {
		bigOps[i] = map[string]any{"op": "timeline.addEvent", "label": "x", "dateMs": i}
	}
	long := strings.Repeat("é", 201)

	bodyRoutes := map[string]string{
		"worlds":    "/api/v1/worlds",
		"documents": "/api/v1/worlds/" + w + "/documents",
		"content":   content,
		"eras":      "/api/v1/worlds/" + w + "/eras",
		"projects":  "/api/v1/worlds/" + w + "/projects",
		"members":   "/api/v1/worlds/" + w + "/members",
	}
	type bad struct {
		name   string
		body   any
		header map[string]string
		status int
		code   string
	}
	generic := []bad{
		{"not json content type", `{"name":"x"}`, map[string]string{"Content-Type": "text/plain"}, 415, "unsupported_media_type"},
		{"form content type", "name=x", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"},
		{"malformed json", `{"name": "x"`, nil, 400, "malformed_json"},
		{"trailing garbage", `{"name": "x"} x`, nil, 400, "malformed_json"},
		{"empty body", ``, nil, 400, "malformed_json"},
		{"too large", `{"name": "` + strings.Repeat("a", 1<<20) + `"}`, nil, 413, "body_too_large"},
		{"too deep", `{"name": ` + deep + `}`, nil, 422, "nesting_too_deep"},
		{"deeper than Go's parser goes", `{"name": ` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, nil, 422, "nesting_too_deep"},
		{"not an object", `["x"]`, nil, 422, "invalid_field"},
		{"unknown field", `{"nmae": "x"}`, nil, 422, "invalid_field"},
	}
	before := counts(s)
	for route, path := range bodyRoutes {
		for _, b := range generic {
			t.Run(route+"/"+b.name, func(t *testing.T) {
				h := http.Header{}
				for k, v := range b.header {
					h.Set(k, v)
				}
				res := s.Do(apptest.Request{Method: "POST", Path: path, Key: ann.Key, Body: b.body, Header: h})
				if res.Status != b.status || res.ErrorCode() != b.code {
					t.Fatalf("got %d %s", res.Status, res.Body)
				}
			})
		}
	}

	specific := []struct {
		name, path string
		body       any
		status     int
		code       string
		field      string
	}{
		{"world name missing", bodyRoutes["worlds"], map[string]any{"genre": "x"}, 422, "invalid_field", "name"},
		{"world name blank", bodyRoutes["worlds"], map[string]any{"name": "   "}, 422, "invalid_field", "name"},
		{"world name too long", bodyRoutes["worlds"], map[string]any{"name": long}, 422, "invalid_field", "name"},
		{"world name wrong type", bodyRoutes["worlds"], map[string]any{"name": 5}, 422, "invalid_field", "name"},
		{"genre too long", bodyRoutes["worlds"], map[string]any{"name": "x", "genre": long}, 422, "invalid_field", "genre"},
		{"document name too long", bodyRoutes["documents"], map[string]any{"name": long, "documentType": "card"}, 422, "invalid_field", "name"},
		{"document type wrong type", bodyRoutes["documents"], map[string]any{"name": "x", "documentType": []any{"card"}}, 422, "invalid_field", "documentType"},
		{"era name too long", bodyRoutes["eras"], map[string]any{"name": long}, 422, "invalid_field", "name"},
		{"era parent unknown", bodyRoutes["eras"], map[string]any{"name": "x", "parentId": "nosuchera000000"}, 422, "invalid_field", "parentId"},
		{"project name too long", bodyRoutes["projects"], map[string]any{"name": long, "kind": "wiki"}, 422, "invalid_field", "name"},
		{"project kind unknown", bodyRoutes["projects"], map[string]any{"name": "x", "kind": "spreadsheet"}, 422, "unknown_project_kind", "kind"},
		{"member role unknown", bodyRoutes["members"], map[string]any{"email": "x@example.test", "role": "emperor"}, 422, "invalid_field", "role"},
		{"too many ops", content, map[string]any{"ops": bigOps}, 413, "too_many_ops", ""},
	}
	for _, tc := range specific {
		t.Run(tc.name, func(t *testing.T) {
			res := s.Post(ann.Key, tc.path, tc.body)
			if res.Status != tc.status || res.ErrorCode() != tc.code {
				t.Fatalf("got %d %s", res.Status, res.Body)
			}
			if tc.field != "" {
				if f := res.Map(t)["error"].(map[string]any)["field"]; f != tc.field {
					t.Fatalf("field = %v, want %s", f, tc.field)
				}
			}
		})
	}
	// An integer member given a number with a fraction or an exponent is told so.
	for _, n := range []string{"1.0", "1e0", "1.5"} {
		res := s.Post(ann.Key, content, `{"ops":[{"op":"timeline.addEvent","label":"x","dateMs":1}],"clientId":"tab","clientSeq":`+n+`}`)
		if res.Status != 422 || res.ErrorCode() != "invalid_field" || !strings.Contains(string(res.Body), `\"clientSeq\" must be an integer written without a fraction or an exponent`) {
			t.Fatalf("clientSeq %s: %d %s", n, res.Status, res.Body)
		}
	}
	if after := counts(s); after != before {
		t.Fatalf("bad requests changed the database: %v -> %v", before, after)
	}

	// Exactly 500 ops is accepted.
	s.Must(s.Post(ann.Key, content, map[string]any{"ops": bigOps[:500]}), http.StatusOK)
}

// TestBodyWithoutLength sends bodies without a Content-Length (chunked), which the server
// reads to their end (or its limit) instead of into a buffer of the announced length.
func TestBodyWithoutLength(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	content := s.URL + "/api/v1/worlds/" + w + "/documents/" + tl + "/content"
	send := func(body io.Reader, length int64) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, content, body)
		req.ContentLength = length
		req.Header.Set("Authorization", "Bearer "+ann.Key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	// A reader that is not a *strings.Reader has no known length: the client sends it chunked.
	chunked := func(s string) io.Reader { return io.MultiReader(strings.NewReader(s)) }
	if status, body := send(chunked(`{"ops":[{"op":"timeline.addEvent","label":"Chunked","dateMs":1}]}`), -1); status != http.StatusOK {
		t.Fatalf("chunked write: %d %s", status, body)
	}
	big := `{"ops":[{"op":"timeline.addEvent","label":"` + strings.Repeat("a", 1<<20) + `","dateMs":1}]}`
	if status, body := send(chunked(big), -1); status != http.StatusRequestEntityTooLarge || !strings.Contains(body, "body_too_large") {
		t.Fatalf("chunked body over the limit: %d %s", status, body)
	}
	// A body past PocketBase's own limit (32 MiB) is the API's 413 too, in its error shape.
	huge := strings.NewReader(`{"ops":[{"op":"timeline.addEvent","label":"` + strings.Repeat("a", 40<<20) + `","dateMs":1}]}`)
	if status, body := send(huge, huge.Size()); status != http.StatusRequestEntityTooLarge || !strings.Contains(body, `"code":"body_too_large"`) {
		t.Fatalf("40 MiB body: %d %.300s", status, body)
	}
	events := s.Get(ann.Key, "/api/v1/worlds/"+w+"/documents/"+tl).Map(t)["content"].(map[string]any)["data"].(map[string]any)["events"].([]any)
	if len(events) != 1 || events[0].(map[string]any)["label"] != "Chunked" {
		t.Fatalf("events = %v", events)
	}
}

func TestUnknownThingsAreNotFound(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	for _, p := range []string{
		"/api/v1/worlds/nosuchworld0000",
		"/api/v1/worlds/nosuchworld0000/documents",
		"/api/v1/worlds/" + w + "/documents/nosuchdoc000000",
		"/api/v1/worlds/" + w + "/documents/" + tl + "?era=nosuchera000000",
		"/api/v1/worlds/" + w + "/documents?era=nosuchera000000",
		"/api/v1/nothing-here",
	} {
		if res := s.Get(ann.Key, p); res.Status != http.StatusNotFound || res.ErrorCode() != "not_found" {
			t.Errorf("GET %s: %d %s", p, res.Status, res.Body)
		}
	}
	res := s.Post(ann.Key, "/api/v1/worlds/"+w+"/documents/nosuchdoc000000/content", ops(map[string]any{"op": "timeline.addEvent", "label": "x", "dateMs": 1}))
	if res.Status != http.StatusNotFound {
		t.Fatalf("content on unknown doc: %d", res.Status)
	}
	// A path with an empty segment (a script's unset variable) or a dot segment is not
	// redirected to another endpoint ("/worlds//export" to "/worlds/export"): it is not
	// found, in the API's shape, with the headers of the API's other answers.
	noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(p string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodGet, s.URL+p, nil)
		req.Header.Set("Authorization", "Bearer "+ann.Key)
		req.Header.Set("Origin", "https://elsewhere.example")
		res, err := noRedirects.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res, string(body)
	}
	plain, _ := get("/api/v1/nosuchendpoint")
	for _, p := range []string{"/api/v1/worlds//export", "/api/v1/worlds/" + w + "//documents", "/api/v1//worlds", "/api/v1/./worlds", "/api/v1/worlds/../worlds", "/api/v1/worlds/" + w + "/documents/.."} {
		res, body := get(p)
		if res.StatusCode != http.StatusNotFound || !strings.Contains(body, `"code":"not_found"`) || !strings.Contains(body, "path segment") {
			t.Errorf("GET %s: %d %s", p, res.StatusCode, body)
		}
		for _, h := range []string{"Access-Control-Allow-Origin", "Vary", "X-Content-Type-Options", "X-Frame-Options", "X-Xss-Protection", "Content-Type", "Cache-Control"} {
			if got, want := res.Header.Values(h), plain.Header.Values(h); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("GET %s: %s: %q, another API 404 has %q", p, h, got, want)
			}
		}
	}
}

// counts snapshots the rows of every Loreweave table.
func counts(s *apptest.Server) string {
	var parts []string
	for _, table := range []string{"worlds", "world_members", "documents", "document_states", "document_ops", "eras", "projects", "outbox"} {
		parts = append(parts, fmt.Sprintf("%s=%d", table, s.Count(table, "")))
	}
	return strings.Join(parts, " ")
}

// Pages too far out for a 64-bit offset are empty lists, not page 1 again; search pages stop
// at search.MaxDepth results with a 422 (not a 500 from an overflowing offset).
func TestFarPages(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	s.Document(ann, w, "History", "timeline")
	for _, path := range []string{"/api/v1/worlds", "/api/v1/worlds/" + w + "/documents", "/api/v1/worlds/" + w + "/members"} {
		for _, q := range []string{"?page=9223372036854775807&perPage=2", "?page=184467440737095517&perPage=100", "?page=1000000"} {
			var l struct {
				Items      []any
				Page       int
				TotalItems int
			}
			s.Must(s.Get(ann.Key, path+q), http.StatusOK).JSON(t, &l)
			if len(l.Items) != 0 || l.TotalItems == 0 {
				t.Errorf("%s%s: %d items of %d, want none", path, q, len(l.Items), l.TotalItems)
			}
		}
	}
	search := "/api/v1/worlds/" + w + "/search?q=history"
	for _, q := range []string{"&page=9223372036854775807", "&page=184467440737095517&perPage=100", "&page=201", "&page=101&perPage=100"} {
		if res := s.Get(ann.Key, search+q); res.Status != 422 || res.ErrorCode() != "invalid_field" {
			t.Errorf("search%s: %d %s, want 422 invalid_field", q, res.Status, res.Body)
		}
	}
	s.Must(s.Get(ann.Key, search+"&page=200"), http.StatusOK)
	s.Must(s.Get(ann.Key, search+"&page=100&perPage=100"), http.StatusOK)
}
