package ops

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestApplySplices(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		splices []Splice
		want    string
		field   string
	}{
		{"insert at start", "world", []Splice{{0, 0, "hello "}}, "hello world", ""},
		{"insert at end", "ab", []Splice{{2, 0, "c"}}, "abc", ""},
		{"replace", "abcdef", []Splice{{1, 3, "X"}}, "aXef", ""},
		{"sequential", "abc", []Splice{{0, 1, ""}, {0, 1, "Z"}}, "Zc", ""},
		{"emoji counts two units", "a😀b", []Splice{{3, 1, "c"}}, "a😀c", ""},
		{"delete emoji", "a😀b", []Splice{{1, 2, ""}}, "ab", ""},
		{"accent counts one unit", "éa", []Splice{{1, 1, "b"}}, "éb", ""},
		{"pos inside pair", "a😀b", []Splice{{2, 0, "x"}}, "", "splices[0].pos"},
		{"del ends inside pair", "a😀b", []Splice{{0, 2, ""}}, "", "splices[0].del"},
		{"pos past end", "ab", []Splice{{3, 0, "x"}}, "", "splices[0].pos"},
		{"del past end", "ab", []Splice{{1, 2, ""}}, "", "splices[0].del"},
		{"second splice checked on result", "ab", []Splice{{0, 2, ""}, {1, 0, "x"}}, "", "splices[1].pos"},
		{"negative pos", "ab", []Splice{{-1, 0, "x"}}, "", "splices[0].pos"},
		{"negative del", "ab", []Splice{{0, -1, ""}}, "", "splices[0].del"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ApplySplices(tc.text, tc.splices)
			if tc.field != "" {
				e, ok := err.(*Error)
				if !ok || e.Code != CodeInvalidField || e.Field != tc.field {
					t.Fatalf("err = %v, want invalid_field on %s", err, tc.field)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestTransformSplices(t *testing.T) {
	cases := []struct {
		name                string
		text                string
		local, applied      []Splice
		wantLocal, wantText string
		localFirst          bool
	}{
		{"both insert at the same place: applied first", "ab", []Splice{{1, 0, "L"}}, []Splice{{1, 0, "S"}}, `[{"pos":2,"del":0,"ins":"L"}]`, "aSLb", false},
		{"both insert at the same place: local first", "ab", []Splice{{1, 0, "L"}}, []Splice{{1, 0, "S"}}, `[{"pos":1,"del":0,"ins":"L"}]`, "aLSb", true},
		{"local first, inserts elsewhere unchanged", "abc", []Splice{{1, 0, "L"}}, []Splice{{2, 0, "S"}}, `[{"pos":1,"del":0,"ins":"L"}]`, "aLbSc", true},
		{"local first, an insert in a deleted range survives", "abcdef", []Splice{{3, 0, "L"}}, []Splice{{1, 4, ""}}, `[{"pos":1,"del":0,"ins":"L"}]`, "aLf", true},
		{"insert before insert", "ab", []Splice{{0, 0, "L"}}, []Splice{{1, 0, "S"}}, `[{"pos":0,"del":0,"ins":"L"}]`, "LaSb", false},
		{"insert inside a deleted range survives", "abcdef", []Splice{{3, 0, "L"}}, []Splice{{1, 4, ""}}, `[{"pos":1,"del":0,"ins":"L"}]`, "aLf", false},
		{"delete around an insert keeps it", "abcdef", []Splice{{1, 4, ""}}, []Splice{{3, 0, "S"}}, `[{"pos":1,"del":2,"ins":""},{"pos":2,"del":2,"ins":""}]`, "aSf", false},
		{"overlapping deletes", "abcdef", []Splice{{1, 3, ""}}, []Splice{{2, 3, ""}}, `[{"pos":1,"del":1,"ins":""}]`, "af", false},
		{"same delete twice", "abc", []Splice{{1, 1, ""}}, []Splice{{1, 1, ""}}, `[]`, "ac", false},
		{"replacement over whole-body replacement", "abc", []Splice{{1, 1, "X"}}, []Splice{{0, 3, "new"}}, `[{"pos":3,"del":0,"ins":"X"}]`, "newX", false},
		{"astral text shifts by two", "ab", []Splice{{2, 0, "L"}}, []Splice{{0, 0, "😀"}}, `[{"pos":4,"del":0,"ins":"L"}]`, "😀abL", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l2, a2, err := TransformSplices(tc.local, tc.applied, tc.localFirst)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(mustJSON(l2)); got != tc.wantLocal {
				t.Errorf("local' = %s, want %s", got, tc.wantLocal)
			}
			viaApplied := mustSplice(t, mustSplice(t, tc.text, tc.applied), l2)
			viaLocal := mustSplice(t, mustSplice(t, tc.text, tc.local), a2)
			if viaApplied != tc.wantText || viaLocal != tc.wantText {
				t.Errorf("applied then local' = %q, local then applied' = %q, want %q", viaApplied, viaLocal, tc.wantText)
			}
		})
	}
}

func mustTransform(t *testing.T, local, applied []Splice, localFirst bool) ([]Splice, []Splice) {
	t.Helper()
	l, a, err := TransformSplices(local, applied, localFirst)
	if err != nil {
		t.Fatalf("TransformSplices(%v, %v): %v", local, applied, err)
	}
	return l, a
}

func mustSplice(t *testing.T, text string, s []Splice) string {
	t.Helper()
	out, err := ApplySplices(text, s)
	if err != nil {
		t.Fatalf("ApplySplices(%q, %v): %v", text, s, err)
	}
	return out
}

// TestTransformConverges checks, on random edits, that both orders give the same text.
func TestTransformConverges(t *testing.T) {
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 7))
		g := &textGen{r: r}
		text := g.text(r.IntN(12))
		local := g.edit(text, 1+r.IntN(3))
		applied := g.edit(text, 1+r.IntN(3))
		l2, a2 := mustTransform(t, local, applied, seed%2 == 1)
		x := mustSplice(t, mustSplice(t, text, applied), l2)
		y := mustSplice(t, mustSplice(t, text, local), a2)
		if x != y {
			t.Fatalf("seed %d: %q local %v applied %v: %q != %q", seed, text, local, applied, x, y)
		}
	}
}

