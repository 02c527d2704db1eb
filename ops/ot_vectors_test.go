package ops

import (
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"
)

// The transformation's test vectors, shared with the browser editor's port (static/js/ot.js,
// checked by static/js/ot_test.mjs): the same inputs must give the same outputs on both
// sides, or two people typing in one section would drift apart. Regenerate with
// go test ./ops -run TestOTVectors -update-vectors, then read the diff.
var updateVectors = flag.Bool("update-vectors", false, "rewrite testdata/ot_vectors.json from the Go implementation")

const vectorsFile = "testdata/ot_vectors.json"

// otVectors is the file's shape.
type otVectors struct {
	About string `json:"about"`
	// Canonical: splices in any order, their canonical ascending form, and the text they
	// make of Text.
	Canonical []canonicalVector `json:"canonical"`
	// Transform: two edits of Text rebased over each other, and the text both orders give.
	Transform []transformVector `json:"transform"`
}

type canonicalVector struct {
	Name      string   `json:"name"`
	Text      string   `json:"text"`
	Splices   []Splice `json:"splices"`
	Ascending []Splice `json:"ascending"`
	Result    string   `json:"result"`
}

type transformVector struct {
	Name    string   `json:"name"`
	Text    string   `json:"text"`
	Local   []Splice `json:"local"`
	Applied []Splice `json:"applied"`
	// LocalFirst: where both insert at one point, local's text comes first.
	LocalFirst   bool     `json:"localFirst,omitempty"`
	LocalPrime   []Splice `json:"localPrime"`
	AppliedPrime []Splice `json:"appliedPrime"`
	Result       string   `json:"result"`
}

// vectorInputs are the hand-picked cases, then random ones.
func vectorInputs() ([]canonicalVector, []transformVector) {
	c := []canonicalVector{
		{Name: "one insert", Text: "ab", Splices: []Splice{{1, 0, "x"}}},
		{Name: "replace", Text: "abcdef", Splices: []Splice{{1, 3, "X"}}},
		{Name: "descending splices", Text: "abcdef", Splices: []Splice{{4, 1, "E"}, {1, 1, "B"}}},
		{Name: "insert then delete it", Text: "abc", Splices: []Splice{{1, 0, "xy"}, {1, 2, ""}}},
		{Name: "delete across an earlier insert", Text: "abcdef", Splices: []Splice{{2, 0, "XY"}, {1, 3, ""}}},
		{Name: "adjacent splices merge", Text: "abcdef", Splices: []Splice{{1, 1, "x"}, {2, 1, "y"}}},
		{Name: "emoji", Text: "a😀b", Splices: []Splice{{3, 1, "🎉"}, {0, 1, ""}}},
		{Name: "no-op splice", Text: "ab", Splices: []Splice{{1, 0, ""}}},
		{Name: "newlines", Text: "line\nline", Splices: []Splice{{4, 1, "\n\n"}}},
	}
	tr := []transformVector{
		{Name: "both insert at the same place: applied first", Text: "ab", Local: []Splice{{1, 0, "L"}}, Applied: []Splice{{1, 0, "S"}}},
		{Name: "both insert at the same place: local first", Text: "ab", Local: []Splice{{1, 0, "L"}}, Applied: []Splice{{1, 0, "S"}}, LocalFirst: true},
		{Name: "local first, replacements at one point", Text: "abcd", Local: []Splice{{1, 2, "LL"}}, Applied: []Splice{{1, 1, "S"}}, LocalFirst: true},
		{Name: "insert before insert", Text: "ab", Local: []Splice{{0, 0, "L"}}, Applied: []Splice{{1, 0, "S"}}},
		{Name: "insert inside a deleted range survives", Text: "abcdef", Local: []Splice{{3, 0, "L"}}, Applied: []Splice{{1, 4, ""}}},
		{Name: "delete around an insert keeps it", Text: "abcdef", Local: []Splice{{1, 4, ""}}, Applied: []Splice{{3, 0, "S"}}},
		{Name: "overlapping deletes", Text: "abcdef", Local: []Splice{{1, 3, ""}}, Applied: []Splice{{2, 3, ""}}},
		{Name: "same delete twice", Text: "abc", Local: []Splice{{1, 1, ""}}, Applied: []Splice{{1, 1, ""}}},
		{Name: "replacement over whole-body replacement", Text: "abc", Local: []Splice{{1, 1, "X"}}, Applied: []Splice{{0, 3, "new"}}},
		{Name: "astral text shifts by two", Text: "ab", Local: []Splice{{2, 0, "L"}}, Applied: []Splice{{0, 0, "😀"}}},
		{Name: "replace against insert inside it", Text: "abcdef", Local: []Splice{{2, 2, "X"}}, Applied: []Splice{{3, 0, "Y"}}},
		{Name: "descending local splices", Text: "abcdefgh", Local: []Splice{{6, 1, "G"}, {1, 1, "B"}}, Applied: []Splice{{3, 2, "Z"}}},
		{Name: "empty applied", Text: "abc", Local: []Splice{{1, 0, "x"}}, Applied: []Splice{}},
	}
	r := rand.New(rand.NewPCG(2026, 11))
	g := &textGen{r: r}
	for range 60 {
		text := g.text(r.IntN(16))
		c = append(c, canonicalVector{Name: "random", Text: text, Splices: g.edit(text, 1+r.IntN(6))})
	}
	for i := range 120 {
		text := g.text(r.IntN(16))
		tr = append(tr, transformVector{Name: "random", Text: text, Local: g.edit(text, 1+r.IntN(4)), Applied: g.edit(text, 1+r.IntN(4)), LocalFirst: i%2 == 1})
	}
	return c, tr
}

