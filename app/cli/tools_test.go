package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"

	"github.com/loreweave/loreweave/app/cli"
)

// run runs one command line as `loreweave ARGS...` would, on app (nil for the commands that
// need no data directory), and returns what it wrote and its error.
func run(t *testing.T, app core.App, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	root := &cobra.Command{Use: "loreweave", SilenceErrors: true}
	cli.Register(root, app)
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err = root.Execute()
	return out.String(), errOut.String(), err
}

// mustRun runs a command line that must succeed.
func mustRun(t *testing.T, app core.App, args ...string) string {
	t.Helper()
	out, errOut, err := run(t, app, args...)
	if err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// `tools init` writes a tool that validates and whose fixtures pass; a fixture broken
// afterwards fails `tools test`, named with its file and what differs.
func TestToolsInitValidateTest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my-factions")
	out := mustRun(t, nil, "tools", "init", dir)
	if !strings.Contains(out, filepath.Join(dir, "tool.json")) {
		t.Fatalf("init said %q", out)
	}
	if out := mustRun(t, nil, "tools", "validate", dir); !strings.Contains(out, "factions 1.0.0 is valid") {
		t.Fatalf("validate said %q", out)
	}
	out = mustRun(t, nil, "tools", "test", dir)
	if strings.Contains(out, "FAIL") || !strings.Contains(out, "PASS "+filepath.Join(dir, "tests", "relations.json")) {
		t.Fatalf("test said %q", out)
	}

	// init refuses a directory that holds anything.
	if _, _, err := run(t, nil, "tools", "init", dir); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("init into a non-empty directory: %v", err)
	}
	if _, _, err := run(t, nil, "tools", "init", filepath.Join(t.TempDir(), "x"), "--example", "spells"); err == nil || !strings.Contains(err.Error(), "factions") {
		t.Fatalf("init of an unknown example: %v", err)
	}

	// A fixture expecting the wrong data fails, naming its file and the pointer that differs.
	goals := filepath.Join(dir, "tests", "goals.json")
	data, err := os.ReadFile(goals)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(data), `harbour tolls", "achieved": true}`, `harbour tolls", "achieved": false}`, 1)
	if broken == string(data) {
		t.Fatal("the goals fixture changed: update this test")
	}
	if err := os.WriteFile(goals, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = run(t, nil, "tools", "test", dir)
	if err == nil || !strings.Contains(out, "FAIL "+goals) || !strings.Contains(out, "/goals/1/achieved: got true, want false") ||
		!strings.Contains(out, "PASS "+filepath.Join(dir, "tests", "sheet.json")) || !strings.Contains(out, "1 of ") {
		t.Fatalf("test with a broken fixture: %v\n%s", err, out)
	}

	// A fixture that is not JSON is named by validate and by test, with where it breaks.
	if err := os.WriteFile(goals, []byte("{\n  \"ops\": [,]\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, err := run(t, nil, "tools", "validate", dir)
	if err == nil || !strings.Contains(errOut, goals+": not valid JSON: line 2, column 11") {
		t.Fatalf("validate with a fixture that is not JSON: %v\n%s", err, errOut)
	}
	out, _, err = run(t, nil, "tools", "test", dir)
	if err == nil || !strings.Contains(out, "FAIL "+goals) || !strings.Contains(out, "not valid JSON") {
		t.Fatalf("test with a fixture that is not JSON: %v\n%s", err, out)
	}

	// A rejection expected otherwise than it happens fails too.
	if err := os.WriteFile(goals, []byte(`{"ops": [{"op": "faction.setMotto", "motto": "x"}], "expectError": {"code": "invalid_field"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = run(t, nil, "tools", "test", dir)
	if err == nil || !strings.Contains(out, "applied, but expected a rejection") {
		t.Fatalf("test expecting a rejection that does not come: %v\n%s", err, out)
	}
}

// validate prints every problem of a manifest as FILE: /pointer: message, and fails.
func TestToolsValidateNamesPointers(t *testing.T) {
	dir := t.TempDir()
	manifest := `{
  "name": "Bad Name",
  "version": "1",
  "documentTypes": [{
    "name": "spell",
    "schema": {"type": "object", "properties": {"level": {"type": "integer", "minimum": 1, "maximum": 9}}},
    "ops": [{"name": "setLevel", "kind": "set", "path": "power"}]
  }]
}`
	if err := os.WriteFile(filepath.Join(dir, "tool.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "tool.json")
	_, errOut, err := run(t, nil, "tools", "validate", dir)
	if err == nil {
		t.Fatalf("validate accepted a bad manifest:\n%s", errOut)
	}
	for _, want := range []string{file + ": /name: ", file + ": /version: ", file + ": /documentTypes/0/ops/0/path: "} {
		if !strings.Contains(errOut, want) {
			t.Errorf("validate did not report %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(err.Error(), "problems") {
		t.Errorf("validate's error %q", err)
	}

	// A manifest that is not JSON is named with the line and column.
	if err := os.WriteFile(file, []byte("{\n  \"name\": \"spells\",\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := run(t, nil, "tools", "validate", dir); err == nil || !strings.Contains(errOut, file+": not valid JSON: line 3") {
		t.Fatalf("validate of a manifest that is not JSON: %v\n%s", err, errOut)
	}
	// A directory without a manifest says so.
	if _, errOut, err := run(t, nil, "tools", "validate", t.TempDir()); err == nil || !strings.Contains(errOut, "tool.json: not found") {
		t.Fatalf("validate of an empty directory: %v\n%s", err, errOut)
	}
	// test refuses the broken manifest before running anything.
	if out, _, err := run(t, nil, "tools", "test", dir); err == nil || strings.Contains(out, "PASS") {
		t.Fatalf("test of a bad manifest: %v\n%s", err, out)
	}
}