func TestSectionSplices(t *testing.T) {
	cases := []struct {
		op   string
		want []Splice
	}{
		{`{"op":"card.editSectionText","id":"sec-1","baseVersion":3,"splices":[{"pos":1,"del":0,"ins":"x"}]}`, []Splice{{1, 0, "x"}}},
		{`{"op":"card.editSectionText","id":"sec-2","baseVersion":3,"splices":[{"pos":1,"del":0,"ins":"x"}]}`, nil},
		{`{"op":"card.updateSection","id":"sec-1","body":"new","previousBodyLength":5}`, []Splice{{0, 5, "new"}}},
		{`{"op":"card.updateSection","id":"sec-1","title":"T"}`, nil},
		{`{"op":"card.addSection","id":"sec-1","title":"T","body":"hi","index":0}`, []Splice{{0, 0, "hi"}}},
		{`{"op":"card.addSection","id":"sec-1","title":"T","body":"","index":0}`, nil},
		{`{"op":"card.rename","name":"x"}`, nil},
	}
	for _, tc := range cases {
		got, err := SectionSplices(json.RawMessage(tc.op), "sec-1")
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SectionSplices(%s) = %v, %v; want %v", tc.op, got, err, tc.want)
		}
	}
	if _, err := SectionSplices(json.RawMessage(`{`), "sec-1"); err == nil {
		t.Error("SectionSplices accepted malformed JSON")
	}
}

// textGen makes random text and edits. Every insert carries one marker rune never used
// before, so the test can tell which inserted characters must survive.
type textGen struct {
	r       *rand.Rand
	markers int
}

var filler = []string{"a", "b", "c", "é", "😀", " ", "\n"}

