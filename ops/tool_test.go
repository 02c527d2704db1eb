package ops

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

func factions(t testing.TB) *ToolType {
	t.Helper()
	data, err := os.ReadFile("testdata/tools/factions.json")
	if err != nil {
		t.Fatal(err)
	}
	tool, err := ParseTool(data)
	if err != nil {
		t.Fatalf("ParseTool: %v", err)
	}
	tt, ok := tool.Type("faction")
	if !ok {
		t.Fatal("no faction type")
	}
	return tt
}

// counter gives ids 1, 2, ... per prefix.
func counter() func(string) string {
	n := map[string]int{}
	return func(prefix string) string { n[prefix]++; return fmt.Sprint(n[prefix]) }
}

func applyTool(t *testing.T, doc Document, version int64, ops ...string) (Result, error) {
	t.Helper()
	raw := make([]json.RawMessage, len(ops))
	for i, o := range ops {
		raw[i] = json.RawMessage(o)
	}
	return Apply(doc, Request{Version: version, Ops: raw, Env: Env{NewID: counter()}})
}

func asMap(t *testing.T, doc Document) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(doc.JSON(), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestToolEmptyDocument(t *testing.T) {
	tt := factions(t)
	got := string(tt.Empty().JSON())
	want := `{"alignment":"lawful","history":"","leader":"","motto":"","power":0,"relations":[]}`
	if got != want {
		t.Fatalf("empty = %s, want %s", got, want)
	}
}

func TestToolOps(t *testing.T) {
	tt := factions(t)
	res, err := applyTool(t, tt.Empty(), 0,
		`{"op":"faction.setMotto","motto":"By the tide"}`,
		`{"op":"faction.setPower","power":7}`,
		`{"op":"faction.setAlignment","alignment":"chaotic"}`,
		`{"op":"faction.setLeader","leader":"doc123"}`,
		`{"op":"faction.addRelation","faction":"docA","stance":"ally","notes":"Old friends of [[doc:docB]]."}`,
		`{"op":"faction.addRelation","faction":"docC","stance":"war"}`,
		`{"op":"faction.updateRelation","id":"rel-1","stance":"rival"}`,
		`{"op":"faction.moveRelation","id":"rel-2","index":0}`,
		`{"op":"faction.editHistory","baseVersion":0,"splices":[{"pos":0,"ins":"Founded in salt."}]}`,
	)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	first := res.Applied
	// The notes were written by this request's append: an edit of them is made on version 1.
	res, err = applyTool(t, res.Doc, 1, `{"op":"faction.editRelationNotes","id":"rel-1","baseVersion":1,"splices":[{"pos":0,"del":3,"ins":"Very old"}]}`)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	got := asMap(t, res.Doc)
	want := map[string]any{
		"motto": "By the tide", "power": 7.0, "alignment": "chaotic", "leader": "doc123",
		"history": "Founded in salt.",
		"relations": []any{
			map[string]any{"id": "rel-2", "faction": "docC", "stance": "war", "notes": ""},
			map[string]any{"id": "rel-1", "faction": "docA", "stance": "rival", "notes": "Very old friends of [[doc:docB]]."},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("data =\n%v\nwant\n%v", got, want)
	}

	if !strings.Contains(string(first[4]), `"id":"rel-1"`) {
		t.Fatalf("applied append = %s", first[4])
	}
	text := res.Doc.Text("The Tide")
	for _, w := range []string{"The Tide", "By the tide", "Founded in salt.", "Very old friends"} {
		if !strings.Contains(text, w) {
			t.Errorf("text %q lacks %q", text, w)
		}
	}
	if strings.Contains(text, "doc123") {
		t.Errorf("text %q holds a link field's id", text)
	}
	links := DocumentLinks(res.Doc)
	var targets []string
	for _, l := range links {
		targets = append(targets, l.TargetID)
	}
	if want := []string{"doc123", "docC", "docA", "docB"}; !reflect.DeepEqual(targets, want) {
		t.Fatalf("links = %v, want %v", targets, want)
	}
	// Replaying the applied ops rebuilds the same data.
	again, err := Replay(tt.Empty(), 0, first)
	if err == nil {
		again, err = Replay(again, 1, res.Applied)
	}
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	if string(again.JSON()) != string(res.Doc.JSON()) {
		t.Fatalf("replay = %s\nwant %s", again.JSON(), res.Doc.JSON())
	}
	if s := strings.Join(Summarize(tt.Empty(), first, false), ", "); s != "set motto, set power, set alignment, set leader, added “ally” to relations, and 4 more changes" {
		t.Fatalf("summary = %s", s)
	}
}

func TestToolRejections(t *testing.T) {
	tt := factions(t)
	base, err := applyTool(t, tt.Empty(), 0, `{"op":"faction.addRelation","faction":"docA","stance":"ally"}`)
	if err != nil {
		t.Fatal(err)
	}
	doc := base.Doc
	before := string(doc.JSON())
	cases := []struct {
		op, code, field string
	}{
		{`{"op":"faction.setPower","power":11}`, CodeInvalidField, "power"},
		{`{"op":"faction.setPower","power":2.5}`, CodeInvalidField, "power"},
		{`{"op":"faction.setPower","power":"3"}`, CodeInvalidField, "power"},
		{`{"op":"faction.setPower"}`, CodeInvalidField, "power"},
		{`{"op":"faction.setPower","power":3,"extra":1}`, CodeInvalidField, "extra"},
		{`{"op":"faction.setAlignment","alignment":"good"}`, CodeInvalidField, "alignment"},
		{`{"op":"faction.setLeader","leader":"not an id!"}`, CodeInvalidField, "leader"},
		{`{"op":"faction.setMotto","motto":"` + strings.Repeat("x", 201) + `"}`, CodeInvalidField, "motto"},
		{`{"op":"faction.addRelation","stance":"ally"}`, CodeInvalidField, "faction"},
		{`{"op":"faction.addRelation","faction":"x","stance":"ally","id":"rel-9"}`, CodeInvalidField, "id"},
		{`{"op":"faction.updateRelation","id":"rel-9","stance":"ally"}`, CodeNotFoundInDocument, "id"},
		{`{"op":"faction.updateRelation","id":"rel-1"}`, CodeInvalidField, ""},
		{`{"op":"faction.removeRelation","id":"nope"}`, CodeNotFoundInDocument, "id"},
		{`{"op":"faction.moveRelation","id":"rel-1","index":5}`, CodeInvalidField, "index"},
		{`{"op":"faction.editHistory","baseVersion":1,"splices":[{"pos":3,"ins":"x"}]}`, CodeInvalidField, ""},
		{`{"op":"faction.editHistory","baseVersion":5,"splices":[]}`, CodeStaleBaseVersion, "baseVersion"},
		{`{"op":"faction.editHistory","baseVersion":1,"splices":[{"pos":0},{"pos":"0"}]}`, CodeInvalidField, "splices[1].pos"},
		{`{"op":"faction.editHistory","baseVersion":1,"splices":[{"pos":0},{"POS":0}]}`, CodeInvalidField, "splices[1].POS"},
		{`{"op":"faction.editHistory","baseVersion":1,"splices":[{"pos":0},{"pos":0,"text":"x"}]}`, CodeInvalidField, "splices[1].text"},
		{`{"op":"faction.editHistory","baseVersion":1,"splices":[{"pos":0},{"pos":0,"pos":1}]}`, CodeInvalidField, "splices[1].pos"},
		{`{"op":"faction.setPower","power":3,"power":4}`, CodeInvalidField, "power"},
		{`{"op":"faction.fly"}`, CodeUnsupportedOperation, ""},
		{`{"op":"card.rename","name":"x"}`, CodeUnsupportedOperation, ""},
	}
	for _, tc := range cases {
		// A good op first: a rejected request changes nothing, whatever came before.
		_, err := applyTool(t, doc, 1, `{"op":"faction.setMotto","motto":"changed"}`, tc.op)
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%s: err = %v, want *Error %s", tc.op, err, tc.code)
			continue
		}
		if e.Code != tc.code || (tc.field != "" && e.Field != tc.field) || e.OpIndex != 1 {
			t.Errorf("%s: got %s field %q op %d (%s), want %s field %q op 1", tc.op, e.Code, e.Field, e.OpIndex, e.Message, tc.code, tc.field)
		}
		if string(doc.JSON()) != before {
			t.Fatalf("%s changed the document", tc.op)
		}
	}
}

func TestToolTextRebase(t *testing.T) {
	tt := factions(t)
	// Version 1 wrote "old tale"; version 2 (someone else) put "An " before it.
	r1, err := applyTool(t, tt.Empty(), 0, `{"op":"faction.editHistory","baseVersion":0,"splices":[{"pos":0,"ins":"old tale"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Apply(r1.Doc, Request{Version: 1, Ops: []json.RawMessage{json.RawMessage(`{"op":"faction.editHistory","baseVersion":1,"splices":[{"pos":0,"ins":"An "}]}`)}})
	if err != nil {
		t.Fatal(err)
	}
	history := func(since int64) ([]Batch, error) {
		all := []Batch{{Version: 1, Ops: r1.Applied}, {Version: 2, Ops: r2.Applied}}
		return all[since:], nil
	}
	// Made on version 1 ("old tale"): append at its end; lands after "An old tale".
	r3, err := Apply(r2.Doc, Request{Version: 2, Ops: []json.RawMessage{json.RawMessage(`{"op":"faction.editHistory","baseVersion":1,"splices":[{"pos":8,"ins":" told"}]}`)}, Env: Env{History: history}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ToolData(r3.Doc)["history"]; got != "An old tale told" {
		t.Fatalf("history = %q", got)
	}
	// A set of the text counts as a change to rebase over (replace whole).
	r4, err := Apply(r2.Doc, Request{Version: 2, Ops: []json.RawMessage{
		json.RawMessage(`{"op":"faction.editHistory","baseVersion":2,"splices":[{"pos":0,"ins":"!"}]}`),
		json.RawMessage(`{"op":"faction.editHistory","baseVersion":2,"splices":[{"pos":11,"ins":"?"}]}`),
	}, Env: Env{History: history}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ToolData(r4.Doc)["history"]; got != "!An old tale?" {
		t.Fatalf("history = %q", got)
	}
}

func TestToolDecode(t *testing.T) {
	tt := factions(t)
	// Missing properties take their defaults (an upgrade added them).
	d, err := tt.Decode([]byte(`{"motto":"m","relations":[{"id":"rel-a","faction":"x","stance":"ally"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(d.JSON()); got != `{"alignment":"lawful","history":"","leader":"","motto":"m","power":0,"relations":[{"faction":"x","id":"rel-a","notes":"","stance":"ally"}]}` {
		t.Fatalf("decoded %s", got)
	}
	for data, field := range map[string]string{
		`{"motto":5}`:      "/motto",
		`{"power":99}`:     "/power",
		`{"colour":"red"}`: "/colour",
		`[]`:               "",
		`{"relations":[{"faction":"x","stance":"ally"}]}`:                                                  "/relations/0/id",
		`{"relations":[{"id":"a","faction":"x","stance":"ally"},{"id":"a","faction":"y","stance":"war"}]}`: "/relations/1/id",
	} {
		_, err := tt.Decode([]byte(data))
		e, ok := err.(*Error)
		if !ok || e.Field != field {
			t.Errorf("Decode(%s) = %v, want an error at %q", data, err, field)
		}
	}
}

func TestParseToolProblems(t *testing.T) {
	good, _ := os.ReadFile("testdata/tools/factions.json")
	cases := []struct {
		edit    func(m map[string]any)
		pointer string
	}{
		{func(m map[string]any) { m["name"] = "Bad Name" }, "/name"},
		{func(m map[string]any) { delete(m, "version") }, "/version"},
		{func(m map[string]any) { m["version"] = "1.0" }, "/version"},
		{func(m map[string]any) { m["extra"] = 1 }, "/extra"},
		{func(m map[string]any) { typ(m)["name"] = "card" }, "/documentTypes/0/name"},
		{func(m map[string]any) { props(m)["motto"].(map[string]any)["pattern"] = "x" }, "/documentTypes/0/schema/properties/motto/pattern"},
		{func(m map[string]any) { props(m)["motto"].(map[string]any)["type"] = []any{"string", "null"} }, "/documentTypes/0/schema/properties/motto/type"},
		{func(m map[string]any) { props(m)["motto"].(map[string]any)["minLength"] = 3 }, "/documentTypes/0/schema/properties/motto"},
		{func(m map[string]any) { props(m)["op"] = map[string]any{"type": "string"} }, "/documentTypes/0/schema/properties/op"},
		{func(m map[string]any) { props(m)["motto"].(map[string]any)["format"] = "colour" }, "/documentTypes/0/schema/properties/motto/format"},
		{func(m map[string]any) { opAt(m, 0)["path"] = "nothing" }, "/documentTypes/0/ops/0/path"},
		{func(m map[string]any) { opAt(m, 0)["kind"] = "append" }, "/documentTypes/0/ops/0/path"},
		{func(m map[string]any) { opAt(m, 0)["kind"] = "delete" }, "/documentTypes/0/ops/0/kind"},
		{func(m map[string]any) { opAt(m, 4)["path"] = "motto" }, "/documentTypes/0/ops/4/path"},
		{func(m map[string]any) { opAt(m, 1)["name"] = "setMotto" }, "/documentTypes/0/ops/1/name"},
		{func(m map[string]any) { typ(m)["layout"] = []any{"motto", "nope"} }, "/documentTypes/0/layout/1"},
		{func(m map[string]any) { typ(m)["text"] = []any{"leader"} }, "/documentTypes/0/text/0"},
		{func(m map[string]any) {
			m["appKinds"].([]any)[0].(map[string]any)["view"] = map[string]any{"type": "board", "documentType": "faction", "groupBy": "motto"}
		}, "/appKinds/0/view/groupBy"},
	}
	for _, tc := range cases {
		var m map[string]any
		_ = json.Unmarshal(good, &m)
		tc.edit(m)
		data, _ := json.Marshal(m)
		_, err := ParseTool(data)
		me, ok := err.(*ManifestError)
		if !ok {
			t.Errorf("want a problem at %s, got %v", tc.pointer, err)
			continue
		}
		found := false
		for _, p := range me.Problems {
			found = found || p.Pointer == tc.pointer
		}
		if !found {
			t.Errorf("want a problem at %s, got %+v", tc.pointer, me.Problems)
		}
	}
	for _, bad := range []string{``, `[]`, `{"name":"a","name":"b"}`, `{`} {
		if _, err := ParseTool([]byte(bad)); err == nil {
			t.Errorf("ParseTool(%q) accepted", bad)
		}
	}
}

func typ(m map[string]any) map[string]any {
	return m["documentTypes"].([]any)[0].(map[string]any)
}
func props(m map[string]any) map[string]any {
	return typ(m)["schema"].(map[string]any)["properties"].(map[string]any)
}
func opAt(m map[string]any, i int) map[string]any { return typ(m)["ops"].([]any)[i].(map[string]any) }

func TestToolDiscoveryAndForm(t *testing.T) {
	tt := factions(t)
	ops := tt.Ops()
	if len(ops) != 10 || ops[0].Op != "faction.setMotto" || ops[0].Kind != KindSet {
		t.Fatalf("ops = %+v", ops)
	}
	var schema map[string]any
	if err := json.Unmarshal(ops[5].Params, &schema); err != nil {
		t.Fatal(err)
	}
	if req := fmt.Sprint(schema["required"]); req != "[op faction stance]" {
		t.Fatalf("addRelation required = %s", req)
	}
	form := tt.Form()
	var kinds []string
	for _, f := range form {
		kinds = append(kinds, f.Key+":"+f.Kind)
	}
	if got := strings.Join(kinds, " "); got != "motto:string alignment:enum power:integer leader:link history:markdown relations:list" {
		t.Fatalf("form = %s", got)
	}
	rel := form[5]
	if rel.AppendOp != "faction.addRelation" || rel.MoveOp != "faction.moveRelation" || len(rel.Fields) != 3 || rel.Fields[2].TextOp != "faction.editRelationNotes" {
		t.Fatalf("relations field = %+v", rel)
	}
	if form[4].TextOp != "faction.editHistory" || form[0].SetOp != "faction.setMotto" || form[4].SetOp != "" {
		t.Fatalf("history/motto fields = %+v %+v", form[4], form[0])
	}
}

// FuzzToolOps checks the generic engine on arbitrary batches applied to a faction: Apply
// never panics; a rejected batch changes nothing and names one of its ops; an accepted
// batch's data validates against the schema, decodes back to the same JSON, and replays
// from its applied ops to the same document.
func FuzzToolOps(f *testing.F) {
	tt := factions(f)
	seed, err := Apply(tt.Empty(), Request{Ops: []json.RawMessage{
		json.RawMessage(`{"op":"faction.addRelation","faction":"docA","stance":"ally","notes":"héllo 😀"}`),
	}, Env: Env{NewID: counter()}})
	if err != nil {
		f.Fatal(err)
	}
	start := seed.Doc
	for _, s := range []string{
		`[{"op":"faction.setMotto","motto":"a"},{"op":"faction.setPower","power":3}]`,
		`[{"op":"faction.addRelation","faction":"b","stance":"war","notes":"n"},{"op":"faction.moveRelation","id":"rel-1","index":1}]`,
		`[{"op":"faction.updateRelation","id":"rel-1","notes":"z","stance":"rival"},{"op":"faction.removeRelation","id":"rel-1"}]`,
		`[{"op":"faction.editRelationNotes","id":"rel-1","baseVersion":1,"splices":[{"pos":2,"del":1,"ins":"\ud83d\ude00"}]}]`,
		`[{"op":"faction.editHistory","baseVersion":1,"splices":[{"pos":0,"ins":"[[doc:abc]]"}]},{"op":"faction.setLeader","leader":"abc"}]`,
		`[{"op":"faction.setAlignment","alignment":"neutral"},{"op":"faction.setPower","power":1e1}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, batch []byte) {
		var ops []json.RawMessage
		if json.Unmarshal(batch, &ops) != nil {
			return
		}
		before := string(start.JSON())
		res, err := Apply(start, Request{Version: 1, Ops: ops, Env: Env{NewID: counter(), History: func(int64) ([]Batch, error) { return []Batch{{Version: 1, Ops: seed.Applied}}, nil }}})
		if string(start.JSON()) != before {
			t.Fatalf("Apply changed its input")
		}
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.OpIndex < 0 || e.OpIndex >= len(ops) || e.Message == "" {
				t.Fatalf("bad error %#v for %d ops", err, len(ops))
			}
			return
		}
		d := res.Doc.(*toolDoc)
		if err := d.validate(); err != nil {
			t.Fatalf("accepted data does not validate: %v\n%s", err, d.JSON())
		}
		again, derr := tt.Decode(d.JSON())
		if derr != nil || string(again.JSON()) != string(d.JSON()) {
			t.Fatalf("data does not round-trip: %v\n%s", derr, d.JSON())
		}
		replayed, rerr := Replay(start, 1, res.Applied)
		if rerr != nil || string(replayed.JSON()) != string(d.JSON()) {
			t.Fatalf("replay differs: %v\n%s\n%s", rerr, d.JSON(), replayed.JSON())
		}
		_ = d.Text("n")
		_ = DocumentLinks(d)
	})
}

// FuzzParseTool checks the manifest reader on arbitrary input: it never panics, a refusal
// lists at least one problem, and every type of an accepted manifest has a valid empty
// document that round-trips and a form and op list that can be built.
func FuzzParseTool(f *testing.F) {
	good, err := os.ReadFile("testdata/tools/factions.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"name":"qb","version":"0.1.0","documentTypes":[{"name":"quest","schema":{"type":"object","properties":{"state":{"type":"string","enum":["open","done"]},"steps":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"done":{"type":"boolean"}}}}}},"ops":[{"name":"setState","kind":"set","path":"state"},{"name":"addStep","kind":"append","path":"steps"}]}],"appKinds":[{"name":"board","view":{"type":"board","documentType":"quest","groupBy":"state"}}]}`))
	f.Add([]byte(`{"name":"x","version":"1.0.0"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tool, err := ParseTool(data)
		if err != nil {
			if me, ok := err.(*ManifestError); !ok || len(me.Problems) == 0 {
				t.Fatalf("refusal without problems: %v", err)
			}
			return
		}
		for _, tt := range tool.Types {
			empty := tt.Empty().(*toolDoc)
			if err := empty.validate(); err != nil {
				t.Fatalf("%s: the empty document does not validate: %v", tt.Name, err)
			}
			again, err := tt.Decode(empty.JSON())
			if err != nil || string(again.JSON()) != string(empty.JSON()) {
				t.Fatalf("%s: the empty document does not round-trip: %v", tt.Name, err)
			}
			_, _ = tt.Form(), tt.Ops()
		}
	})
}
