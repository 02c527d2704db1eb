package ops

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Concurrent text editing (card.editSectionText) is central-server operational
// transformation, as in Jupiter and ShareDB: the server's op log fixes one order, a client
// sends its edit with the version it was made on, and the server rebases the edit over
// everything applied since. A client rebases its unacknowledged edits over the server's ops
// it receives with the same functions (TransformSplices, ApplySplices, SectionSplices), so
// both sides compute the same result.
//
// Positions and lengths are UTF-16 code units, as in JavaScript strings (String.length,
// textarea.selectionStart). A position never falls inside a surrogate pair.
//
// The algorithm, precisely enough to port:
//
// Atoms. A splice {pos, del, ins} is the delete {pos, del} followed by the insert {pos, ins}
// (either part left out when del is 0 or ins is ""). A list of splices is the list of their
// atoms, in order; each atom applies to the text left by the one before.
//
// Pairs. For an atom a of the local (not yet applied) edit and an atom b of the applied
// (server) edit, both made on the same text, pair(a, b) returns a' (a rebased over b) and b'
// (b rebased over a), each a list of 0, 1 or 2 atoms, such that b then a' and a then b' give
// the same text. len(x) is the UTF-16 length of an insert's text; a delete covers
// [pos, pos+del).
//
//   - insert a, insert b: if a.pos < b.pos then b.pos += len(a), else a.pos += len(b). On a
//     tie the applied (server) text goes first.
//   - insert i, delete d (in either role): if i.pos <= d.pos then d.pos += len(i); else if
//     i.pos >= d.pos+d.del then i.pos -= d.del; else the insert lies inside the deleted range
//     and survives at the deletion point: i.pos = d.pos, and the delete splits into
//     {d.pos, i.pos_old-d.pos} then {d.pos+len(i), d.pos+d.del-i.pos_old}.
//   - delete a, delete b: a' deletes what a deleted and b did not: its length is a.del minus
//     the overlap of the two ranges (no atom when that is 0), and its position is a.pos if
//     a.pos <= b.pos, a.pos-b.del if a.pos >= b.pos+b.del, else b.pos. b' likewise.
//
// Lists. To rebase the atom lists L (local) and B (applied) over each other, take each atom
// a of L in order, with pieces = [a], and build a new B:
//
//   - for each atom b of B in order: rebase the pieces over b one after another: for each
//     piece x, (x', b) = pair(x, b), the new pieces being the concatenation of the x'; once b
//     has become no atom, the remaining pieces stay as they are. Then append what b became
//     to the new B. (b becomes two atoms only when a is an insert, which never splits, so b
//     is a single atom whenever a piece is left to rebase.)
//   - replace B with the new B, and append the pieces to L'.
//
// L' is the concatenation of the pieces of every a; B' is the B left after the last a.
//
// Splices again. A delete immediately followed by an insert at the same position merge into
// one splice; every other atom is a splice of its own.
//
// The server rebases an incoming edit over each text change to the same section applied
// since its baseVersion, one op at a time, oldest first; then over the changes made by the
// earlier ops of the same request. A client holding an in-flight edit F and pending edits P
// (the concatenation of its later splices) that receives a server op S that is not its own
// does: (F, S) = TransformSplices(F, S); (P, S) = TransformSplices(P, S); text =
// ApplySplices(text, S).

// Splice is one text change, in UTF-16 code units: delete Del units at Pos, then insert Ins
// at Pos. The splices of one op apply in order, each to the text the previous one left.
type Splice struct {
	Pos int    `json:"pos"`
	Del int    `json:"del"`
	Ins string `json:"ins"`
}

// atom is a pure delete (del > 0) or a pure insert (ins != "", n its UTF-16 length).
type atom struct {
	pos, del int
	ins      string
	n        int
}

func (a atom) isInsert() bool { return a.del == 0 }

func toAtoms(s []Splice) []atom {
	out := make([]atom, 0, 2*len(s))
	for _, sp := range s {
		if sp.Del > 0 {
			out = append(out, atom{pos: sp.Pos, del: sp.Del})
		}
		if sp.Ins != "" {
			out = append(out, atom{pos: sp.Pos, ins: sp.Ins, n: utf16Len(sp.Ins)})
		}
	}
	return out
}

func fromAtoms(a []atom) []Splice {
	out := make([]Splice, 0, len(a))
	for _, x := range a {
		if x.isInsert() && len(out) > 0 {
			last := &out[len(out)-1]
			if last.Ins == "" && last.Del > 0 && last.Pos == x.pos {
				last.Ins = x.ins
				continue
			}
		}
		out = append(out, Splice{Pos: x.pos, Del: x.del, Ins: x.ins})
	}
	return out
}

// TransformSplices rebases two edits made on the same text over each other. local is an edit
// the server has not applied yet, applied one it has. It returns local', to apply after
// applied, and applied', to apply after local; both orders give the same text. When both
// insert at the same position the applied text comes first. Inserts inside a range the other
// edit deleted survive, at the start of that range. The package comment on concurrent text
// editing gives the algorithm.
func TransformSplices(local, applied []Splice) (localPrime, appliedPrime []Splice) {
	l, a := transformAtoms(toAtoms(local), toAtoms(applied))
	return fromAtoms(l), fromAtoms(a)
}