// isMarker reports whether r is a marker rune: from a BMP block or an astral one.
func isMarker(r rune) bool {
	return (r >= 0x4E00 && r < 0x4E00+0x5000) || (r >= 0x20000 && r < 0x20000+0x5000)
}

func (g *textGen) text(n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(filler[g.r.IntN(len(filler))])
	}
	return b.String()
}

func (g *textGen) insert() string {
	g.markers++
	m := rune(0x4E00 + g.markers)
	if g.markers%2 == 0 {
		m = rune(0x20000 + g.markers)
	}
	return g.text(g.r.IntN(3)) + string(m) + g.text(g.r.IntN(3))
}

// boundaries returns the UTF-16 positions of text that are not inside a surrogate pair.
func boundaries(text string) []int {
	b := []int{0}
	n := 0
	for _, r := range text {
		n += len(utf16.Encode([]rune{r}))
		b = append(b, n)
	}
	return b
}

// edit returns n random splices on text, each valid on the text the previous one left.
func (g *textGen) edit(text string, n int) []Splice {
	var out []Splice
	for range n {
		b := boundaries(text)
		i := g.r.IntN(len(b))
		sp := Splice{Pos: b[i]}
		if len(b) > i+1 && g.r.IntN(2) == 0 {
			sp.Del = b[min(len(b)-1, i+1+g.r.IntN(4))] - b[i]
		}
		if sp.Del == 0 || g.r.IntN(3) == 0 {
			sp.Ins = g.insert()
		}
		out = append(out, sp)
		text, _ = ApplySplices(text, []Splice{sp})
	}
	return out
}

// deleted returns the marker runes the splices delete from text.
func deletedMarkers(text string, splices []Splice) []rune {
	var out []rune
	for _, sp := range splices {
		u := utf16.Encode([]rune(text))
		for _, r := range string(utf16.Decode(u[sp.Pos : sp.Pos+sp.Del])) {
			if isMarker(r) {
				out = append(out, r)
			}
		}
		text, _ = ApplySplices(text, []Splice{sp})
	}
	return out
}

// otClient is a browser editor: its text, the edit the server has not acknowledged yet and
// the edits made since, rebased over the server's ops as they arrive.
type otClient struct {
	id       int
	name     string // its client id
	text     string
	version  int64
	inflight []Splice // nil when nothing is in flight
	pending  []Splice
	outbox   []otEdit    // to the server
	inbox    []otMessage // from the server
}

type otEdit struct {
	base    int64
	splices []Splice
}

type otMessage struct {
	from  int // client id, or -1 for the server-side actor
	batch Batch
}

// send puts the pending edits in flight when nothing is.
func (c *otClient) send() {
	if c.inflight != nil || len(c.pending) == 0 {
		return
	}
	c.inflight, c.pending = c.pending, nil
	c.outbox = append(c.outbox, otEdit{c.version, c.inflight})
}

func (c *otClient) receive(t *testing.T, m otMessage) {
	c.version = m.batch.Version
	if m.from == c.id {
		c.inflight = nil
		c.send()
		return
	}
	for _, op := range m.batch.Ops {
		s, err := SectionSplices(op, "sec-1")
		if err != nil {
			t.Fatal(err)
		}
		if len(s) == 0 {
			continue
		}
		first := c.name < m.batch.ClientID
		if c.inflight != nil {
			c.inflight, s = mustTransform(t, c.inflight, s, first)
		}
		c.pending, s = mustTransform(t, c.pending, s, first)
		c.text = mustSplice(t, c.text, s)
	}
}

// otServer holds the card, its version, its op log and the body at every version.
type otServer struct {
	doc     Document
	version int64
	log     []Batch
	bodies  []string
}

func (s *otServer) apply(t *testing.T, ops ...string) Batch {
	t.Helper()
	return s.applyAs(t, "", ops...)
}

