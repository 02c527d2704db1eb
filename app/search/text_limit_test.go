package search_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/search"
)

// Only the first search.MaxIndexedText bytes of a document's text are indexed: a word near
// the start is found, a word beyond the limit is not.
func TestTextBeyondLimitIsNotIndexed(t *testing.T) {
	w := newWorld(t)
	id := w.doc("Chronicle", "card")
	// Sections of about 49,000 characters (a body holds 50,000) until the text is well past
	// the limit.
	filler := strings.Repeat("lorem ipsé ", 49000/11)
	sections := []any{map[string]any{"op": "card.addSection", "title": "Start", "body": "aldebaranth" + filler}}
	for n := len(filler); n < search.MaxIndexedText+len(filler); n += len(filler) {
		sections = append(sections, map[string]any{"op": "card.addSection", "title": "More", "body": filler})
	}
	sections = append(sections, map[string]any{"op": "card.addSection", "title": "End", "body": "zanzibarqua"})
	w.s.Must(w.s.Post(w.ann.Key, "/api/v1/worlds/"+w.id+"/documents/"+id+"/content", map[string]any{"ops": sections}), http.StatusOK)

	if r := w.search(t, "aldebaranth", total(1)); r.TotalItems != 1 || r.Items[0].ID != id {
		t.Fatalf("a word near the start: %+v", r)
	}
	if r := w.search(t, "zanzibarqua", total(0)); r.TotalItems != 0 {
		t.Fatalf("a word beyond the limit was indexed: %+v", r)
	}
}
