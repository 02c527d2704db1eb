package ops

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Concurrent text editing (card.editSectionText) is central-server operational
// transformation, as in Jupiter and ShareDB: the server's op log fixes one order, a client
// sends its edit with the version it was made on, and the server rebases the edit over
// everything applied since. A client rebases its unacknowledged edits over the server's ops
// it receives with the same algorithm, so both sides compute the same result. The browser
// editor's port (static/js/ot.js) and this file are held to the same test vectors
// (testdata/ot_vectors.json).
//
// Positions and lengths are UTF-16 code units, as in JavaScript strings (String.length,
// CodeMirror positions). A position never falls inside a surrogate pair.
//
// The algorithm, precisely enough to port:
//
// Canonical form. On the wire an edit is a list of splices {pos, del, ins}, each applying to
// the text the previous one left. Inside, an edit is a list of components over the text it
// was made on, in order: retain n (keep n units), insert s, delete n (drop n units). Adjacent
// components of the same kind merge; an insert is always placed before a delete it touches;
// a trailing retain is left out (the rest of the text is kept). Every edit has exactly one
// canonical form, whatever splices made it. An edit's canonical form goes back to splices
// as one splice per run of inserts and deletes, in ascending position order: such
// "ascending" splices convert back in one pass, and every edit the server applies is stored
// and sent in that form.
//
// Splices to canonical form: when every splice starts at or after the end of what the ones
// before it cover (their retains and inserts), each is appended in turn: retain the gap,
// insert, delete. Otherwise the edit is the composition of its halves' edits (compose below),
// down to single splices.
//
// Compose (a then b, b made on a's result), walking both: a's delete is copied; b's insert
// is copied; otherwise a's retain or insert meets b's retain or delete over the shorter of
// the two lengths: retain+retain retains, retain+delete deletes, insert+retain inserts that
// part of a's text, insert+delete drops it. Past a's last component a retains the rest of
// the text, and past b's last component b retains the rest.
//
// Transform (rebase local and applied, both made on the same text, over each other, with
// localFirst saying whose insert comes first when both insert at one point), walking both: if
// both components are inserts, the one localFirst names goes first; else if applied's
// component is an insert, applied' inserts it and local' retains its length; else if local's
// is an insert, local' inserts it and applied' retains its length (so an insert inside a
// range the other edit deleted survives, at the point of the deletion); otherwise over the
// shorter of the two
// lengths: retain+retain retains in both, delete+delete drops the units from both, a
// delete against a retain is a delete in that side's result. Past its last component an
// edit retains the rest. The cost is the sum of the two edits' lengths.
//
// Ties go by the writers' client ids (the clientId of the write; "" for a write that gave
// none): the edit of the smaller id comes first (localFirst = local's id < applied's), and
// between edits of one id (the ops of one request) the applied one. A rule both sides
// evaluate alike for every pair keeps each writer's words together when two type at the
// same point: ties decided by arrival order put one writer's next letters now before, now
// after the other's, and interleaved their words.
//
// The server rebases an incoming edit over each text change to the same section applied
// since its baseVersion, one op at a time, oldest first; then over the changes made by the
// earlier ops of the same request. A client holding an in-flight edit F and pending edits P
// (composed into one) that receives a server op S that is not its own does, with first =
// its id < S's id: (F, S) = transform(F, S, first); (P, S) = transform(P, S, first);
// text = apply(text, S).

// Splice is one text change, in UTF-16 code units: delete Del units at Pos, then insert Ins
// at Pos. The splices of one op apply in order, each to the text the previous one left.
type Splice struct {
	Pos int    `json:"pos"`
	Del int    `json:"del"`
	Ins string `json:"ins"`
}

type compKind uint8

const (
	retainComp compKind = iota
	insertComp
	deleteComp
)

// comp is one component of an edit in canonical form: n units retained or deleted, or the
// text ins inserted (n its UTF-16 length).
type comp struct {
	kind compKind
	n    int
	ins  string
}

// textOp is an edit in canonical form. Adjacent inserts may be kept as separate pieces
// (joined by splices()), so building an edit never copies its text more than once.
type textOp []comp

func (o textOp) retain(n int) textOp {
	if n <= 0 {
		return o
	}
	if k := len(o); k > 0 && o[k-1].kind == retainComp {
		o[k-1].n += n
		return o
	}
	return append(o, comp{kind: retainComp, n: n})
}

