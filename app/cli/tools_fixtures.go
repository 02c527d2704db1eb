package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/loreweave/loreweave/ops"
)

// fixture is one test case of a tool: DIR/tests/NAME.json (docs/TOOLS.md, "Test fixtures").
type fixture struct {
	Description  string            `json:"description"`
	DocumentType string            `json:"documentType"`
	Before       json.RawMessage   `json:"before"`
	Ops          []json.RawMessage `json:"ops"`
	Expect       json.RawMessage   `json:"expect"`
	ExpectError  *expectedError    `json:"expectError"`
}

// expectedError is the rejection a fixture expects; members left out are not compared.
type expectedError struct {
	Code    *string `json:"code"`
	Field   *string `json:"field"`
	OpIndex *int    `json:"opIndex"`
}

// testTool runs every DIR/tests/*.json through the engine, printing PASS or FAIL for each
// with what differs. It fails when the tool does not parse, when there is no fixture or when
// any fixture fails.
func testTool(out, errOut io.Writer, dir string) error {
	t, problems := parseToolFile(dir)
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(errOut, p)
		}
		return &problemsError{file: filepath.Join(dir, "tool.json"), n: len(problems)}
	}
	files, err := filepath.Glob(filepath.Join(dir, "tests", "*.json"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no test fixtures in %s: add NAME.json files there (docs/TOOLS.md, Test fixtures)", filepath.Join(dir, "tests"))
	}
	failed := 0
	for _, f := range files {
		description, why := runFixture(t, f)
		if description != "" {
			description = ": " + terminalSafe(description)
		}
		if why != "" {
			failed++
			fmt.Fprintf(out, "FAIL %s%s\n%s\n", f, description, indent(why))
		} else {
			fmt.Fprintf(out, "PASS %s%s\n", f, description)
		}
	}
	if failed > 0 {
		fmt.Fprintf(out, "%d of %d fixtures failed\n", failed, len(files))
		return fmt.Errorf("%s: %d of %d fixtures failed", dir, failed, len(files))
	}
	fmt.Fprintf(out, "all %d fixtures passed\n", len(files))
	return nil
}

// runFixture runs one fixture file: its description, and what went wrong ("" when it
// passed).
func runFixture(t *ops.Tool, file string) (description, why string) {
	fx, why := readFixture(file)
	if why != "" {
		return "", why
	}
	return fx.Description, applyFixture(t, fx)
}

// readFixture reads a fixture file; why says what is wrong with it.
func readFixture(file string) (fx fixture, why string) {
	data, err := os.ReadFile(file)
	if err != nil {
		return fx, err.Error()
	}
	if msg := jsonSyntax(data); msg != "" {
		return fx, msg
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fx); err != nil {
		return fx, "not a fixture: " + strings.TrimPrefix(err.Error(), "json: ") + " (members: description, documentType, before, ops, expect, expectError)"
	}
	return fx, ""
}

// applyFixture applies a fixture's ops and says how the outcome differs from the expected
// one; "" when it does not.
func applyFixture(t *ops.Tool, fx fixture) string {
	tt, msg := fixtureType(t, fx.DocumentType)
	if msg != "" {
		return msg
	}
	hasExpect := len(fx.Expect) > 0 && !bytes.Equal(bytes.TrimSpace(fx.Expect), []byte("null"))
	if hasExpect == (fx.ExpectError != nil) {
		return "a fixture has exactly one of expect (the resulting data) and expectError (the rejection)"
	}
	if len(fx.Ops) == 0 {
		return "ops: no operations to apply"
	}
	doc := tt.Empty()
	if len(fx.Before) > 0 {
		var err error
		if doc, err = tt.Decode(fx.Before); err != nil {
			return "before: not valid " + tt.Name + " data: " + errorText(err)
		}
	}
	res, err := ops.Apply(doc, ops.Request{Version: 0, Ops: fx.Ops, Env: fixtureEnv()})
	if fx.ExpectError != nil {
		return compareError(fx.ExpectError, res, err)
	}
	if err != nil {
		return "rejected: " + errorText(err)
	}
	want, err := tt.Decode(fx.Expect)
	if err != nil {
		return "expect: not valid " + tt.Name + " data: " + errorText(err)
	}
	diffs := diffJSON(res.Doc.JSON(), want.JSON())
	if len(diffs) == 0 {
		return ""
	}
	return "the data differs from expect:\n" + strings.Join(diffs, "\n")
}

