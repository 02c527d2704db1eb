package search

import (
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/search"
)

// hits returns the locations of every occurrence of word in text, as the index reports them.
func hits(text, word string) search.TermLocationMap {
	var ls search.Locations
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			break
		}
		ls = append(ls, &search.Location{Start: uint64(i + j), End: uint64(i + j + len(word))})
		i += j + len(word)
	}
	return search.TermLocationMap{word: ls}
}

// A word on every line of a long text: the snippet shows its first lines, every hit in them
// marked, whatever the length of the text.
func TestSnippetOfACommonWord(t *testing.T) {
	text := strings.Repeat("alpha beta gamma dragon\n", 20000)
	got := snippet(text, hits(text, "dragon"))
	if !strings.HasPrefix(got, "alpha beta gamma <mark>dragon</mark>\nalpha") || strings.Count(got, "<mark>dragon</mark>") < 5 || !strings.HasSuffix(got, "…") {
		t.Fatalf("snippet %q", got)
	}
}

// The densest run of hits wins over a lone earlier one.
func TestSnippetShowsTheDensestRun(t *testing.T) {
	text := "dragon " + strings.Repeat("filler ", 200) + "dragon and dragon and dragon " + strings.Repeat("filler ", 50)
	got := snippet(text, hits(text, "dragon"))
	if strings.Count(got, "<mark>dragon</mark>") != 3 || !strings.HasPrefix(got, "…") {
		t.Fatalf("snippet %q, want the run of three", got)
	}
}