// insert adds text; before a trailing delete, so that an insert always precedes the delete
// it touches.
func (o textOp) insert(s string, n int) textOp {
	if n == 0 {
		return o
	}
	c := comp{kind: insertComp, n: n, ins: s}
	if k := len(o); k > 0 && o[k-1].kind == deleteComp {
		o = append(o, o[k-1])
		o[k-1] = c
		return o
	}
	return append(o, c)
}

func (o textOp) delete(n int) textOp {
	if n <= 0 {
		return o
	}
	if k := len(o); k > 0 && o[k-1].kind == deleteComp {
		o[k-1].n += n
		return o
	}
	return append(o, comp{kind: deleteComp, n: n})
}

// trim drops a trailing retain: the rest of the text is kept anyway.
func (o textOp) trim() textOp {
	if k := len(o); k > 0 && o[k-1].kind == retainComp {
		return o[:k-1]
	}
	return o
}

// lengths returns how many units of the original text the edit covers (retains and
// deletes) and how many of its result (retains and inserts).
func (o textOp) lengths() (base, out int) {
	for _, c := range o {
		switch c.kind {
		case retainComp:
			base += c.n
			out += c.n
		case insertComp:
			out += c.n
		case deleteComp:
			base += c.n
		}
	}
	return base, out
}

// splices returns the edit as ascending splices.
func (o textOp) splices() []Splice {
	out := []Splice{}
	pos := 0
	for i := 0; i < len(o); {
		if o[i].kind == retainComp {
			pos += o[i].n
			i++
			continue
		}
		sp := Splice{Pos: pos}
		var b strings.Builder
		n := 0
		for ; i < len(o) && o[i].kind == insertComp; i++ {
			b.WriteString(o[i].ins)
			n += o[i].n
		}
		if i < len(o) && o[i].kind == deleteComp {
			sp.Del = o[i].n
			i++
		}
		sp.Ins = b.String()
		out = append(out, sp)
		pos += n
	}
	return out
}

// cursor walks an edit's components, handing out parts of them; past the last component it
// retains forever.
type cursor struct {
	op   textOp
	i    int
	head comp // what is left of op[i-1]; head.n == 0 when it is used up
}

func newCursor(o textOp) *cursor { return &cursor{op: o} }

// peek returns the current component; done is true past the end (an endless retain).
func (c *cursor) peek() (comp, bool) {
	if c.head.n > 0 {
		return c.head, false
	}
	if c.i < len(c.op) {
		c.head = c.op[c.i]
		c.i++
		return c.head, false
	}
	return comp{kind: retainComp}, true
}

// take uses up n units of the current component (all of it for n >= its length) and
// returns that part. Splitting an insert inside a surrogate pair reports ok false.
func (c *cursor) take(n int) (part comp, ok bool) {
	h := c.head
	if n >= h.n {
		c.head = comp{}
		return h, true
	}
	part = comp{kind: h.kind, n: n}
	c.head.n -= n
	if h.kind == insertComp {
		at, err := advance(h.ins, 0, n)
		if err != nil {
			return comp{}, false
		}
		part.ins, c.head.ins = h.ins[:at], h.ins[at:]
	}
	return part, true
}

// errSplit is a position that falls inside a surrogate pair, errPastEnd one past the end of
// the text.
var (
	errSplit   = errors.New("falls inside a surrogate pair (one character such as an emoji counts as two units)")
	errPastEnd = errors.New("is past the end of the text")
)

