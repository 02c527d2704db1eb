package ops

import (
	"strings"
	"testing"
)

func TestEcho(t *testing.T) {
	long := strings.Repeat("é", MaxEcho)
	for in, want := range map[string]string{
		"":           "",
		"short":      "short",
		long:         long,
		long + "x":   long + "…",
		long + "xyz": long + "…",
	} {
		if got := Echo(in); got != want {
			t.Errorf("Echo(%d runes) = %q, want %q", len([]rune(in)), got, want)
		}
	}
}

// TestLongValuesAreCutShort: an error repeats at most MaxEcho characters of a value the
// client sent, however long it is.
func TestLongValuesAreCutShort(t *testing.T) {
	huge := strings.Repeat("x", 100_000)
	for _, tc := range []struct{ docType, op string }{
		{"timeline", `{"op":"` + huge + `"}`},
		{"timeline", `{"op":"timeline.addEvent","label":"a","dateMs":1,"` + huge + `":1}`},
		{"timeline", `{"op":"timeline.addEvent","label":"a","dateMs":1,"` + huge + `":1,"` + huge + `":2}`},
		{"timeline", `{"op":"timeline.addEvent","label":"a","dateMs":1.` + strings.Repeat("5", 100_000) + `}`},
		{"timeline", `{"op":"timeline.addEvent","label":"a","dateMs":1,"precision":"` + huge + `"}`},
		{"timeline", `{"op":"timeline.removeEvent","id":"` + huge + `"}`},
		{"animator", `{"op":"animator.setClips","clips":[{"id":"a","` + huge + `":1}]}`},
		{"animator", `{"op":"animator.setActiveClip","clipId":"` + huge + `"}`},
		{"card", `{"op":"card.setAliases","aliases":["` + strings.Repeat("y", 150) + `","` + strings.Repeat("y", 150) + `"]}`},
	} {
		_, err := Apply(Empty(tc.docType), Request{Ops: raws([]string{tc.op})})
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%.80s: %v, want an *Error", tc.op, err)
			continue
		}
		if len(e.Message) > 300 || len(e.Field) > 100 || !strings.Contains(e.Message, "…") {
			t.Errorf("%.80s: message of %d bytes, field of %d: %.200s", tc.op, len(e.Message), len(e.Field), e.Message)
		}
		if id, _ := e.Details["id"].(string); len(id) > 100 {
			t.Errorf("%.80s: details id of %d bytes", tc.op, len(id))
		}
	}
}