// applyAs applies a request sent by the client with id client.
func (s *otServer) applyAs(t *testing.T, client string, ops ...string) Batch {
	t.Helper()
	raws := make([]json.RawMessage, len(ops))
	for i, op := range ops {
		raws[i] = json.RawMessage(op)
	}
	ids := 0
	res, err := Apply(s.doc, Request{Version: s.version, Ops: raws, ClientID: client, Env: Env{
		NewID: func(string) string { ids++; return fmt.Sprint(ids) },
		History: func(since int64) ([]Batch, error) {
			return s.log[since:], nil
		},
	}})
	if err != nil {
		t.Fatalf("server rejected %v at version %d: %v", ops, s.version, err)
	}
	s.doc, s.version = res.Doc, s.version+1
	b := Batch{Version: s.version, Ops: res.Applied, ClientID: client}
	s.log = append(s.log, b)
	s.bodies = append(s.bodies, s.body())
	return b
}

func (s *otServer) body() string {
	if c := s.doc.(*Card); len(c.Sections) > 0 {
		return c.Sections[0].Body
	}
	return ""
}

func editOp(base int64, splices []Splice) string {
	return fmt.Sprintf(`{"op":"card.editSectionText","id":"sec-1","baseVersion":%d,"splices":%s}`, base, mustJSON(splices))
}

// TestConcurrentEditing simulates a server and several clients typing in one section in
// random interleavings, with a server-side actor that replaces the body and sends edits made
// on old versions. After every message is delivered all texts must be equal, and every
// inserted marker must be there exactly once unless an edit that had seen it deleted it.
func TestConcurrentEditing(t *testing.T) {
	scenarios := 2000
	if testing.Short() {
		scenarios = 200
	}
	for seed := range uint64(scenarios) {
		runScenario(t, seed)
		if t.Failed() {
			return
		}
	}
}

func runScenario(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 42))
	g := &textGen{r: r}
	inserted := map[rune]bool{}
	deleted := map[rune]bool{}
	note := func(ins string) {
		for _, m := range ins {
			if isMarker(m) {
				inserted[m] = true
			}
		}
	}
	noteEdit := func(text string, splices []Splice) {
		for _, sp := range splices {
			note(sp.Ins)
		}
		for _, m := range deletedMarkers(text, splices) {
			deleted[m] = true
		}
	}

	s := &otServer{doc: Empty("card"), bodies: []string{""}}
	initial := g.insert()
	note(initial)
	s.apply(t, fmt.Sprintf(`{"op":"card.addSection","title":"Notes","body":%q}`, initial))
	clients := make([]*otClient, 3+r.IntN(3))
	for i := range clients {
		clients[i] = &otClient{id: i, name: fmt.Sprintf("tab-%d", i), text: initial, version: s.version}
	}
	broadcast := func(from int, b Batch) {
		for _, c := range clients {
			c.inbox = append(c.inbox, otMessage{from, b})
		}
	}

	steps := 40 + r.IntN(120)
	for step := 0; ; step++ {
		done := step >= steps
		var ready []func()
		for _, c := range clients {
			if !done && len(utf16.Encode([]rune(c.text))) < 400 {
				ready = append(ready, func() {
					e := g.edit(c.text, 1+r.IntN(3))
					noteEdit(c.text, e)
					c.text = mustSplice(t, c.text, e)
					c.pending = append(c.pending, e...)
					c.send()
				})
			}
			if len(c.outbox) > 0 {
				ready = append(ready, func() {
					e := c.outbox[0]
					c.outbox = c.outbox[1:]
					b := s.applyAs(t, c.name, editOp(e.base, e.splices))
					broadcast(c.id, b)
				})
			}
			if len(c.inbox) > 0 {
				ready = append(ready, func() {
					m := c.inbox[0]
					c.inbox = c.inbox[1:]
					c.receive(t, m)
				})
			}
		}
		if !done && r.IntN(25) == 0 {
			ready = append(ready, func() {
				// Replace the whole body, as an API user with card.updateSection.
				body := g.insert()
				note(body)
				for _, m := range s.body() {
					if isMarker(m) {
						deleted[m] = true
					}
				}
				broadcast(-1, s.apply(t, fmt.Sprintf(`{"op":"card.updateSection","id":"sec-1","body":%q}`, body)))
			})
		}
		if !done && r.IntN(15) == 0 {
			ready = append(ready, func() {
				// Two edits in one request, both made on the same old version.
				v := 1 + r.Int64N(s.version)
				old := s.bodies[v]
				e1, e2 := g.edit(old, 1), g.edit(old, 1+r.IntN(2))
				noteEdit(old, e1)
				noteEdit(old, e2)
				broadcast(-1, s.apply(t, editOp(v, e1), editOp(v, e2)))
			})
		}
		if len(ready) == 0 {
			break
		}
		ready[r.IntN(len(ready))]()
		if t.Failed() {
			t.Logf("seed %d, step %d", seed, step)
			return
		}
	}

	want := s.body()
	for _, c := range clients {
		if c.text != want {
			t.Fatalf("seed %d: client %d has %q, server has %q", seed, c.id, c.text, want)
		}
	}
	seen := map[rune]int{}
	for _, m := range want {
		if isMarker(m) {
			seen[m]++
		}
	}
	for m := range inserted {
		switch {
		case deleted[m] && seen[m] != 0:
			t.Fatalf("seed %d: marker %U was deleted but is still there in %q", seed, m, want)
		case !deleted[m] && seen[m] != 1:
			t.Fatalf("seed %d: marker %U appears %d times in %q, want once", seed, m, seen[m], want)
		}
	}
}