// compose returns a then b, b made on a's result. An error means b cuts a surrogate pair of
// text a inserted.
func compose(a, b textOp) (textOp, error) {
	out := make(textOp, 0, len(a)+len(b))
	ca, cb := newCursor(a), newCursor(b)
	for {
		x, aDone := ca.peek()
		y, bDone := cb.peek()
		switch {
		case !aDone && x.kind == deleteComp:
			ca.take(x.n)
			out = out.delete(x.n)
			continue
		case !bDone && y.kind == insertComp:
			cb.take(y.n)
			out = out.insert(y.ins, y.n)
			continue
		case aDone && bDone:
			return out.trim(), nil
		case aDone:
			// b retains or deletes text a did not reach: a's text itself.
			cb.take(y.n)
			if y.kind == retainComp {
				out = out.retain(y.n)
			} else {
				out = out.delete(y.n)
			}
			continue
		case bDone:
			ca.take(x.n)
			if x.kind == retainComp {
				out = out.retain(x.n)
			} else {
				out = out.insert(x.ins, x.n)
			}
			continue
		}
		n := min(x.n, y.n)
		part, ok := ca.take(n)
		if !ok {
			return nil, errSplit
		}
		cb.take(n)
		switch {
		case x.kind == retainComp && y.kind == retainComp:
			out = out.retain(n)
		case x.kind == retainComp:
			out = out.delete(n)
		case y.kind == retainComp:
			out = out.insert(part.ins, n)
		}
	}
}

// transform rebases local and applied, two edits of the same text, over each other; where
// both insert at one point, local's text comes first if localFirst.
func transform(local, applied textOp, localFirst bool) (localPrime, appliedPrime textOp) {
	return transformInto(nil, local, applied, true, localFirst)
}

// transformInto returns local rebased over applied, built in l2's storage, and, when
// withApplied is set, applied rebased over local.
func transformInto(l2, local, applied textOp, withApplied, localFirst bool) (localPrime, appliedPrime textOp) {
	var a2 textOp
	cl, ca := newCursor(local), newCursor(applied)
	for {
		x, aDone := ca.peek()
		y, lDone := cl.peek()
		lInsert := !lDone && y.kind == insertComp
		switch {
		case !aDone && x.kind == insertComp && !(lInsert && localFirst):
			ca.take(x.n)
			if withApplied {
				a2 = a2.insert(x.ins, x.n)
			}
			l2 = l2.retain(x.n)
			continue
		case lInsert:
			cl.take(y.n)
			l2 = l2.insert(y.ins, y.n)
			if withApplied {
				a2 = a2.retain(y.n)
			}
			continue
		case aDone && lDone:
			return l2.trim(), a2.trim()
		case aDone, lDone:
			// Past one edit's end: it retains the rest of the text.
			if aDone {
				x.n = y.n
			} else {
				y.n = x.n
			}
		}
		n := min(x.n, y.n)
		if !aDone {
			ca.take(n)
		}
		if !lDone {
			cl.take(n)
		}
		switch {
		case x.kind == retainComp && y.kind == retainComp:
			l2 = l2.retain(n)
			if withApplied {
				a2 = a2.retain(n)
			}
		case x.kind == deleteComp && y.kind == retainComp:
			if withApplied {
				a2 = a2.delete(n)
			}
		case x.kind == retainComp && y.kind == deleteComp:
			l2 = l2.delete(n)
		}
	}
}

// rebase returns edit rebased over each of changes in turn, oldest first, reusing two
// buffers: the cost is the sum of the edit's length times the changes and of the changes'
// lengths, and what it allocates is the edit's length.
func rebase(edit textOp, changes []concurrentEdit) textOp {
	var spare textOp
	for _, ch := range changes {
		next, _ := transformInto(spare[:0], edit, ch.edit, false, ch.first)
		spare, edit = edit, next
	}
	return edit
}

// concurrentEdit is a change made to a text since the version an edit was made on: first
// says the edit's inserts go before the change's where both insert at one point.
type concurrentEdit struct {
	edit  textOp
	first bool
}

