package search

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// indexedText cuts at MaxIndexedText bytes, backing off to the start of a character.
func TestIndexedTextCutsAtACharacter(t *testing.T) {
	short := strings.Repeat("é", 10)
	if got := indexedText(short); got != short {
		t.Fatalf("a short text changed: %q", got)
	}
	// "a" then "é"s: byte MaxIndexedText falls in the middle of an "é".
	long := "a" + strings.Repeat("é", MaxIndexedText)
	got := indexedText(long)
	if len(got) != MaxIndexedText-1 || !utf8.ValidString(got) || !strings.HasPrefix(long, got) {
		t.Fatalf("cut to %d bytes (valid UTF-8: %v), want %d", len(got), utf8.ValidString(got), MaxIndexedText-1)
	}
}
