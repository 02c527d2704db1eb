package ops

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// seqIDs returns an Env.NewID that numbers the ids of each prefix: evt-1, evt-2, ...
func seqIDs() func(prefix string) string {
	n := map[string]int{}
	return func(prefix string) string {
		n[prefix]++
		return fmt.Sprint(n[prefix])
	}
}

func raws(ops []string) []json.RawMessage {
	out := make([]json.RawMessage, len(ops))
	for i, op := range ops {
		out[i] = json.RawMessage(op)
	}
	return out
}

// opCase is one batch applied to one document, and what must come of it.
type opCase struct {
	name    string
	data    string // starting data; "" is the empty document
	version int64
	env     Env // NewID defaults to seqIDs
	ops     []string
	// When the batch applies:
	want    string    // the data after
	applied []string  // the ops as applied, if checked
	created []Created // the created items, if checked
	// When it is rejected:
	code    string
	field   string
	opIndex int
}

func runCases(t *testing.T, docType string, cases []opCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Decode(docType, []byte(tc.data))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			before := doc.JSON()
			env := tc.env
			if env.NewID == nil {
				env.NewID = seqIDs()
			}
			res, err := Apply(doc, Request{Version: tc.version, Ops: raws(tc.ops), Env: env})
			if !bytes.Equal(doc.JSON(), before) {
				t.Fatalf("the input document changed:\n%s\n%s", before, doc.JSON())
			}
			if tc.code != "" {
				e, ok := err.(*Error)
				if !ok {
					t.Fatalf("err = %v, want *Error %s", err, tc.code)
				}
				if e.Code != tc.code || e.Field != tc.field || e.OpIndex != tc.opIndex {
					t.Fatalf("got %s on %q at op %d (%s), want %s on %q at op %d", e.Code, e.Field, e.OpIndex, e.Message, tc.code, tc.field, tc.opIndex)
				}
				if e.Message == "" {
					t.Fatal("empty message")
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			jsonEqual(t, "data", res.Doc.JSON(), tc.want)
			if tc.applied != nil {
				if len(res.Applied) != len(tc.applied) {
					t.Fatalf("applied %d ops, want %d", len(res.Applied), len(tc.applied))
				}
				for i, a := range tc.applied {
					jsonEqual(t, fmt.Sprintf("applied[%d]", i), res.Applied[i], a)
				}
			}
			if tc.created != nil && !reflect.DeepEqual(res.Created, tc.created) {
				t.Fatalf("created = %v, want %v", res.Created, tc.created)
			}
		})
	}
}

// jsonEqual compares JSON values, whatever their layout.
func jsonEqual(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v in %s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad expectation %v in %s", what, err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s =\n%s\nwant\n%s", what, got, want)
	}
}

func TestTypes(t *testing.T) {
	want := []string{"animator", "card", "folder", "map", "timeline"}
	if got := Types(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Types() = %v", got)
	}
	for _, typ := range want {
		if !IsBuiltin(typ) || len(Supported(typ)) == 0 {
			t.Errorf("%s: builtin %v, supported %v", typ, IsBuiltin(typ), Supported(typ))
		}
	}
	if IsBuiltin("gallery") || len(Supported("gallery")) != 0 {
		t.Error("gallery is not a built-in type")
	}
}

