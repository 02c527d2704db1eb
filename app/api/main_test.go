package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/apptest"
)

// start starts a server whose every /api/v1 response is checked against the OpenAPI
// document: its status must be documented for the route and its body must match the schema.
func start(t *testing.T, opts ...apptest.Option) *apptest.Server {
	t.Helper()
	s := apptest.Start(t, opts...)
	s.OnResponse = checkResponse
	return s
}

const docURL = "https://loreweave.test/openapi.json"

var (
	specOnce     sync.Once
	specDoc      map[string]any
	specCompiler *jsonschema.Compiler
	specErr      error
	compiled     sync.Map // schema location -> *jsonschema.Schema
)

func spec(t testing.TB) (map[string]any, *jsonschema.Compiler) {
	t.Helper()
	specOnce.Do(func() {
		data, err := json.Marshal(api.OpenAPI())
		if err != nil {
			specErr = err
			return
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			specErr = err
			return
		}
		specDoc = doc.(map[string]any)
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		if err := c.AddResource(docURL, doc); err != nil {
			specErr = err
			return
		}
		specCompiler = c
	})
	if specErr != nil {
		t.Fatalf("openapi: %v", specErr)
	}
	return specDoc, specCompiler
}

var paramRE = regexp.MustCompile(`\{[^}]+\}`)

// template finds the documented path template a concrete path matches.
func template(doc map[string]any, path string) string {
	if _, ok := doc["paths"].(map[string]any)[path]; ok {
		return path // a literal path (/api/v1/worlds/import) wins over a template it also matches
	}
	for k := range doc["paths"].(map[string]any) {
		if regexp.MustCompile("^" + paramRE.ReplaceAllString(k, `[^/]+`) + "$").MatchString(path) {
			return k
		}
	}
	return ""
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func checkResponse(t testing.TB, method, path string, res *apptest.Response) {
	t.Helper()
	if !strings.HasPrefix(path, "/api/v1/") || path == "/api/v1/openapi.json" {
		return
	}
	doc, c := spec(t)
	tmpl := template(doc, path)
	if tmpl == "" {
		if res.Status != http.StatusNotFound {
			t.Errorf("openapi: %s %s is not documented but answered %d", method, path, res.Status)
		}
		return
	}
	item := doc["paths"].(map[string]any)[tmpl].(map[string]any)
	op, ok := item[strings.ToLower(method)].(map[string]any)
	if !ok {
		if res.Status != http.StatusNotFound && res.Status != http.StatusMethodNotAllowed {
			t.Errorf("openapi: %s %s is not documented but answered %d", method, tmpl, res.Status)
		}
		return
	}
	status := fmt.Sprint(res.Status)
	resp, ok := op["responses"].(map[string]any)[status].(map[string]any)
	if !ok {
		t.Errorf("openapi: %s %s answered %d, which the document does not list: %s", method, tmpl, res.Status, res.Body)
		return
	}
	content, _ := resp["content"].(map[string]any)
	if content == nil {
		if len(res.Body) != 0 {
			t.Errorf("openapi: %s %s %d should have no body, got %s", method, tmpl, res.Status, res.Body)
		}
		return
	}
	if content["application/json"] == nil { // a file: any bytes of the documented types
		return
	}
	loc := docURL + "#/paths/" + pointerEscape(tmpl) + "/" + strings.ToLower(method) + "/responses/" + status + "/content/application~1json/schema"
	var sch *jsonschema.Schema
	if v, ok := compiled.Load(loc); ok {
		sch = v.(*jsonschema.Schema)
	} else {
		var err error
		if sch, err = c.Compile(loc); err != nil {
			t.Fatalf("openapi: compile %s: %v", loc, err)
		}
		compiled.Store(loc, sch)
	}
	body, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.Body))
	if err != nil {
		t.Errorf("openapi: %s %s %d: body is not JSON: %s", method, tmpl, res.Status, res.Body)
		return
	}
	if err := sch.Validate(body); err != nil {
		t.Errorf("openapi: %s %s %d: body does not match the schema: %v\nbody: %s", method, tmpl, res.Status, err, res.Body)
	}
}