// fromSplices returns the canonical form of splices. When base is not nil it is the text the
// splices were made on, and the splices are checked against it: an *Error naming the splice
// ("splices[2].pos") if it reaches past the end, or, for ascending splices, cuts a surrogate
// pair. Without it only what the splices themselves show is checked; applyOp checks the
// rest. Ascending splices convert in one pass; others by composing halves, in
// O(k log k) for k splices.
func fromSplices(splices []Splice, base *string) (textOp, error) {
	length := -1 // the current text's length, when known
	var cur unitCursor
	if base != nil {
		cur.s = *base
		length = utf16Len(*base)
	}
	boundary := func(p int) bool { return base == nil || cur.boundary(p) }
	op := make(textOp, 0, 3*len(splices))
	opBase, opOut := 0, 0 // what op covers of the text it was made on, and of its result
	ascending := true
	for i, sp := range splices {
		if sp.Pos < 0 {
			return nil, fieldError(fmt.Sprintf("splices[%d].pos", i), "splices[%d].pos must not be negative", i)
		}
		if sp.Del < 0 {
			return nil, fieldError(fmt.Sprintf("splices[%d].del", i), "splices[%d].del must not be negative", i)
		}
		if length >= 0 && sp.Pos > length {
			return nil, fieldError(fmt.Sprintf("splices[%d].pos", i), "splices[%d].pos %d is past the end of the text (the text is %d UTF-16 code units long)", i, sp.Pos, length)
		}
		if length >= 0 && sp.Pos+sp.Del > length {
			return nil, fieldError(fmt.Sprintf("splices[%d].del", i), "splices[%d] deletes %d units from %d, which is past the end of the text (the text is %d UTF-16 code units long)", i, sp.Del, sp.Pos, length)
		}
		n := utf16Len(sp.Ins)
		if length >= 0 {
			length += n - sp.Del
		}
		if !ascending || (sp.Del == 0 && n == 0) {
			continue
		}
		if sp.Pos < opOut {
			ascending = false
			continue
		}
		// The splice touches only text the edit has not reached.
		start := opBase + sp.Pos - opOut
		if !boundary(start) {
			return nil, fieldError(fmt.Sprintf("splices[%d].pos", i), "splices[%d].pos %d %s", i, sp.Pos, errSplit)
		}
		if !boundary(start + sp.Del) {
			return nil, fieldError(fmt.Sprintf("splices[%d].del", i), "splices[%d] deletes %d units from %d, which %s", i, sp.Del, sp.Pos, errSplit)
		}
		op = op.retain(start-opBase).insert(sp.Ins, n).delete(sp.Del)
		opBase, opOut = start+sp.Del, sp.Pos+n
	}
	if ascending {
		return op, nil
	}
	op, err := composeSplices(splices)
	if err != nil {
		return nil, fieldError("splices", "the splices %s", err)
	}
	at := 0
	for _, c := range op {
		if c.kind != insertComp {
			at += c.n
			if !boundary(at) {
				return nil, fieldError("splices", "the splices cut the text at %d, which %s", at, errSplit)
			}
		}
	}
	return op, nil
}

// composeSplices composes splices in any order, halves first.
func composeSplices(s []Splice) (textOp, error) {
	if len(s) == 1 {
		return textOp{}.retain(s[0].Pos).insert(s[0].Ins, utf16Len(s[0].Ins)).delete(s[0].Del), nil
	}
	a, err := composeSplices(s[:len(s)/2])
	if err != nil {
		return nil, err
	}
	b, err := composeSplices(s[len(s)/2:])
	if err != nil {
		return nil, err
	}
	return compose(a, b)
}

// applyOp applies an edit to text; an edit that reaches past the end of the text or cuts a
// surrogate pair is an invalid_field *Error on "splices".
func applyOp(text string, op textOp) (string, error) {
	var b strings.Builder
	b.Grow(len(text))
	at, pos := 0, 0
	for _, c := range op {
		if c.kind == insertComp {
			b.WriteString(c.ins)
			continue
		}
		next, err := advance(text, at, c.n)
		if err != nil {
			return "", fieldError("splices", "the edit's position %d %s (the text is %d UTF-16 code units long)", pos+c.n, err, utf16Len(text))
		}
		if c.kind == retainComp {
			b.WriteString(text[at:next])
		}
		at, pos = next, pos+c.n
	}
	b.WriteString(text[at:])
	return b.String(), nil
}

// TransformSplices rebases two edits made on the same text over each other. local is an edit
// the server has not applied yet, applied one it has. It returns local', to apply after
// applied, and applied', to apply after local, both as ascending splices; both orders give
// the same text. When both insert at the same position local's text comes first if
// localFirst, else applied's (see the package comment for whose it is). Inserts inside a
// range the other edit deleted survive, at the start of that range. The package comment on
// concurrent text editing gives the algorithm. An error means a splice cuts a surrogate pair
// of text inserted by an earlier splice of the same edit.
func TransformSplices(local, applied []Splice, localFirst bool) (localPrime, appliedPrime []Splice, err error) {
	l, err := fromSplices(local, nil)
	if err != nil {
		return nil, nil, err
	}
	a, err := fromSplices(applied, nil)
	if err != nil {
		return nil, nil, err
	}
	l2, a2 := transform(l, a, localFirst)
	return l2.splices(), a2.splices(), nil
}

