package web_test

import (
	"net/http"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// The tool manifest's JSON Schema is published at /schemas/tool.schema.json (docs/TOOLS.md),
// so editors can check a tool.json as it is written; other names are not found.
func TestToolManifestSchemaIsServed(t *testing.T) {
	s := apptest.Start(t)
	res := s.Must(s.Do(apptest.Request{Method: "GET", Path: "/schemas/tool.schema.json"}), http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "application/schema+json" {
		t.Fatalf("Content-Type %q", ct)
	}
	var schema struct {
		Schema string         `json:"$schema"`
		Defs   map[string]any `json:"$defs"`
	}
	res.JSON(t, &schema)
	if schema.Schema != "https://json-schema.org/draft/2020-12/schema" || schema.Defs["documentType"] == nil {
		t.Fatalf("schema %s", res.Body)
	}
	for _, path := range []string{"/schemas/nothing.schema.json", "/schemas/..%2Fapp.css", "/schemas/"} {
		if got := s.Do(apptest.Request{Method: "GET", Path: path}); got.Status != http.StatusNotFound {
			t.Fatalf("%s: %d %s", path, got.Status, got.Body)
		}
	}
}
