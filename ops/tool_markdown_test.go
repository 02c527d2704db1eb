package ops

import (
	"encoding/json"
	"testing"
)

// A Markdown field holds lines and tab-indented code; a plain string stays one line; neither
// holds other control characters.
func TestToolMarkdownHoldsLines(t *testing.T) {
	tool, err := ParseTool([]byte(`{"name": "notes", "version": "1.0.0", "documentTypes": [{"name": "note",
		"schema": {"type": "object", "properties": {
			"title": {"type": "string"},
			"body": {"type": "string", "contentMediaType": "text/markdown"}}},
		"ops": [{"name": "setTitle", "kind": "set", "path": "title"}, {"name": "setBody", "kind": "set", "path": "body"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tt, _ := tool.Type("note")
	apply := func(op map[string]any) error {
		raw, _ := json.Marshal(op)
		_, err := Apply(tt.Empty(), Request{Ops: []json.RawMessage{raw}})
		return err
	}
	if err := apply(map[string]any{"op": "note.setBody", "body": "# Origins\n\n\tcode\nmore"}); err != nil {
		t.Fatalf("Markdown with lines and a tab: %v", err)
	}
	for _, op := range []map[string]any{
		{"op": "note.setBody", "body": "bell \a"},
		{"op": "note.setBody", "body": "\u202eevil"},
		{"op": "note.setTitle", "title": "two\nlines"},
	} {
		if err := apply(op); err == nil {
			t.Errorf("%v was accepted", op)
		}
	}
}