// TestTypingAtOnePointKeepsWordsWhole: two people type a word each, letter by letter, at the
// same point of a section, their edits crossing in every order: each word ends up in one
// piece. (Ties settled by arrival order put one writer's next letters now before, now after
// the other's: "[a {blp" for "[alp" and " {b".)
func TestTypingAtOnePointKeepsWordsWhole(t *testing.T) {
	words := []string{"[alpha one]", " {beta two}"}
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 9))
		s := &otServer{doc: Empty("card"), bodies: []string{""}}
		s.apply(t, `{"op":"card.addSection","title":"Notes","body":"Hello."}`)
		type typist struct {
			*otClient
			word   string
			cursor int // in UTF-16 units (the words are ASCII)
		}
		names := []string{"tab-b", "tab-a"} // the first writer has the greater id in half the runs
		if seed%2 == 0 {
			names[0], names[1] = names[1], names[0]
		}
		var ts []*typist
		for i, w := range words {
			ts = append(ts, &typist{otClient: &otClient{id: i, name: names[i], text: "Hello.", version: s.version}, word: w, cursor: 6})
		}
		for {
			var ready []func()
			for _, c := range ts {
				if len(c.word) > 0 {
					ready = append(ready, func() {
						sp := Splice{Pos: c.cursor, Ins: c.word[:1]}
						c.word = c.word[1:]
						c.text = mustSplice(t, c.text, []Splice{sp})
						c.cursor++
						c.pending = append(c.pending, sp)
						c.send()
					})
				}
				if len(c.outbox) > 0 {
					ready = append(ready, func() {
						e := c.outbox[0]
						c.outbox = c.outbox[1:]
						b := s.applyAs(t, c.name, editOp(e.base, e.splices))
						for _, o := range ts {
							o.inbox = append(o.inbox, otMessage{c.id, b})
						}
					})
				}
				if len(c.inbox) > 0 {
					ready = append(ready, func() {
						m := c.inbox[0]
						c.inbox = c.inbox[1:]
						before := c.text
						c.receive(t, m)
						if m.from != c.id {
							// The editor keeps its cursor before text inserted right at it.
							c.cursor = mapCursor(before, c.text, c.cursor)
						}
					})
				}
			}
			if len(ready) == 0 {
				break
			}
			ready[r.IntN(len(ready))]()
		}
		got := s.body()
		for _, c := range ts {
			if c.text != got {
				t.Fatalf("seed %d: %q and the server's %q", seed, c.text, got)
			}
		}
		for _, w := range words {
			if !strings.Contains(got, w) {
				t.Fatalf("seed %d: %q does not hold %q in one piece", seed, got, w)
			}
		}
	}
}

