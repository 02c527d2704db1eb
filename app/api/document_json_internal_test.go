package api

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/loreweave/loreweave/ops"
)

// A document read is written as encoding/json's Encoder writes it, byte for byte, with the
// stored data copied as it is; data with a character the encoder escapes goes through it.
func TestDocumentWithContentJSON(t *testing.T) {
	tl := &ops.Timeline{}
	res, err := ops.Apply(tl, ops.Request{Ops: []json.RawMessage{
		json.RawMessage(`{"op":"timeline.addEvent","label":"The <b>fall</b> & \"rise\" of Eldoria\u2028é","dateMs":12}`),
	}})
	if err != nil {
		t.Fatal(err)
	}
	data := res.Doc.JSON()
	meta := DocumentJSON{ID: "d1", WorldID: "w1", Name: "Annals <1>", DocumentType: "timeline", Created: "2026-11-25T00:00:00Z"}
	for _, tc := range []struct {
		data    json.RawMessage
		fastWay bool
	}{
		{data, true},
		{json.RawMessage(`{"events":[{"label":"a<b"}]}`), false}, // not as ops write it
		{json.RawMessage(`{"events": [] }`), true},               // valid, not compact: copied as is
		{nil, false},
	} {
		d := DocumentWithContentJSON{DocumentJSON: meta, Version: 3, Content: ContentJSON{Data: tc.data, Source: "# Annals\n<i>", Text: "Annals\nThe fall"}}
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(d); err != nil {
			t.Fatal(err)
		}
		got, ok := d.appendJSON(nil)
		if ok != tc.fastWay {
			t.Fatalf("data %s: copied %v, want %v", tc.data, ok, tc.fastWay)
		}
		if !ok {
			continue
		}
		if compact := !bytes.Contains(tc.data, []byte(" ")); compact && !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("data %s:\n got %s\nwant %s", tc.data, got, want.Bytes())
		}
		var back DocumentWithContentJSON
		if err := json.Unmarshal(got, &back); err != nil || back.Version != 3 || back.Name != meta.Name || back.Content.Source != d.Content.Source {
			t.Fatalf("data %s: %s does not read back (%v)", tc.data, got, err)
		}
	}
}