func transformAtoms(local, applied []atom) ([]atom, []atom) {
	out := make([]atom, 0, len(local))
	var pieces, spare []atom
	for _, a := range local {
		pieces = append(pieces[:0], a)
		next := make([]atom, 0, len(applied)+1)
		for _, b := range applied {
			// Several pieces are all deletes, over which b never splits: bs holds two atoms
			// only after the last piece.
			bs := rebased{n: 1, at: [2]atom{b}}
			spare = spare[:0]
			for _, x := range pieces {
				if bs.n == 0 {
					spare = append(spare, x)
					continue
				}
				var xs rebased
				xs, bs = pair(x, bs.at[0])
				spare = append(spare, xs.at[:xs.n]...)
			}
			pieces, spare = spare, pieces
			next = append(next, bs.at[:bs.n]...)
		}
		applied = next
		out = append(out, pieces...)
	}
	return out, applied
}

// rebased is what one atom becomes once rebased over another: 0, 1 or 2 atoms.
type rebased struct {
	n  int
	at [2]atom
}

func one(a atom) rebased { return rebased{n: 1, at: [2]atom{a}} }

// pair rebases one local atom and one applied atom over each other.
func pair(a, b atom) (rebased, rebased) {
	switch {
	case a.isInsert() && b.isInsert():
		if a.pos < b.pos {
			b.pos += a.n
		} else {
			a.pos += b.n
		}
		return one(a), one(b)
	case a.isInsert():
		i, d := insertOverDelete(a, b)
		return one(i), d
	case b.isInsert():
		i, d := insertOverDelete(b, a)
		return d, one(i)
	}
	return deleteOverDelete(a, b), deleteOverDelete(b, a)
}

// insertOverDelete rebases insert i and delete d over each other: i' and d'.
func insertOverDelete(i, d atom) (atom, rebased) {
	switch {
	case i.pos <= d.pos:
		d.pos += i.n
		return i, one(d)
	case i.pos >= d.pos+d.del:
		i.pos -= d.del
		return i, one(d)
	}
	left := i.pos - d.pos
	i.pos = d.pos
	return i, rebased{n: 2, at: [2]atom{{pos: d.pos, del: left}, {pos: d.pos + i.n, del: d.del - left}}}
}

// deleteOverDelete rebases delete a over delete b.
func deleteOverDelete(a, b atom) rebased {
	aEnd, bEnd := a.pos+a.del, b.pos+b.del
	overlap := min(aEnd, bEnd) - max(a.pos, b.pos)
	n := a.del - max(overlap, 0)
	if n == 0 {
		return rebased{}
	}
	pos := a.pos
	switch {
	case a.pos <= b.pos:
	case a.pos >= bEnd:
		pos = a.pos - b.del
	default:
		pos = b.pos
	}
	return one(atom{pos: pos, del: n})
}

// ApplySplices applies splices to text in order. Positions are UTF-16 code units; a splice
// that reaches past the end of the text or splits a surrogate pair is an invalid_field
// *Error naming it ("splices[2].pos").
func ApplySplices(text string, splices []Splice) (string, error) {
	for i, sp := range splices {
		if sp.Pos < 0 {
			return "", fieldError(fmt.Sprintf("splices[%d].pos", i), "splices[%d].pos must not be negative", i)
		}
		if sp.Del < 0 {
			return "", fieldError(fmt.Sprintf("splices[%d].del", i), "splices[%d].del must not be negative", i)
		}
		start, bad := advance(text, 0, sp.Pos)
		if bad != "" {
			return "", fieldError(fmt.Sprintf("splices[%d].pos", i), "splices[%d].pos %d %s (the text is %d UTF-16 code units long)", i, sp.Pos, bad, utf16Len(text))
		}
		end, bad := advance(text, start, sp.Del)
		if bad != "" {
			return "", fieldError(fmt.Sprintf("splices[%d].del", i), "splices[%d] deletes %d units from %d, which %s (the text is %d UTF-16 code units long)", i, sp.Del, sp.Pos, bad, utf16Len(text))
		}
		text = text[:start] + sp.Ins + text[end:]
	}
	return text, nil
}

// advance returns the byte offset reached by moving units UTF-16 code units forward from
// byte offset i of s, or a reason why that position does not exist.
func advance(s string, i, units int) (int, string) {
	for units > 0 {
		if i >= len(s) {
			return i, "is past the end of the text"
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if w > units {
			return i, "falls inside a surrogate pair (one character such as an emoji counts as two units)"
		}
		units -= w
		i += size
	}
	return i, ""
}

// utf16Len returns the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}

// SectionSplices returns the changes an op as applied (an entry of Result.Applied or of the
// op log) made to the body of the card section sectionID, as splices on the body it found:
// card.editSectionText gives its splices; card.updateSection that set the body gives one
// splice replacing the previous body (previousBodyLength units) with the new one;
// card.addSection of that section gives one insert of its body. Any other op gives none.
func SectionSplices(applied json.RawMessage, sectionID string) ([]Splice, error) {
	var op struct {
		Op                 string   `json:"op"`
		ID                 string   `json:"id"`
		Body               *string  `json:"body"`
		PreviousBodyLength int      `json:"previousBodyLength"`
		Splices            []Splice `json:"splices"`
	}
	if err := json.Unmarshal(applied, &op); err != nil {
		return nil, fmt.Errorf("ops: read applied op: %w", err)
	}
	switch {
	case op.ID != sectionID:
		return nil, nil
	case op.Op == "card.editSectionText":
		return op.Splices, nil
	case op.Body == nil:
		return nil, nil
	case op.Op == "card.updateSection":
		return []Splice{{Pos: 0, Del: op.PreviousBodyLength, Ins: *op.Body}}, nil
	case op.Op == "card.addSection" && *op.Body != "":
		return []Splice{{Pos: 0, Ins: *op.Body}}, nil
	}
	return nil, nil
}
