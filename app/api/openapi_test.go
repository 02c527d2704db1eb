package api_test

import (
	"bytes"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/loreweave/loreweave/app/api"
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