func TestEmptyAndDecode(t *testing.T) {
	empties := map[string]string{
		"timeline": `{"events":[]}`,
		"animator": `{"model":{"url":"","name":""},"clips":[],"activeClipId":""}`,
		"card":     `{"name":"","aliases":[],"properties":[],"sections":[]}`,
		"map":      `{"image":{"url":"","width":0,"height":0},"pins":[]}`,
		"folder":   `{"description":""}`,
		"gallery":  `{}`,
	}
	for typ, want := range empties {
		if got := string(Empty(typ).JSON()); got != want {
			t.Errorf("Empty(%s) = %s, want %s", typ, got, want)
		}
		for _, data := range []string{"", "null", " \n"} {
			d, err := Decode(typ, []byte(data))
			if err != nil || string(d.JSON()) != want {
				t.Errorf("Decode(%s, %q) = %v, %v", typ, data, d, err)
			}
		}
	}
	cases := []struct {
		typ, data, want string
	}{
		{"timeline", `{"events":[{"id":"b","dateMs":5},{"id":"a","dateMs":5},{"id":"c","dateMs":-1}]}`,
			`{"events":[{"id":"c","label":"","dateMs":-1,"description":"","precision":""},{"id":"b","label":"","dateMs":5,"description":"","precision":""},{"id":"a","label":"","dateMs":5,"description":"","precision":""}]}`},
		{"card", `{"name":"Ada","aliases":null}`, `{"name":"Ada","aliases":[],"properties":[],"sections":[]}`},
		{"map", `{"pins":null}`, `{"image":{"url":"","width":0,"height":0},"pins":[]}`},
		{"gallery", `{"any": [1, 2]}`, `{"any": [1, 2]}`},
	}
	for _, tc := range cases {
		d, err := Decode(tc.typ, []byte(tc.data))
		if err != nil || string(d.JSON()) != tc.want {
			t.Errorf("Decode(%s, %s) = %s, %v; want %s", tc.typ, tc.data, d.JSON(), err, tc.want)
		}
	}
	for _, tc := range []struct{ typ, data string }{
		{"timeline", `{"events":{}}`},
		{"card", `[1]`},
		{"map", `{"image":{"width":"wide"}}`},
		{"folder", `{"description":7}`},
		{"animator", `{`},
		{"gallery", `[1]`},
		{"gallery", `{`},
	} {
		if _, err := Decode(tc.typ, []byte(tc.data)); err == nil {
			t.Errorf("Decode(%s, %s) accepted bad data", tc.typ, tc.data)
		}
	}
}

// TestAllOrNone: a batch whose third op fails changes nothing and names op 2.
func TestAllOrNone(t *testing.T) {
	batches := map[string][]string{
		"timeline": {`{"op":"timeline.addEvent","label":"A","dateMs":1}`, `{"op":"timeline.removeEvent","id":"evt-a"}`, `{"op":"timeline.addEvent","label":"","dateMs":2}`},
		"card":     {`{"op":"card.rename","name":"B"}`, `{"op":"card.addSection","title":"T"}`, `{"op":"card.removeSection","id":"sec-nope"}`},
		"map":      {`{"op":"map.addPin","x":1,"y":1,"label":"P"}`, `{"op":"map.movePin","id":"pin-a","x":2,"y":2}`, `{"op":"map.setImage","url":"/i.png","width":1,"height":1}`},
		"animator": {`{"op":"animator.setClips","clips":[]}`, `{"op":"animator.setModel","url":"/m.glb"}`, `{"op":"animator.setActiveClip","clipId":"walk"}`},
		"folder":   {`{"op":"folder.setDescription","description":"x"}`, `{"op":"folder.setDescription","description":"y"}`, `{"op":"folder.setDescription"}`},
	}
	start := map[string]string{
		"timeline": `{"events":[{"id":"evt-a","label":"A","dateMs":0,"description":"","precision":"day"}]}`,
		"card":     `{"name":"A","aliases":["x"],"properties":[],"sections":[{"id":"sec-a","title":"S","body":"b"}]}`,
		"map":      `{"image":{"url":"/m.png","width":10,"height":10},"pins":[{"id":"pin-a","x":9,"y":9,"label":"A","documentId":""}]}`,
		"animator": `{"model":{"url":"/a.glb","name":""},"clips":[{"id":"walk"}],"activeClipId":"walk"}`,
		"folder":   `{"description":"d"}`,
	}
	for typ, ops := range batches {
		doc, err := Decode(typ, []byte(start[typ]))
		if err != nil {
			t.Fatal(err)
		}
		before := doc.JSON()
		_, err = Apply(doc, Request{Ops: raws(ops)})
		e, ok := err.(*Error)
		if !ok || e.OpIndex != 2 {
			t.Errorf("%s: err = %v, want an *Error at op 2", typ, err)
		}
		if got := doc.JSON(); !bytes.Equal(got, before) {
			t.Errorf("%s: document changed:\n%s\n%s", typ, before, got)
		}
	}
}