// mapCursor moves a cursor at pos of before to after, where after is before with one run of
// text inserted (a remote edit of these typists inserts one run): a cursor right at the
// insertion point stays before the new text.
func mapCursor(before, after string, pos int) int {
	i := 0
	for i < len(before) && i < len(after) && before[i] == after[i] {
		i++
	}
	if pos <= i {
		return pos
	}
	return pos + len(after) - len(before)
}

// naiveApply applies splices one at a time, the obvious quadratic way: the oracle for
// fromSplices and applyOp.
func naiveApply(text string, splices []Splice) (string, bool) {
	u := utf16.Encode([]rune(text))
	for _, sp := range splices {
		if sp.Pos < 0 || sp.Del < 0 || sp.Pos+sp.Del > len(u) {
			return "", false
		}
		for _, p := range []int{sp.Pos, sp.Pos + sp.Del} {
			if p > 0 && p < len(u) && u[p] >= 0xDC00 && u[p] <= 0xDFFF {
				return "", false
			}
		}
		ins := utf16.Encode([]rune(sp.Ins))
		u = append(u[:sp.Pos:sp.Pos], append(ins, u[sp.Pos+sp.Del:]...)...)
	}
	return string(utf16.Decode(u)), true
}

// TestCanonicalForm checks, on random edits, that an edit's canonical form applies like its
// splices one by one, goes back to ascending splices that give the same canonical form, and
// that the same edit made of other splices has the same canonical form.
func TestCanonicalForm(t *testing.T) {
	for seed := range uint64(5000) {
		r := rand.New(rand.NewPCG(seed, 11))
		g := &textGen{r: r}
		text := g.text(r.IntN(20))
		splices := g.edit(text, 1+r.IntN(8))
		want, ok := naiveApply(text, splices)
		if !ok {
			t.Fatalf("seed %d: the generator made an invalid edit", seed)
		}
		got, err := ApplySplices(text, splices)
		if err != nil || got != want {
			t.Fatalf("seed %d: %q %v: got %q, %v; want %q", seed, text, splices, got, err, want)
		}
		op, err := fromSplices(splices, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		asc := op.splices()
		for i := 1; i < len(asc); i++ {
			if asc[i].Pos <= asc[i-1].Pos+utf16Len(asc[i-1].Ins) {
				t.Fatalf("seed %d: splices %v are not ascending", seed, asc)
			}
		}
		if again, _ := naiveApply(text, asc); again != want {
			t.Fatalf("seed %d: ascending form %v gives %q, want %q", seed, asc, again, want)
		}
		op2, err := fromSplices(asc, &text)
		if err != nil || !reflect.DeepEqual(op2.splices(), asc) {
			t.Fatalf("seed %d: ascending form %v round-trips to %v, %v", seed, asc, op2.splices(), err)
		}
	}
}

// TestRebaseCostIsLinear edits a section with 1,000 splices over 400 versions of 1,000
// splices each, and checks the memory the rebase allocates against a budget linear in the
// splices involved (the pairwise algorithm this replaced allocated for every pair of a local
// and a concurrent splice: gigabytes here, and a minute of CPU). Ten such ops in one request
// pass the rebase budget and are refused as stale without doing the work; on the current
// version, with nothing to rebase over but each other, they are accepted.
func TestRebaseCostIsLinear(t *testing.T) {
	const versions, perVersion, local = 400, 1000, 1000
	body := strings.Repeat("abcdefghij", 3000)
	card := &Card{Sections: []Section{{ID: "sec-1", Title: "T", Body: body}}}
	var log []Batch
	for v := range int64(versions) {
		// Every concurrent change replaces one character every 29 units, ascending.
		s := make([]Splice, perVersion)
		for i := range s {
			s[i] = Splice{Pos: i * 29, Del: 1, Ins: "x"}
		}
		log = append(log, Batch{Version: v + 1, Ops: []json.RawMessage{json.RawMessage(editOp(v, s))}})
		var err error
		if card.Sections[0].Body, err = ApplySplices(card.Sections[0].Body, s); err != nil {
			t.Fatal(err)
		}
	}
	// The local edit's splices go from the end to the start: the slow path of fromSplices.
	splices := make([]Splice, local)
	for i := range splices {
		splices[i] = Splice{Pos: (local - i) * 23, Del: 1, Ins: "YZ"}
	}
	env := Env{History: func(since int64) ([]Batch, error) { return log[since:], nil }}
	run := func(base int64, n int) (uint64, error) {
		ops := make([]json.RawMessage, n)
		for i := range ops {
			ops[i] = json.RawMessage(editOp(base, splices))
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Apply(card, Request{Version: versions, Ops: ops, Env: env})
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, err
	}
	// Per splice read from the op log or the request (JSON decoding included), and per
	// copy of the body.
	budget := func(historySplices, requestSplices, bodies int) uint64 {
		return uint64(historySplices+requestSplices)*600 + uint64(bodies*len(body))*4
	}
	cases := []struct {
		name  string
		base  int64
		n     int
		stale bool
		limit uint64
	}{
		{"one op over 400 versions", 0, 1, false, budget(versions*perVersion, local, 1)},
		{"ten ops over 400 versions", 0, 10, true, budget(versions*perVersion, 10*local, 1)},
		{"ten ops on the current version", versions, 10, false, budget(0, 10*local+45*local, 10)},
	}
	for _, tc := range cases {
		got, err := run(tc.base, tc.n)
		if tc.stale {
			if e, ok := err.(*Error); !ok || e.Code != CodeStaleBaseVersion || !strings.Contains(e.Message, "too large to rebase") {
				t.Fatalf("%s: err = %v, want stale_base_version for the rebase budget", tc.name, err)
			}
		} else if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got > tc.limit {
			t.Errorf("%s: allocated %d bytes, budget %d", tc.name, got, tc.limit)
		} else {
			t.Logf("%s: allocated %d bytes of a %d budget", tc.name, got, tc.limit)
		}
	}
}

// FuzzUnitCursor: a unitCursor says a position falls inside a surrogate pair exactly when
// the text's UTF-16 form has a low surrogate there, for positions in any order; utf16Len and
// advance agree with the UTF-16 form (their ASCII fast paths included).
func FuzzUnitCursor(f *testing.F) {
	f.Add("a😀b😀😀c", []byte{0, 1, 2, 3, 4, 9, 2, 7, 8, 30})
	f.Add("", []byte{0, 1})
	f.Add("\xff😀\xc3", []byte{1, 2, 3, 4, 0})
	f.Add("The tide came in 😀 over the gate, é and 漢字 too.", []byte{8, 16, 17, 18, 19, 20, 40, 45, 47, 60})
	f.Fuzz(func(t *testing.T, s string, positions []byte) {
		units := utf16.Encode([]rune(s))
		if n := utf16Len(s); n != len(units) {
			t.Fatalf("%q: utf16Len %d, want %d", s, n, len(units))
		}
		cur := unitCursor{s: s}
		for _, b := range positions {
			p := int(b)
			want := p <= 0 || p >= len(units) || units[p] < 0xDC00 || units[p] > 0xDFFF
			if got := cur.boundary(p); got != want {
				t.Fatalf("%q: boundary(%d) = %v, want %v", s, p, got, want)
			}
			// advance from the start agrees: it stops inside a pair or past the end, and
			// otherwise at the byte where p units of the text end.
			at, err := advance(s, 0, p)
			switch {
			case p > len(units):
				if err == nil {
					t.Fatalf("%q: advance(%d) past the end, no error", s, p)
				}
			case !want:
				if err == nil {
					t.Fatalf("%q: advance(%d) inside a pair, no error", s, p)
				}
			case err != nil || len(utf16.Encode([]rune(s[:at]))) != p:
				t.Fatalf("%q: advance(%d) = %d %v", s, p, at, err)
			}
		}
	})
}
