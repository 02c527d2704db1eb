package examples_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/spf13/cobra"

	"github.com/loreweave/loreweave/app/cli"
	"github.com/loreweave/loreweave/examples"
	"github.com/loreweave/loreweave/ops"
)

// toolSchema compiles the manifest's published JSON Schema.
func toolSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("../static/schemas/tool.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("tool.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("tool.schema.json")
	if err != nil {
		t.Fatalf("the manifest's schema does not compile: %v", err)
	}
	return s
}

func validates(s *jsonschema.Schema, manifest string) error {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(manifest))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// Every example tool passes `tools validate` and `tools test` (its fixtures through the
// engine) and the manifest's published schema; so does the manifest of docs/TOOLS.md.
func TestExampleTools(t *testing.T) {
	schema := toolSchema(t)
	entries, err := fs.ReadDir(examples.Tools, "tools")
	if err != nil || len(entries) < 2 {
		t.Fatalf("examples: %v %v", entries, err)
	}
	for _, e := range entries {
		dir := filepath.Join("tools", e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			manifest, err := os.ReadFile(filepath.Join(dir, "tool.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := validates(schema, string(manifest)); err != nil {
				t.Errorf("the published schema refuses %s/tool.json: %v", dir, err)
			}
			for _, cmd := range []string{"validate", "test"} {
				root := &cobra.Command{Use: "loreweave", SilenceErrors: true}
				cli.Register(root, nil)
				var out bytes.Buffer
				root.SetOut(&out)
				root.SetErr(&out)
				root.SetArgs([]string{"tools", cmd, dir})
				if err := root.Execute(); err != nil {
					t.Errorf("tools %s %s: %v\n%s", cmd, dir, err, out.String())
				}
			}
		})
	}

	doc, err := os.ReadFile("../docs/TOOLS.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## The manifest\n\n```json\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/TOOLS.md has no manifest example")
	}
	if err := validates(schema, string(m[1])); err != nil {
		t.Errorf("the published schema refuses the manifest of docs/TOOLS.md: %v", err)
	}
	if _, err := ops.ParseTool(m[1]); err != nil {
		t.Errorf("the engine refuses the manifest of docs/TOOLS.md: %v", err)
	}
}

// The published schema refuses what the engine refuses, so an editor checking a tool.json
// against it flags the mistakes `tools validate` would.
func TestToolSchemaRefusesBadManifests(t *testing.T) {
	schema := toolSchema(t)
	const good = `{"name": "spells", "version": "1.0.0", "documentTypes": [{"name": "spell",
		"schema": {"type": "object", "properties": {"level": {"type": "integer", "minimum": 1, "maximum": 9}}},
		"ops": [{"name": "setLevel", "kind": "set", "path": "level"}]}]}`
	if err := validates(schema, good); err != nil {
		t.Fatalf("the schema refuses a good manifest: %v", err)
	}
	for _, m := range []string{good, strings.Replace(good, `"1.0.0"`, `"1.0.0-beta.1"`, 1)} {
		if err := validates(schema, m); err != nil {
			t.Errorf("the schema refuses a good manifest: %v\n%s", err, m)
		}
		if _, err := ops.ParseTool([]byte(m)); err != nil {
			t.Errorf("the engine refuses a good manifest: %v\n%s", err, m)
		}
	}
	for _, tc := range []struct{ name, from, to string }{
		{"a tool name with capitals", `"name": "spells"`, `"name": "Spells"`},
		{"a one-letter tool name", `"name": "spells"`, `"name": "s"`},
		{"a version that is not MAJOR.MINOR.PATCH", `"1.0.0"`, `"1.0"`},
		{"no version", `"version": "1.0.0", `, ``},
		{"a built-in type name", `"name": "spell"`, `"name": "card"`},
		{"a type name with a dash", `"name": "spell"`, `"name": "spell-book"`},
		{"an unknown op kind", `"kind": "set"`, `"kind": "replace"`},
		{"an op name with a dash", `"name": "setLevel"`, `"name": "set-level"`},
		{"a property name starting with a digit", `"level": {`, `"1level": {`},
		{"an idPrefix on a set", `"kind": "set"`, `"kind": "set", "idPrefix": "lvl"`},
		{"a schema keyword outside the subset", `"maximum": 9`, `"maximum": 9, "multipleOf": 1`},
		{"a union type", `"type": "integer"`, `"type": ["integer", "string"]`},
		{"open objects", `"type": "object", "properties"`, `"type": "object", "additionalProperties": true, "properties"`},
		{"an unknown format", `"type": "integer", "minimum": 1, "maximum": 9`, `"type": "string", "format": "phone"`},
		{"a reserved property name", `"level": {`, `"index": {`},
		{"a root that is not an object", `"schema": {"type": "object", "properties": {"level": {"type": "integer", "minimum": 1, "maximum": 9}}}`, `"schema": {"type": "string"}`},
		{"no ops", `"ops": [{"name": "setLevel", "kind": "set", "path": "level"}]`, `"ops": []`},
		{"an unknown member", `"version": "1.0.0"`, `"version": "1.0.0", "author": "me"`},
	} {
		bad := strings.Replace(good, tc.from, tc.to, 1)
		if bad == good {
			t.Fatalf("%s: the replacement did not apply", tc.name)
		}
		if err := validates(schema, bad); err == nil {
			t.Errorf("the schema accepts %s", tc.name)
		}
		if _, err := ops.ParseTool([]byte(bad)); err == nil {
			t.Errorf("the engine accepts %s", tc.name)
		}
	}
	if err := validates(schema, `{"name": "spells", "version": "1.0.0", "documentTypes": [], "appKinds": []}`); err == nil {
		t.Errorf("the schema accepts a tool with no type and no app kind")
	}
	const board = `{"name": "quests", "version": "1.0.0", "appKinds": [{"name": "quest-board", "view": {"type": "board", "documentType": "quest"}}]}`
	if err := validates(schema, board); err == nil {
		t.Errorf("the schema accepts a board without groupBy")
	}
	if err := validates(schema, strings.Replace(board, `"quest-board"`, `"wiki"`, 1)); err == nil {
		t.Errorf("the schema accepts an app kind named wiki")
	}
}