// fixtureType is the type a fixture's documentType names; the tool's only type when it names
// none.
func fixtureType(t *ops.Tool, name string) (*ops.ToolType, string) {
	names := make([]string, len(t.Types))
	for i, tt := range t.Types {
		names[i] = tt.Name
	}
	if name == "" {
		if len(t.Types) == 1 {
			return t.Types[0], ""
		}
		return nil, "documentType: name the type the fixture is about: " + strings.Join(names, ", ")
	}
	tt, ok := t.Type(name)
	if !ok {
		return nil, fmt.Sprintf("documentType: the tool has no type %q; it has %s", name, orNone(names))
	}
	return tt, ""
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// fixtureEnv is the engine's world for fixtures: new ids are the prefix and 1, 2, ... counted
// per prefix (rel-1, rel-2), every linked document exists, and no other request wrote to the
// document.
func fixtureEnv() ops.Env {
	counters := map[string]int{}
	return ops.Env{
		NewID: func(prefix string) string {
			counters[prefix]++
			return strconv.Itoa(counters[prefix])
		},
		DocumentExists: func(string) bool { return true },
		History:        func(int64) ([]ops.Batch, error) { return nil, nil },
	}
}

// compareError compares a rejection with the one expected.
func compareError(want *expectedError, res ops.Result, err error) string {
	if err == nil {
		return "applied, but expected a rejection; the data became:\n" + string(res.Doc.JSON())
	}
	var oe *ops.Error
	if !errors.As(err, &oe) {
		return "failed without an operation error: " + err.Error()
	}
	var diffs []string
	if want.Code != nil && *want.Code != oe.Code {
		diffs = append(diffs, fmt.Sprintf("code: got %q, want %q", oe.Code, *want.Code))
	}
	if want.Field != nil && *want.Field != oe.Field {
		diffs = append(diffs, fmt.Sprintf("field: got %q, want %q", oe.Field, *want.Field))
	}
	if want.OpIndex != nil && *want.OpIndex != oe.OpIndex {
		diffs = append(diffs, fmt.Sprintf("opIndex: got %d, want %d", oe.OpIndex, *want.OpIndex))
	}
	if len(diffs) == 0 {
		return ""
	}
	return "rejected otherwise than expected (" + errorText(err) + "):\n" + strings.Join(diffs, "\n")
}

// errorText is an engine error as a person reads it.
func errorText(err error) string {
	var oe *ops.Error
	if !errors.As(err, &oe) {
		return err.Error()
	}
	s := fmt.Sprintf("%s at op %d", oe.Code, oe.OpIndex)
	if oe.Field != "" {
		s += ", field " + oe.Field
	}
	return s + ": " + oe.Message
}

// indent indents each line of s, each made safe for the terminal.
func indent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "    " + terminalSafe(l)
	}
	return strings.Join(lines, "\n")
}

// maxDiffs bounds the differences listed for one fixture.
const maxDiffs = 20

// diffJSON lists where two JSON values differ, each as "/pointer: got X, want Y".
func diffJSON(got, want []byte) []string {
	var g, w any
	if err := decodeNumbers(got, &g); err != nil {
		return []string{"the engine's data is not JSON: " + err.Error()}
	}
	if err := decodeNumbers(want, &w); err != nil {
		return []string{"expect is not JSON: " + err.Error()}
	}
	var out []string
	diffValues("", g, w, &out)
	if len(out) > maxDiffs {
		out = append(out[:maxDiffs], fmt.Sprintf("... and %d more", len(out)-maxDiffs))
	}
	return out
}

func decodeNumbers(data []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

func diffValues(ptr string, got, want any, out *[]string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := ptr + "/" + escapePointer(k)
			gv, gok := g[k]
			wv, wok := w[k]
			switch {
			case !gok:
				*out = append(*out, fmt.Sprintf("%s: missing, want %s", p, show(wv)))
			case !wok:
				*out = append(*out, fmt.Sprintf("%s: got %s, not expected", p, show(gv)))
			default:
				diffValues(p, gv, wv, out)
			}
		}
		return
	case []any:
		g, ok := got.([]any)
		if !ok {
			break
		}
		if len(g) != len(w) {
			*out = append(*out, fmt.Sprintf("%s: got %d items, want %d: got %s, want %s", orRoot(ptr), len(g), len(w), show(g), show(w)))
			return
		}
		for i := range w {
			diffValues(ptr+"/"+strconv.Itoa(i), g[i], w[i], out)
		}
		return
	case json.Number:
		if g, ok := got.(json.Number); ok && sameNumber(g, w) {
			return
		}
	default:
		if reflect.DeepEqual(got, want) {
			return
		}
	}
	*out = append(*out, fmt.Sprintf("%s: got %s, want %s", orRoot(ptr), show(got), show(want)))
}

func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	x, err1 := a.Float64()
	y, err2 := b.Float64()
	return err1 == nil && err2 == nil && x == y
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "(the whole data)"
	}
	return ptr
}

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// show writes a value as compact JSON, cut short when long.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
