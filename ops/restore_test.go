package ops

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestRestoreOnlyFromTheService(t *testing.T) {
	doc, _ := Decode("card", []byte(adaCard))
	op := `{"op":"document.restore","version":3,"data":{"name":"Old","sections":[]}}`
	_, err := Apply(doc, Request{Version: 7, Ops: raws([]string{op})})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeUnsupportedOperation {
		t.Fatalf("a client's restore: got %v, want unsupported_operation", err)
	}

	res, err := Apply(doc, Request{Version: 7, Ops: raws([]string{op}), Internal: true})
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "restored", res.Doc.JSON(), `{"name":"Old","aliases":[],"properties":[],"sections":[]}`)
	jsonEqual(t, "applied", res.Applied[0], `{"op":"document.restore","version":3,"data":{"name":"Old","aliases":[],"properties":[],"sections":[]}}`)

	// The op log's form replays to the same content.
	again, err := Replay(doc, 7, res.Applied)
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "replayed", again.JSON(), string(res.Doc.JSON()))

	// The op built by the store is the same op.
	jsonEqual(t, "RestoreOpJSON", RestoreOpJSON(3, res.Doc), string(res.Applied[0]))

	if _, err := Apply(doc, Request{Ops: raws([]string{`{"op":"document.restore","version":3}`}), Internal: true}); err == nil {
		t.Fatal("a restore without data was accepted")
	}
	if _, err := Apply(doc, Request{Ops: raws([]string{`{"op":"document.restore","version":3,"data":{"sections":"x"}}`}), Internal: true}); err == nil {
		t.Fatal("a restore with data of the wrong shape was accepted")
	}
}

func TestSummarize(t *testing.T) {
	card, _ := Decode("card", []byte(`{"sections":[{"id":"sec-a","title":"Biography","body":"x"},{"id":"sec-s","title":"The plot twist","body":"y","secret":true}]}`))
	timeline, _ := Decode("timeline", []byte(`{"events":[{"id":"evt-1","label":"The Sundering","dateMs":0,"description":"","precision":"day"}]}`))
	pins, _ := Decode("map", []byte(`{"image":{"url":"","width":0,"height":0},"pins":[{"id":"pin-1","x":1,"y":2,"label":"Harbour","documentId":""}]}`))
	cases := []struct {
		name   string
		before Document
		ops    []string
		public bool
		want   string
	}{
		{"add event", Empty("timeline"), []string{`{"op":"timeline.addEvent","id":"evt-2","label":"The Sundering","dateMs":0}`}, false, "added event “The Sundering”"},
		{"edit event by its old label", timeline, []string{`{"op":"timeline.updateEvent","id":"evt-1","dateMs":5}`}, false, "edited event “The Sundering”"},
		{"remove event", timeline, []string{`{"op":"timeline.removeEvent","id":"evt-1"}`}, false, "removed event “The Sundering”"},
		{"typing is said once", card, []string{
			`{"op":"card.editSectionText","id":"sec-a","baseVersion":1,"splices":[]}`,
			`{"op":"card.editSectionText","id":"sec-a","baseVersion":1,"splices":[]}`,
		}, false, "edited section “Biography”"},
		{"rename", card, []string{`{"op":"card.rename","name":"Ada"}`}, false, "renamed to “Ada”"},
		{"section added then edited", card, []string{
			`{"op":"card.addSection","id":"sec-n","title":"Early life","body":"","index":2}`,
			`{"op":"card.editSectionText","id":"sec-n","baseVersion":1,"splices":[]}`,
		}, false, "added section “Early life” | edited section “Early life”"},
		{"secret shown to editors", card, []string{`{"op":"card.editSectionText","id":"sec-s","baseVersion":1,"splices":[]}`}, false, "edited section “The plot twist”"},
		{"secret hidden from viewers", card, []string{`{"op":"card.editSectionText","id":"sec-s","baseVersion":1,"splices":[]}`}, true, "edited a secret section"},
		{"a new secret section is not named", card, []string{`{"op":"card.addSection","id":"sec-n","title":"Murderer","body":"","index":2,"secret":true}`}, true, "added a secret section"},
		{"hiding is not named", card, []string{`{"op":"card.setSectionSecret","id":"sec-a","secret":true}`}, true, "hid a section"},
		{"revealing names it", card, []string{`{"op":"card.setSectionSecret","id":"sec-s","secret":false}`}, true, "revealed section “The plot twist”"},
		{"move pin", pins, []string{`{"op":"map.movePin","id":"pin-1","x":3,"y":4}`}, false, "moved pin “Harbour”"},
		{"restore", card, []string{`{"op":"document.restore","version":4,"data":{}}`}, false, "restored version 4"},
		{"many changes", Empty("timeline"), []string{
			`{"op":"timeline.addEvent","id":"evt-a","label":"A","dateMs":0}`,
			`{"op":"timeline.addEvent","id":"evt-b","label":"B","dateMs":0}`,
			`{"op":"timeline.addEvent","id":"evt-c","label":"C","dateMs":0}`,
			`{"op":"timeline.addEvent","id":"evt-d","label":"D","dateMs":0}`,
			`{"op":"timeline.addEvent","id":"evt-e","label":"E","dateMs":0}`,
			`{"op":"timeline.addEvent","id":"evt-f","label":"F","dateMs":0}`,
			`{"op":"timeline.addEvent","id":"evt-g","label":"G","dateMs":0}`,
		}, false, "added event “A” | added event “B” | added event “C” | added event “D” | added event “E” | and 2 more changes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(Summarize(c.before, raws(c.ops), c.public), " | ")
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestPublicRestoreOp(t *testing.T) {
	op := json.RawMessage(`{"op":"document.restore","version":2,"data":{"sections":[{"id":"sec-a","title":"Plot","body":"traitor","secret":true},{"id":"sec-b","title":"Life","body":"x"}]}}`)
	got, ok := PublicRestoreOp("card", op)
	if !ok || strings.Contains(string(got), "traitor") || !strings.Contains(string(got), "Life") {
		t.Fatalf("PublicRestoreOp = %s, %v", got, ok)
	}
	other := json.RawMessage(`{"op":"card.rename","name":"x"}`)
	if got, ok := PublicRestoreOp("card", other); ok || string(got) != string(other) {
		t.Fatalf("another op: %s, %v", got, ok)
	}
}

// A text edit based on a version before a restore is stale: its positions were counted on
// a text the restore replaced.
func TestEditAcrossARestoreIsStale(t *testing.T) {
	doc, _ := Decode("card", []byte(adaCard))
	env := history(5, `{"op":"document.restore","version":2,"data":{"sections":[{"id":"sec-b","title":"Work","body":"Old."}]}}`)
	_, err := Apply(doc, Request{Version: 5, Env: env, Ops: raws([]string{`{"op":"card.editSectionText","id":"sec-b","baseVersion":4,"splices":[{"pos":2,"del":0,"ins":"x"}]}`})})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeStaleBaseVersion || !strings.Contains(e.Message, "restored") {
		t.Fatalf("an edit across a restore: %v, want stale_base_version", err)
	}
	// Based on the restore itself, it applies.
	if _, err := Apply(doc, Request{Version: 5, Env: env, Ops: raws([]string{`{"op":"card.editSectionText","id":"sec-b","baseVersion":5,"splices":[{"pos":2,"del":0,"ins":"x"}]}`})}); err != nil {
		t.Fatal(err)
	}
}
