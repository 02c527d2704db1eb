package ops

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkApplyCard applies the write bench's batches: n card.setProperty ops to a card with
// ten properties.
func BenchmarkApplyCard(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("%d ops", n), func(b *testing.B) {
			card := Empty("card").(*Card)
			for k := range 10 {
				card.Properties = append(card.Properties, Property{Key: fmt.Sprintf("k%d", k), Value: "value"})
			}
			ops := make([]json.RawMessage, n)
			for k := range ops {
				ops[k] = json.RawMessage(fmt.Sprintf(`{"key":"k%d","op":"card.setProperty","value":"value 1 of property %d"}`, k, k))
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Apply(card, Request{Version: 1, Ops: ops}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRebaseText applies a card.editSectionText made 50 versions ago: its splices are
// rebased over the typing of two writers in two sections since (the history is read once per
// request, its changes to the edited section converted once).
func BenchmarkRebaseText(b *testing.B) {
	card := Empty("card").(*Card)
	card.Sections = []Section{{ID: "sec-a", Title: "A", Body: "start"}, {ID: "sec-b", Title: "B", Body: "start"}}
	var history []Batch
	for v := int64(1); v <= 50; v++ {
		sec := "sec-a"
		if v%2 == 0 {
			sec = "sec-b"
		}
		op := fmt.Sprintf(`{"op":"card.editSectionText","id":%q,"baseVersion":%d,"splices":[{"pos":0,"del":0,"ins":"x"}]}`, sec, v-1)
		history = append(history, Batch{Version: v, Ops: []json.RawMessage{json.RawMessage(op)}})
		card.Sections[(v+1)%2].Body = "x" + card.Sections[(v+1)%2].Body
	}
	env := Env{History: func(since int64) ([]Batch, error) { return history[since:], nil }}
	ops := []json.RawMessage{json.RawMessage(`{"op":"card.editSectionText","id":"sec-a","baseVersion":0,"splices":[{"pos":5,"ins":"!"}]}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Apply(card, Request{Version: 50, Ops: ops, Env: env}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyTool applies n set ops to a faction (a tool type) with ten relations: the
// generic engine's cost next to BenchmarkApplyCard's, the whole document validated once per
// request.
func BenchmarkApplyTool(b *testing.B) {
	tt := factions(b)
	res, err := Apply(tt.Empty(), Request{Ops: func() []json.RawMessage {
		var out []json.RawMessage
		for k := range 10 {
			out = append(out, json.RawMessage(fmt.Sprintf(`{"op":"faction.addRelation","faction":"doc%d","stance":"ally","notes":"note %d"}`, k, k)))
		}
		return out
	}(), Env: Env{NewID: counter()}})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("%d ops", n), func(b *testing.B) {
			ops := make([]json.RawMessage, n)
			for k := range ops {
				ops[k] = json.RawMessage(fmt.Sprintf(`{"op":"faction.setMotto","motto":"motto %d"}`, k))
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Apply(res.Doc, Request{Version: 1, Ops: ops}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEditLongSection types one character at the end of a section of ops.MaxSectionBody
// characters: what every save of the web editor costs in a long chapter.
func BenchmarkEditLongSection(b *testing.B) {
	card := Empty("card").(*Card)
	body := strings.Repeat("The tide came in over the sunken gate. ", MaxSectionBody/39)
	card.Sections = []Section{{ID: "sec-a", Title: "A", Body: body}}
	ops := []json.RawMessage{json.RawMessage(fmt.Sprintf(`{"op":"card.editSectionText","id":"sec-a","baseVersion":1,"splices":[{"pos":%d,"ins":"!"}]}`, len(body)))}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Apply(card, Request{Version: 1, Ops: ops}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAddEventLongTimeline adds an event to a timeline of 500 (the load's timelines):
// the new event is put in its place, not the timeline sorted again.
func BenchmarkAddEventLongTimeline(b *testing.B) {
	tl := Empty("timeline").(*Timeline)
	for i := range 500 {
		tl.Events = append(tl.Events, Event{ID: fmt.Sprintf("evt-%08d", i), Label: fmt.Sprintf("Event %d of the long war", i),
			DateMs: int64(i) * 1e9, Description: "A battle at the ford, where the river turned red and the banners fell."})
	}
	ops := []json.RawMessage{json.RawMessage(`{"op":"timeline.addEvent","label":"New","dateMs":5}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Apply(tl, Request{Version: 1, Ops: ops}); err != nil {
			b.Fatal(err)
		}
	}
}
