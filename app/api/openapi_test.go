package api_test

import (
	"bytes"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/apptest"
)

// TestOpenAPIIsValid validates the served document against the official OpenAPI 3.1 schema.
func TestOpenAPIIsValid(t *testing.T) {
	s := start(t)
	res := s.Must(s.Get("", "/api/v1/openapi.json"), http.StatusOK)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.Body))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	for url, file := range map[string]string{
		"https://spec.openapis.org/oas/3.1/schema/2021-04-15":      "schema.json",
		"https://spec.openapis.org/oas/3.1/schema-base/2021-04-15": "schema-base.json",
		"https://spec.openapis.org/oas/3.1/dialect/base":           "dialect-base.json",
		"https://spec.openapis.org/oas/3.1/meta/base":              "meta-base.json",
	} {
		f, err := os.Open("testdata/oas3.1/" + file)
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(url, v); err != nil {
			t.Fatal(err)
		}
	}
	sch, err := c.Compile("https://spec.openapis.org/oas/3.1/schema-base/2021-04-15")
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("openapi.json is not valid OpenAPI 3.1: %v", err)
	}
	// Every schema in the document compiles (a broken $ref fails here).
	_, comp := spec(t)
	for name := range doc.(map[string]any)["components"].(map[string]any)["schemas"].(map[string]any) {
		if _, err := comp.Compile(docURL + "#/components/schemas/" + name); err != nil {
			t.Errorf("schema %s: %v", name, err)
		}
	}
}

// TestOpenAPICoversEveryRoute checks that the route table and the document list the same
// routes, so neither can drift.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	doc, _ := spec(t)
	paths := doc["paths"].(map[string]any)
	registered := map[string]bool{}
	for _, r := range api.Routes {
		key := r.Method + " " + r.Path
		registered[key] = true
		item, ok := paths[r.Path].(map[string]any)
		if !ok || item[strings.ToLower(r.Method)] == nil {
			t.Errorf("route %s is not in the OpenAPI document", key)
		}
	}
	for path, item := range paths {
		for method := range item.(map[string]any) {
			if method == "parameters" {
				continue
			}
			key := strings.ToUpper(method) + " " + path
			if !registered[key] {
				t.Errorf("the OpenAPI document lists %s, which is not a route", key)
			}
		}
	}
}

// TestOpenAPISearchRequiresQ checks that the document marks q required, as the search
// handler does.
func TestOpenAPISearchRequiresQ(t *testing.T) {
	doc, _ := spec(t)
	get := doc["paths"].(map[string]any)["/api/v1/worlds/{worldId}/search"].(map[string]any)["get"].(map[string]any)
	var q map[string]any
	for _, p := range get["parameters"].([]any) {
		if p := p.(map[string]any); p["name"] == "q" && p["in"] == "query" {
			q = p
		}
	}
	if q == nil || q["required"] != true {
		t.Fatalf("search's q parameter is not required: %v", q)
	}
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	if res := s.Get(ann.Key, "/api/v1/worlds/"+w+"/search"); res.Status != http.StatusUnprocessableEntity || res.Map(t)["error"].(map[string]any)["field"] != "q" {
		t.Fatalf("search without q: %d %s", res.Status, res.Body)
	}
}

// TestWorldEventsMatchSchema checks the data of every kind of world stream event against
// the schema the world events route points to.
func TestWorldEventsMatchSchema(t *testing.T) {
	_, c := spec(t)
	loc := docURL + "#/paths/" + pointerEscape("/api/v1/worlds/{worldId}/events") + "/get/responses/200/content/text~1event-stream/x-event-data"
	sch, err := c.Compile(loc)
	if err != nil {
		t.Fatalf("the world events stream names no schema for its event data: %v", err)
	}
	kinds, err := c.Compile(docURL + "#/components/schemas/WorldEvent/properties/kind")
	if err != nil {
		t.Fatal(err)
	}

	s := start(t)
	ann, bob := s.NewUser("Ann"), s.NewUser("Bob")
	w := s.World(ann, "Eldoria")
	base := "/api/v1/worlds/" + w
	st := s.Stream(ann.Key, base+"/events")
	st.Expect(t, "ready")
	folder := s.Document(ann, w, "People", "folder")
	card := s.Document(ann, w, "Aerendyl", "card")
	s.Must(s.Do(apptest.Request{Method: http.MethodPatch, Path: base + "/documents/" + card, Key: ann.Key, Body: map[string]any{"name": "Aerendyl the Drowned", "parentId": folder}}), http.StatusOK)
	var era struct{ ID string }
	s.Must(s.Post(ann.Key, base+"/eras", map[string]any{"name": "Second Age"}), http.StatusCreated).JSON(t, &era)
	s.Must(s.Do(del(ann.Key, base+"/documents/"+card+"?era="+era.ID)), http.StatusNoContent)
	s.Must(s.Do(del(ann.Key, base+"/documents/"+card)), http.StatusNoContent)
	s.Must(s.Post(ann.Key, base+"/projects", map[string]any{"name": "Wiki", "kind": "wiki"}), http.StatusCreated)
	s.AddMember(ann, w, bob, "editor")
	s.Must(s.Do(patch(ann.Key, base+"/members/"+bob.ID, map[string]any{"role": "viewer"})), http.StatusOK)
	s.Must(s.Do(del(ann.Key, base+"/members/"+bob.ID)), http.StatusNoContent)

	seen := map[string]bool{}
	for range 11 {
		ev := st.Expect(t, "")
		data, err := jsonschema.UnmarshalJSON(strings.NewReader(ev.Data))
		if err != nil {
			t.Fatalf("%s event: data is not JSON: %s", ev.Event, ev.Data)
		}
		if err := sch.Validate(data); err != nil {
			t.Errorf("%s event does not match the schema: %v\ndata: %s", ev.Event, err, ev.Data)
		}
		seen[ev.Event] = true
	}
	for kind := range seen {
		if err := kinds.Validate(kind); err != nil {
			t.Errorf("kind %s is not in the schema: %v", kind, err)
		}
	}
	if len(seen) != 9 {
		t.Errorf("saw %d kinds of event, want all 9: %v", len(seen), seen)
	}
}
