package ops

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Links between documents are written in Markdown text as [[target]] or [[target|shown
// text]]. The stored target is "doc:" and a document id, so that renaming or moving the
// document never breaks the link and every page shows its current name; a target written as
// a name ([[Vharn]]) is resolved to an id on write when exactly one document has that name
// (ResolveLinkNames), and otherwise stays by name until one does.

// LinkIDPrefix starts a link target that is a document id.
const LinkIDPrefix = "doc:"

// maxLinkTarget bounds what may stand between [[ and ]] (a name is at most 200 characters;
// shown text a little more): longer brackets are text, not links.
const maxLinkTarget = 400

// LinkRef is one [[…]] in a text.
type LinkRef struct {
	// Start and End are the byte offsets of the whole [[…]] in the text.
	Start, End int
	// ID is the target document's id when the link is by id; Name is the target's name when
	// it is by name. One of them is set.
	ID, Name string
	// Text is the shown text after "|", "" when the link shows the target's name.
	Text string
}

// Label is what a reader sees of the link when the target's current name is name.
func (l LinkRef) Label(name string) string {
	if l.Text != "" {
		return l.Text
	}
	if l.ID == "" {
		return l.Name
	}
	return name
}

// ParseLinks returns the links of a text, in order. A link cannot span lines or hold
// brackets.
func ParseLinks(s string) []LinkRef {
	var out []LinkRef
	for i := 0; ; {
		j := strings.Index(s[i:], "[[")
		if j < 0 {
			return out
		}
		start := i + j
		ref, end, ok := parseLink(s, start)
		if !ok {
			i = start + 1
			continue
		}
		out = append(out, ref)
		i = end
	}
}

// parseLink reads the link starting at s[start:] ("[["), if it is one.
func parseLink(s string, start int) (LinkRef, int, bool) {
	body := s[start+2:]
	k := strings.Index(body, "]]")
	if k <= 0 || k > maxLinkTarget || strings.ContainsAny(body[:k], "[]\n") {
		return LinkRef{}, 0, false
	}
	inner := body[:k]
	target, shown, _ := strings.Cut(inner, "|")
	target = strings.TrimSpace(target)
	if target == "" {
		return LinkRef{}, 0, false
	}
	ref := LinkRef{Start: start, End: start + 2 + k + 2, Text: strings.TrimSpace(shown)}
	if id, ok := strings.CutPrefix(target, LinkIDPrefix); ok && validLinkID(id) {
		ref.ID = id
	} else {
		ref.Name = target
	}
	return ref, ref.End, true
}

// validLinkID reports whether id looks like a document id: 1 to 64 letters, digits, - or _.
func validLinkID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// LinkMarkup is the stored form of a link to document id, showing text ("" = the target's
// name).
func LinkMarkup(id, text string) string {
	if text == "" {
		return "[[" + LinkIDPrefix + id + "]]"
	}
	return "[[" + LinkIDPrefix + id + "|" + text + "]]"
}

// ReplaceLinks rewrites each link of s as repl returns it.
func ReplaceLinks(s string, repl func(LinkRef) string) string {
	refs := ParseLinks(s)
	if len(refs) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, r := range refs {
		b.WriteString(s[last:r.Start])
		b.WriteString(repl(r))
		last = r.End
	}
	b.WriteString(s[last:])
	return b.String()
}

// LinkLabels replaces each link of s with what a reader sees of it; name gives a linked
// document's current name (nil: links by id show their shown text only).
func LinkLabels(s string, name func(id string) string) string {
	if !strings.Contains(s, "[[") {
		return s
	}
	return ReplaceLinks(s, func(r LinkRef) string {
		n := ""
		if r.ID != "" && name != nil {
			n = name(r.ID)
		}
		return r.Label(n)
	})
}

// linkFields names, per op, the string parameters that hold Markdown and so may hold links
// written by name. card.editSectionText is not among them: its splices are positions in a
// text that a rewrite would shift; an editor inserts links in their stored form.
var linkFields = map[string]string{
	"card.addSection":       "body",
	"card.updateSection":    "body",
	"folder.setDescription": "description",
	"timeline.addEvent":     "description",
	"timeline.updateEvent":  "description",
}

// ResolveLinkNames rewrites the links written by name in a batch's text parameters to their
// stored form by id, where resolve finds exactly one document with that name; the others
// stay as written. Ops it cannot read are left for Apply to refuse. It returns raw itself
// when nothing changed.
func ResolveLinkNames(raw []json.RawMessage, resolve func(name string) (id string, ok bool)) []json.RawMessage {
	out, copied := raw, false
	for i, op := range raw {
		if !bytes.Contains(op, []byte("[[")) {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(op, &m) != nil {
			continue
		}
		var name string
		if json.Unmarshal(m["op"], &name) != nil {
			continue
		}
		field, ok := linkFields[name]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(m[field], &s) != nil || !strings.Contains(s, "[[") {
			continue
		}
		changed := false
		s = ReplaceLinks(s, func(r LinkRef) string {
			if r.ID == "" {
				if id, ok := resolve(r.Name); ok {
					changed = true
					return LinkMarkup(id, r.Text)
				}
			}
			return s[r.Start:r.End]
		})
		if !changed {
			continue
		}
		v, err := json.Marshal(s)
		if err != nil {
			continue
		}
		m[field] = v
		b, err := json.Marshal(m)
		if err != nil {
			continue
		}
		if !copied {
			out, copied = append([]json.RawMessage(nil), raw...), true
		}
		out[i] = b
	}
	return out
}

// Link is one link a document holds, as the backlinks table keeps it.
type Link struct {
	// TargetID is the linked document's id; TargetName its name (as written) when the link is
	// by name.
	TargetID, TargetName string
	// Context is the sentence around the link, as written (links inside it in their stored
	// form), at most maxContext bytes.
	Context string
	// Secret is true when every place the document links the target is secret.
	Secret bool
}

// maxContext bounds a link's surrounding text.
const maxContext = 300

// maxLinks bounds the links of one document the backlinks table keeps: the first ones in
// the document's order.
const maxLinks = 1000

// DocumentLinks returns the distinct targets a document links to, each once, in the order
// they first appear: its context is the first public place it appears (a secret one only if
// every place is secret).
func DocumentLinks(doc Document) []Link {
	var out []Link
	seen := map[string]int{}
	add := func(text string, secret bool) {
		if !strings.Contains(text, "[[") {
			return
		}
		for _, r := range ParseLinks(text) {
			key := r.ID
			if key == "" {
				key = "name:" + strings.ToLower(r.Name)
			}
			if i, ok := seen[key]; ok {
				if out[i].Secret && !secret {
					out[i].Context, out[i].Secret = sentenceAround(text, r), false
				}
				continue
			}
			if len(out) >= maxLinks {
				return
			}
			seen[key] = len(out)
			out = append(out, Link{TargetID: r.ID, TargetName: r.Name, Context: sentenceAround(text, r), Secret: secret})
		}
	}
	switch d := doc.(type) {
	case *Card:
		for _, s := range d.Sections {
			add(s.Body, s.Secret)
		}
	case *Folder:
		add(d.Description, false)
	case *Timeline:
		for _, e := range d.Events {
			add(e.Description, false)
		}
	case *toolDoc:
		// Markdown fields hold [[links]]; a document-link field is a link whose context is
		// the field's label.
		d.toolLinks(func(text string) { add(text, false) }, func(id, label string) {
			if _, ok := seen[id]; ok || len(out) >= maxLinks {
				return
			}
			seen[id] = len(out)
			out = append(out, Link{TargetID: id, Context: label})
		})
	}
	return out
}

// sentenceAround returns the sentence of text that holds the link r: from after the last
// sentence end (". ", "! ", "? " or a line break) before it to the next one after it,
// trimmed to maxContext bytes around the link.
func sentenceAround(text string, r LinkRef) string {
	start := 0
	for i := r.Start - 1; i >= 0; i-- {
		c := text[i]
		if c == '\n' || (c == ' ' && i > 0 && strings.ContainsRune(".!?", rune(text[i-1]))) {
			start = i + 1
			break
		}
	}
	end := len(text)
	for i := r.End; i < len(text); i++ {
		c := text[i]
		if c == '\n' {
			end = i
			break
		}
		if strings.ContainsRune(".!?", rune(c)) && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n') {
			end = i + 1
			break
		}
	}
	// Keep the link whole and as much around it as fits.
	if end-start > maxContext {
		room := max(maxContext-(r.End-r.Start), 0)
		from := max(start, r.Start-room/2)
		to := min(end, r.End+(room-(r.Start-from)))
		start, end = from, to
	}
	for start < end && !utf8.RuneStart(text[start]) {
		start++
	}
	for end > start && end < len(text) && !utf8.RuneStart(text[end]) {
		end--
	}
	return strings.TrimSpace(strings.TrimLeft(text[start:end], "#>*-+ \t"))
}
