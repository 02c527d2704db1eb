package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/ops"
)

// opExamples holds one valid call of every built-in op (ids are made up: they only have to
// pass the schema).
var opExamples = map[string]string{
	"animator.setModel":      `{"op":"animator.setModel","url":"/static/models/fox.glb","name":"Fox"}`,
	"animator.setClips":      `{"op":"animator.setClips","clips":[{"id":"Run"},{"id":"Walk"}]}`,
	"animator.setActiveClip": `{"op":"animator.setActiveClip","clipId":"Run"}`,
	"card.rename":            `{"op":"card.rename","name":"Aria Stormborn"}`,
	"card.setAliases":        `{"op":"card.setAliases","aliases":["the Storm"]}`,
	"card.setProperty":       `{"op":"card.setProperty","key":"Born","value":"Year 12"}`,
	"card.removeProperty":    `{"op":"card.removeProperty","key":"Born"}`,
	"card.addSection":        `{"op":"card.addSection","title":"History","body":"Born in a storm."}`,
	"card.editSectionText":   `{"op":"card.editSectionText","id":"sec-1","baseVersion":3,"splices":[{"pos":0,"del":4,"ins":"Born"}]}`,
	"card.updateSection":     `{"op":"card.updateSection","id":"sec-1","title":"Early life"}`,
	"card.moveSection":       `{"op":"card.moveSection","id":"sec-1","index":0}`,
	"card.removeSection":     `{"op":"card.removeSection","id":"sec-1"}`,
	"card.setSectionSecret":  `{"op":"card.setSectionSecret","id":"sec-1","secret":true}`,
	"folder.setDescription":  `{"op":"folder.setDescription","description":"People of the north."}`,
	"map.setImage":           `{"op":"map.setImage","url":"/static/maps/north.png","width":2048,"height":1536}`,
	"map.addPin":             `{"op":"map.addPin","x":120.5,"y":88,"label":"Vharn","documentId":"abc123def456ghi"}`,
	"map.movePin":            `{"op":"map.movePin","id":"pin-1","x":10,"y":20}`,
	"map.updatePin":          `{"op":"map.updatePin","id":"pin-1","label":"Old Vharn"}`,
	"map.removePin":          `{"op":"map.removePin","id":"pin-1"}`,
	"timeline.addEvent":      `{"op":"timeline.addEvent","label":"The Sundering","dateMs":-62135596800000,"precision":"year"}`,
	"timeline.updateEvent":   `{"op":"timeline.updateEvent","id":"evt-1","description":"The sky broke."}`,
	"timeline.removeEvent":   `{"op":"timeline.removeEvent","id":"evt-1"}`,
}