// ApplySplices applies splices to text in order. Positions are UTF-16 code units; a splice
// that reaches past the end of the text or splits a surrogate pair is an invalid_field
// *Error naming it ("splices[2].pos"). The cost is linear in the text and the splices, but
// for a splice that lands before an earlier one, which costs the splices so far.
func ApplySplices(text string, splices []Splice) (string, error) {
	op, err := fromSplices(splices, &text)
	if err != nil {
		return "", err
	}
	return applyOp(text, op)
}

// advance returns the byte offset reached by moving units UTF-16 code units forward from
// byte offset i of s, or why that position does not exist (errPastEnd, errSplit).
func advance(s string, i, units int) (int, error) {
	for units > 0 {
		if i >= len(s) {
			return i, errPastEnd
		}
		if n := asciiRun(s[i:], units); n > 0 {
			i += n
			units -= n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if w > units {
			return i, errSplit
		}
		units -= w
		i += size
	}
	return i, nil
}

// unitCursor walks a text by UTF-16 positions. It goes forward from where it last stopped
// (the positions fromSplices checks mostly ascend) and starts again from the beginning for an
// earlier one: the text is not converted to UTF-16, which cost every edit of a long section
// a copy of it, twice.
type unitCursor struct {
	s            string
	byteAt, unit int // the cursor is before s[byteAt:], unit UTF-16 units into s
}

// boundary reports whether position p does not fall inside a surrogate pair: p is at most 0,
// at or past the end of the text, or between two characters.
func (c *unitCursor) boundary(p int) bool {
	if p <= 0 {
		return true
	}
	if p < c.unit {
		c.byteAt, c.unit = 0, 0
	}
	next, err := advance(c.s, c.byteAt, p-c.unit)
	if err == nil {
		c.byteAt, c.unit = next, p
	}
	return err != errSplit
}

// utf16Len returns the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if a := asciiRun(s[i:], len(s)); a > 0 {
			n += a
			i += a
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		n++
		if r > 0xFFFF {
			n++
		}
		i += size
	}
	return n
}

// asciiRun returns how many of the first limit bytes of s are ASCII (one UTF-16 unit each),
// eight at a time while it can: most text is, and decoding it rune by rune was most of the
// cost of an edit to a long section.
func asciiRun(s string, limit int) int {
	end := min(len(s), limit)
	i := 0
	for i+8 <= end {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 != 0 {
			break
		}
		i += 8
	}
	for i < end && s[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// SectionSplices returns the changes an op as applied (an entry of Result.Applied or of the
// op log) made to the body of the card section sectionID, as splices on the body it found:
// card.editSectionText gives its splices; card.updateSection that set the body gives one
// splice replacing the previous body (previousBodyLength units) with the new one;
// card.addSection of that section gives one insert of its body. Any other op gives none.
func SectionSplices(applied json.RawMessage, sectionID string) ([]Splice, error) {
	id, splices, err := sectionSplices(applied)
	if err != nil || id != sectionID {
		return nil, err
	}
	return splices, nil
}

// sectionSplices returns the section an op as applied names and the changes it made to its
// body (none for an op that did not change a body).
func sectionSplices(applied json.RawMessage) (string, []Splice, error) {
	var op struct {
		Op                 string   `json:"op"`
		ID                 string   `json:"id"`
		Body               *string  `json:"body"`
		PreviousBodyLength int      `json:"previousBodyLength"`
		Splices            []Splice `json:"splices"`
	}
	if err := json.Unmarshal(applied, &op); err != nil {
		return "", nil, fmt.Errorf("ops: read applied op: %w", err)
	}
	switch {
	case op.Op == "card.editSectionText":
		return op.ID, op.Splices, nil
	case op.Body == nil:
		return op.ID, nil, nil
	case op.Op == "card.updateSection":
		return op.ID, []Splice{{Pos: 0, Del: op.PreviousBodyLength, Ins: *op.Body}}, nil
	case op.Op == "card.addSection" && *op.Body != "":
		return op.ID, []Splice{{Pos: 0, Ins: *op.Body}}, nil
	}
	return op.ID, nil, nil
}
