package search

import (
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/search"
)

func locations(positions ...uint64) search.TermLocationMap {
	ls := make(search.Locations, len(positions))
	for i, p := range positions {
		ls[i] = &search.Location{Pos: p}
	}
	return search.TermLocationMap{"x": ls}
}

// A word on every line of a long text: the snippet shows its first lines, and the text is
// segmented only that far, not up to the last of its 20,000 hits.
func TestSnippetOfACommonWordReadsTheTextOnlyAsFarAsItShows(t *testing.T) {
	text := strings.Repeat("alpha beta gamma dragon\n", 20000)
	var pos []uint64
	for i := range 20000 {
		pos = append(pos, uint64(4*i+4))
	}
	spans := hitSpans(text, locations(pos...))
	if len(spans) == 0 || len(spans) > 20 {
		t.Fatalf("%d spans, want the few a snippet shows", len(spans))
	}
	got := snippet(text, locations(pos...))
	if !strings.HasPrefix(got, "alpha beta gamma <mark>dragon</mark>\nalpha") || strings.Count(got, "<mark>dragon</mark>") < 5 {
		t.Fatalf("snippet %q", got)
	}
}

// The densest run of hits wins over a lone earlier hit, as long as it starts within
// runReach words of the first hit.
func TestSnippetShowsTheDensestRun(t *testing.T) {
	words := make([]string, 600)
	for i := range words {
		words[i] = "filler"
	}
	for _, p := range []int{3, 150, 152, 154} {
		words[p-1] = "dragon"
	}
	words[599] = "dragon" // beyond the reach of the run: never segmented for
	text := strings.Join(words, " ")
	got := snippet(text, locations(3, 150, 152, 154, 600))
	if strings.Count(got, "<mark>dragon</mark>") != 3 {
		t.Fatalf("snippet %q, want the run of three", got)
	}
	if spans := hitSpans(text, locations(3, 150, 152, 154, 600)); len(spans) != 4 {
		t.Fatalf("%d spans, want 4 (the last hit is past the snippet)", len(spans))
	}
}