// TestApplyOpsSchema holds apply_content_ops's published input schema to the op catalogue:
// one closed schema per op (and one for tool types' ops), each op's example passes it and a
// wrong one does not; errors name the bad value's path; numbers are read exactly.
func TestApplyOpsSchema(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	session := connect(t, s, ann.Key)
	tools, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var schema []byte
	for _, tool := range tools.Tools {
		if tool.Name == "apply_content_ops" {
			if schema, err = json.Marshal(tool.InputSchema); err != nil {
				t.Fatal(err)
			}
			if tool.OutputSchema == nil {
				t.Error("apply_content_ops has no output schema")
			}
		}
	}
	var published struct {
		Properties struct {
			Ops struct {
				Items struct {
					OneOf []struct{ Title string }
				}
			}
		}
	}
	if err := json.Unmarshal(schema, &published); err != nil {
		t.Fatal(err)
	}
	var titles, want []string
	for _, v := range published.Properties.Ops.Items.OneOf {
		titles = append(titles, v.Title)
	}
	for _, spec := range ops.Catalog() {
		want = append(want, spec.Name)
		if _, ok := opExamples[spec.Name]; !ok {
			t.Errorf("no example of %s: add one to opExamples", spec.Name)
		}
	}
	want = append(want, "an installed tool's op")
	if !slices.Equal(titles, want) {
		t.Fatalf("ops.items.oneOf titles %v, want %v", titles, want)
	}

	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("apply_content_ops.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("apply_content_ops.json")
	if err != nil {
		t.Fatal(err)
	}
	args := func(op string) any {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"worldId":"w","documentId":"d","ops":[` + op + `]}`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for name, example := range opExamples {
		if err := sch.Validate(args(example)); err != nil {
			t.Errorf("%s: the example fails the published schema: %v", name, err)
		}
	}
	for _, bad := range []string{
		`{"op":"animator.setClips","clips":[{"id":1}]}`,                             // wrong type
		`{"op":"timeline.addEvent","label":"x"}`,                                    // dateMs missing
		`{"op":"timeline.addEvent","label":"x","dateMs":1,"precision":"fortnight"}`, // not in the enum
		`{"op":"card.setProperty","key":"a","value":"b","colour":"red"}`,            // unknown member
		`{"op":"card.explode"}`,                                                     // a built-in type's op that does not exist
	} {
		if sch.Validate(args(bad)) == nil {
			t.Errorf("the published schema accepts %s", bad)
		}
	}
	// A tool type's op passes (the server checks it against the world's tools).
	if err := sch.Validate(args(`{"op":"quest.setTitle","title":"x"}`)); err != nil {
		t.Errorf("a tool op fails the published schema: %v", err)
	}

	// The server's own check names where the bad value is.
	w := s.World(ann, "Eldoria")
	var created struct{ ID string }
	if call(t, session, "create_document", map[string]any{"worldId": w, "name": "Fox", "documentType": "animator"}, &created) {
		t.Fatal("create_document failed")
	}
	var te struct {
		Error struct{ Code, Field, Path, Message string }
	}
	if !call(t, session, "apply_content_ops", map[string]any{"worldId": w, "documentId": created.ID, "ops": []any{
		map[string]any{"op": "animator.setModel", "url": "/m.glb"},
		map[string]any{"op": "animator.setClips", "clips": []any{map[string]any{"id": 1}}},
	}}, &te) || te.Error.Code != "invalid_field" || !strings.HasPrefix(te.Error.Path, "ops[1].clips[0]") {
		t.Errorf("a bad clip: %+v", te)
	}
	if !call(t, session, "apply_content_ops", map[string]any{"worldId": w, "documentId": created.ID, "ops": []any{}, "colour": "red"}, &te) ||
		te.Error.Code != "invalid_field" || te.Error.Field != "colour" {
		t.Errorf("an unknown argument: %+v", te)
	}

	// A date far beyond 2^53 ms (a whole day) arrives exactly, not rounded through a float.
	if call(t, session, "create_document", map[string]any{"worldId": w, "name": "Deep time", "documentType": "timeline"}, &created) {
		t.Fatal("create_document failed")
	}
	res, err := session.CallTool(context.Background(), callParams("apply_content_ops",
		`{"worldId":"`+w+`","documentId":"`+created.ID+`","ops":[{"op":"timeline.addEvent","label":"Far future","dateMs":8639999999395200000}]}`))
	if err != nil || res.IsError {
		t.Fatalf("far date: %v %+v", err, res.Content[0])
	}
	text, _ := json.Marshal(res.StructuredContent)
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var out struct{ Ops []map[string]any }
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	if got := out.Ops[0]["dateMs"]; got != json.Number("8639999999395200000") {
		t.Errorf("dateMs came back as %v", got)
	}
}

// callParams is a tool call with its arguments as written.
func callParams(name, args string) *sdk.CallToolParams {
	return &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)}
}

// TestListsRefuseWhatRESTRefuses: page 0 and an unknown document type are mistakes on MCP as
// on REST, not an empty or default answer.
func TestListsRefuseWhatRESTRefuses(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	session := connect(t, s, ann.Key)
	w := s.World(ann, "Eldoria")
	var te struct {
		Error struct {
			Code, Field string
			Allowed     []string
		}
	}
	for _, args := range []map[string]any{
		{"worldId": w, "page": 0},
		{"worldId": w, "perPage": 0},
	} {
		if !call(t, session, "list_documents", args, &te) || te.Error.Code != "invalid_field" {
			t.Errorf("list_documents %v: %+v", args, te)
		}
	}
	if !call(t, session, "list_documents", map[string]any{"worldId": w, "documentType": "dragon"}, &te) ||
		te.Error.Code != "unsupported_document_type" || !slices.Contains(te.Error.Allowed, "card") {
		t.Errorf("list_documents of an unknown type: %+v", te)
	}
	var created struct{ Error struct{ Code string } }
	if !call(t, session, "create_document", map[string]any{"worldId": w, "name": "x", "documentType": "dragon"}, &created) ||
		created.Error.Code != te.Error.Code {
		t.Errorf("create_document of an unknown type: %+v", created)
	}
	// REST answers the same.
	res := s.Get(ann.Key, "/api/v1/worlds/"+w+"/documents?documentType=dragon")
	if res.Status != 422 || !strings.Contains(string(res.Body), "unsupported_document_type") {
		t.Errorf("REST list of an unknown type: %d %s", res.Status, res.Body)
	}
	var l struct {
		Items   []any
		HasMore bool
	}
	if call(t, session, "list_documents", map[string]any{"worldId": w, "documentType": "card", "page": 1}, &l) {
		t.Error("list_documents of a known type failed")
	}
	// Lists say whether there is more.
	for _, n := range []string{"A", "B", "C"} {
		call(t, session, "create_document", map[string]any{"worldId": w, "name": n, "documentType": "card"}, nil)
	}
	for page, more := range map[int]bool{1: true, 2: false} {
		if call(t, session, "list_documents", map[string]any{"worldId": w, "perPage": 2, "page": page}, &l) || l.HasMore != more {
			t.Errorf("page %d of 3 documents by 2: %+v", page, l)
		}
	}
}