func TestNewID(t *testing.T) {
	ops := raws([]string{
		`{"op":"timeline.addEvent","label":"A","dateMs":1}`,
		`{"op":"timeline.addEvent","label":"B","dateMs":2}`,
	})
	res, err := Apply(Empty("timeline"), Request{Ops: ops, Env: Env{NewID: seqIDs()}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Created{{"evt-1", "A"}, {"evt-2", "B"}}; !reflect.DeepEqual(res.Created, want) {
		t.Fatalf("created %v, want %v", res.Created, want)
	}
	res, err = Apply(Empty("timeline"), Request{Ops: ops})
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Created[0].ID, res.Created[1].ID
	if !strings.HasPrefix(a, "evt-") || len(a) != len("evt-")+12 || a == b {
		t.Fatalf("random ids %q, %q", a, b)
	}
}

func TestErrorDetails(t *testing.T) {
	_, err := Apply(Empty("timeline"), Request{Ops: raws([]string{`{"op":"card.rename","name":"x"}`})})
	e := err.(*Error)
	if e.Code != CodeUnsupportedOperation || !reflect.DeepEqual(e.Details["supported"], Supported("timeline")) {
		t.Errorf("unsupported: %#v", e)
	}
	_, err = Apply(Empty("timeline"), Request{Ops: raws([]string{`{"op":"timeline.removeEvent","id":"evt-x"}`})})
	e = err.(*Error)
	if e.Code != CodeNotFoundInDocument || e.Details["id"] != "evt-x" || !strings.Contains(e.Message, "evt-x") {
		t.Errorf("not found: %#v", e)
	}
	_, err = Apply(Empty("card"), Request{Ops: raws([]string{`{"op":"card.removeProperty","key":"Born"}`})})
	e = err.(*Error)
	if e.Code != CodeNotFoundInDocument || e.Field != "key" || e.Details["id"] != "Born" {
		t.Errorf("not found by key: %#v", e)
	}
	_, err = Apply(Empty("gallery"), Request{Ops: raws([]string{`{"op":"gallery.add"}`})})
	e = err.(*Error)
	if e.Code != CodeUnsupportedOperation || !strings.Contains(e.Message, "none") {
		t.Errorf("opaque type: %#v", e)
	}
	if !strings.Contains(e.Error(), CodeUnsupportedOperation) {
		t.Errorf("Error() = %q", e.Error())
	}
}

// TestOpShape covers what every op gets checked for before its own parameters.
func TestOpShape(t *testing.T) {
	runCases(t, "folder", []opCase{
		{name: "not an object", ops: []string{`[1]`}, code: CodeInvalidField, field: "op"},
		{name: "no op member", ops: []string{`{"description":"x"}`}, code: CodeInvalidField, field: "op"},
		{name: "op not a string", ops: []string{`{"op":5}`}, code: CodeInvalidField, field: "op"},
		{name: "empty op", ops: []string{`{"op":""}`}, code: CodeInvalidField, field: "op"},
		// Member names are case-sensitive, the op's name too: "OP" is not "op".
		{name: "op in capitals", ops: []string{`{"OP":"folder.setDescription","description":"x"}`}, code: CodeInvalidField, field: "op"},
		{name: "escaped op in capitals", ops: []string{`{"\u004fp":"folder.setDescription","description":"x"}`}, code: CodeInvalidField, field: "op"},
		{name: "a second op in capitals", ops: []string{`{"op":"folder.setDescription","OP":"timeline.addEvent","description":"x"}`}, code: CodeInvalidField, field: "OP"},
		{name: "unknown op", ops: []string{`{"op":"folder.explode"}`}, code: CodeUnsupportedOperation},
		{name: "other type's op", ops: []string{`{"op":"timeline.addEvent","label":"x","dateMs":1}`}, code: CodeUnsupportedOperation},
		{name: "error index", ops: []string{`{"op":"folder.setDescription","description":"a"}`, `{"op":"folder.setDescription","description":1}`}, code: CodeInvalidField, field: "description", opIndex: 1},
		{name: "empty batch", ops: []string{}, want: `{"description":""}`},
	})
}

func TestText(t *testing.T) {
	cases := []struct {
		typ, data, name, want string
	}{
		{"timeline", `{"events":[{"id":"a","label":"Founding","dateMs":1,"description":"The city rises."},{"id":"b","label":"War","dateMs":2}]}`, "History", "History Founding The city rises. War"},
		{"animator", `{"clips":[{"id":"walk"},{"id":"run"}]}`, "Hero", "Hero walk run"},
		{"animator", `{}`, "Hero", "Hero"},
		{"card", `{"aliases":["Countess"],"properties":[{"key":"Born","value":"1815"}],"sections":[{"id":"s","title":"Life","body":"Wrote  notes.\n"}]}`, "Ada", "Ada Countess Born 1815 Life Wrote  notes."},
		{"card", `{"name":"Ada Lovelace"}`, "Ada", "Ada Lovelace"},
		{"map", `{"pins":[{"id":"p","label":"Harbour"},{"id":"q","label":" "}]}`, "Coast", "Coast Harbour"},
		{"folder", `{"description":"All the places."}`, "Places", "Places All the places."},
		{"folder", `{}`, "", ""},
		{"gallery", `{"x":1}`, "Pics", "Pics"},
	}
	for _, tc := range cases {
		d, err := Decode(tc.typ, []byte(tc.data))
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Text(tc.name); got != tc.want {
			t.Errorf("%s Text = %q, want %q", tc.typ, got, tc.want)
		}
	}
}

// golden scripts: for each type, a sequence of batches whose final data is kept in
// testdata/golden/<type>.json.
var goldenScripts = map[string][][]string{
	"timeline": {
		{`{"op":"timeline.addEvent","label":"Founding of the city","dateMs":-1000000000000,"precision":"year","description":"Settlers arrive."}`,
			`{"op":"timeline.addEvent","label":"The long war","dateMs":0}`,
			`{"op":"timeline.addEvent","label":"Deep past","dateMs":-9007199254740991,"precision":"millennium"}`},
		{`{"op":"timeline.updateEvent","id":"evt-2","dateMs":-2000000000000,"label":"The longer war"}`,
			`{"op":"timeline.addEvent","label":"Far future","dateMs":9007199254740991,"precision":"second"}`,
			`{"op":"timeline.removeEvent","id":"evt-1"}`},
	},
	"animator": {
		{`{"op":"animator.setModel","url":"https://example.com/hero.glb","name":"Hero"}`,
			`{"op":"animator.setClips","clips":[{"id":"idle"},{"id":"walk"},{"id":"run"}]}`,
			`{"op":"animator.setActiveClip","clipId":"walk"}`},
		{`{"op":"animator.setClips","clips":[{"id":"idle"},{"id":"run"}]}`},
	},
	"card": {
		{`{"op":"card.rename","name":"Ada Lovelace"}`,
			`{"op":"card.setAliases","aliases":["Countess of Lovelace","Ada"]}`,
			`{"op":"card.setProperty","key":"Born","value":"1815"}`,
			`{"op":"card.setProperty","key":"Died","value":"1852"}`,
			`{"op":"card.addSection","title":"Life","body":"Born in London."}`,
			`{"op":"card.addSection","title":"Work","body":"Notes on the engine 😀."}`},
		{`{"op":"card.setProperty","key":"Born","value":"10 December 1815"}`,
			`{"op":"card.removeProperty","key":"Died"}`,
			`{"op":"card.addSection","title":"Legacy","index":0}`,
			`{"op":"card.updateSection","id":"sec-1","title":"Early life"}`,
			`{"op":"card.editSectionText","id":"sec-2","baseVersion":1,"splices":[{"pos":22,"del":1,"ins":"!"},{"pos":0,"del":0,"ins":"Her "}]}`,
			`{"op":"card.moveSection","id":"sec-3","index":2}`},
		{`{"op":"card.removeSection","id":"sec-1"}`},
	},
	"map": {
		{`{"op":"map.setImage","url":"/files/coast.png","width":2048,"height":1024}`,
			`{"op":"map.addPin","x":100,"y":200.5,"label":"Harbour"}`,
			`{"op":"map.addPin","x":2048,"y":0,"label":"Lighthouse","documentId":"doc-lighthouse"}`,
			`{"op":"map.addPin","x":0,"y":0,"label":"Corner"}`},
		{`{"op":"map.movePin","id":"pin-1","x":150,"y":250}`,
			`{"op":"map.updatePin","id":"pin-2","label":"Old lighthouse","documentId":""}`,
			`{"op":"map.removePin","id":"pin-3"}`,
			`{"op":"map.movePin","id":"pin-2","x":1000,"y":10}`,
			`{"op":"map.setImage","url":"https://example.com/coast-small.png","width":1024,"height":512}`},
	},
	"folder": {
		{`{"op":"folder.setDescription","description":"Everything about the coast."}`},
	},
}

// scripted applies the golden script of docType, one request per batch, and returns the
// document and its op log.
func scripted(t testing.TB, docType string) (Document, []Batch) {
	t.Helper()
	doc := Empty(docType)
	var log []Batch
	ids := seqIDs()
	for i, batch := range goldenScripts[docType] {
		env := scriptEnv(log)
		env.NewID = ids
		res, err := Apply(doc, Request{Version: int64(i), Ops: raws(batch), Env: env})
		if err != nil {
			t.Fatalf("%s batch %d: %v", docType, i, err)
		}
		doc = res.Doc
		log = append(log, Batch{Version: int64(i + 1), Ops: res.Applied})
	}
	return doc, log
}

// scriptEnv is the Env of the golden scripts and fuzz targets: fresh numbered ids, two
// documents to link pins to, and log as the op log.
func scriptEnv(log []Batch) Env {
	return Env{
		NewID:          seqIDs(),
		DocumentExists: func(id string) bool { return id == "doc-lighthouse" || id == "doc-1" },
		History: func(since int64) ([]Batch, error) {
			if since < 0 || since > int64(len(log)) {
				return nil, nil
			}
			return log[since:], nil
		},
	}
}

func TestGolden(t *testing.T) {
	for _, typ := range Types() {
		t.Run(typ, func(t *testing.T) {
			doc, _ := scripted(t, typ)
			var got bytes.Buffer
			if err := json.Indent(&got, doc.JSON(), "", "  "); err != nil {
				t.Fatal(err)
			}
			got.WriteByte('\n')
			path := filepath.Join("testdata", "golden", typ+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./ops -run TestGolden -update to create it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("%s differs from the golden file (rerun with -update if the change is intended):\n%s", path, got.Bytes())
			}
		})
	}
}

// TestReplayRebuildsState: re-applying every batch of the op log, as applied, to the empty
// document rebuilds the scripted state byte for byte (what the crash test relies on).
func TestReplayRebuildsState(t *testing.T) {
	for _, typ := range Types() {
		t.Run(typ, func(t *testing.T) {
			want, log := scripted(t, typ)
			doc := Empty(typ)
			for _, b := range log {
				var err error
				if doc, err = Replay(doc, b.Version-1, b.Ops); err != nil {
					t.Fatalf("replay v%d: %v", b.Version, err)
				}
			}
			if !bytes.Equal(doc.JSON(), want.JSON()) {
				t.Fatalf("replay differs:\n got %s\nwant %s", doc.JSON(), want.JSON())
			}
		})
	}
}