// computeVectors fills in the outputs with the Go implementation.
func computeVectors(t *testing.T) otVectors {
	c, tr := vectorInputs()
	for i := range c {
		v := &c[i]
		op, err := fromSplices(v.Splices, &v.Text)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		v.Ascending = op.splices()
		v.Result = mustSplice(t, v.Text, v.Splices)
	}
	for i := range tr {
		v := &tr[i]
		v.LocalPrime, v.AppliedPrime = mustTransform(t, v.Local, v.Applied, v.LocalFirst)
		v.Result = mustSplice(t, mustSplice(t, v.Text, v.Applied), v.LocalPrime)
		if other := mustSplice(t, mustSplice(t, v.Text, v.Local), v.AppliedPrime); other != v.Result {
			t.Fatalf("%s: the two orders give %q and %q", v.Name, v.Result, other)
		}
	}
	return otVectors{
		About:     "Shared test vectors for card.editSectionText's transformation (ops/ot.go and static/js/ot.js). Positions are UTF-16 code units. localPrime applies after applied, appliedPrime after local; both give result.",
		Canonical: c,
		Transform: tr,
	}
}

// TestOTVectors checks the Go implementation against the shared vectors.
func TestOTVectors(t *testing.T) {
	got := computeVectors(t)
	if *updateVectors {
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(vectorsFile, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var want otVectors
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Canonical) != len(got.Canonical) || len(want.Transform) != len(got.Transform) {
		t.Fatalf("%s has %d+%d cases, the inputs %d+%d: regenerate it", vectorsFile, len(want.Canonical), len(want.Transform), len(got.Canonical), len(got.Transform))
	}
	for i, w := range want.Canonical {
		if !reflect.DeepEqual(w, got.Canonical[i]) {
			t.Errorf("canonical %d (%s):\n got %+v\nwant %+v", i, w.Name, got.Canonical[i], w)
		}
	}
	for i, w := range want.Transform {
		if !reflect.DeepEqual(w, got.Transform[i]) {
			t.Errorf("transform %d (%s):\n got %+v\nwant %+v", i, w.Name, got.Transform[i], w)
		}
	}
}
