package ops

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// MaxSummaryPhrases bounds a batch's summary: a batch of many changes ends with "and N more
// changes".
const MaxSummaryPhrases = 5

// Summarize describes a batch of ops as applied in words, one phrase per change
// ("added event “The Sundering”", "edited section “Biography”"), for a document's history.
// before is the content the batch was applied to; names of items the batch changes or
// removes come from it, or from the batch's own earlier ops. Identical phrases are said once
// (typing sends many edits of one section). When public is set the reader may not see
// secret card sections: a change to one is said without its title.
func Summarize(before Document, applied []json.RawMessage, public bool) []string {
	s := summarizer{before: before, public: public, titles: map[string]string{}, secret: map[string]bool{}, labels: map[string]string{}}
	if c, ok := before.(*Card); ok {
		for _, sec := range c.Sections {
			s.titles[sec.ID], s.secret[sec.ID] = sec.Title, sec.Secret
		}
	}
	var out []string
	more := 0
	for _, raw := range applied {
		p := s.phrase(raw)
		if p == "" || slices.Contains(out, p) {
			continue
		}
		if len(out) == MaxSummaryPhrases {
			more++
			continue
		}
		out = append(out, p)
	}
	if more == 1 {
		out = append(out, "and 1 more change")
	} else if more > 1 {
		out = append(out, fmt.Sprintf("and %d more changes", more))
	}
	if len(out) == 0 {
		out = append(out, "no change")
	}
	return out
}

type summarizer struct {
	before Document
	public bool
	// titles and secret follow the card's sections through the batch.
	titles map[string]string
	secret map[string]bool
	// labels holds the labels of events and pins the batch added.
	labels map[string]string
}

// summaryOp holds every parameter a phrase may need, of any op.
type summaryOp struct {
	Op      string  `json:"op"`
	ID      string  `json:"id"`
	Label   *string `json:"label"`
	Name    *string `json:"name"`
	Title   *string `json:"title"`
	Key     string  `json:"key"`
	ClipID  string  `json:"clipId"`
	Secret  *bool   `json:"secret"`
	Version int64   `json:"version"`
}

// quote puts a name in typographic quotes.
func quote(s string) string { return "“" + s + "”" }

func (s *summarizer) phrase(raw json.RawMessage) string {
	var op summaryOp
	if err := json.Unmarshal(raw, &op); err != nil {
		return ""
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if d, ok := s.before.(*toolDoc); ok && d.t.byOp[op.Op] != nil {
		return s.toolPhrase(d, d.t.byOp[op.Op], raw, op.ID)
	}
	switch op.Op {
	case RestoreOp:
		return fmt.Sprintf("restored version %d", op.Version)

	case "timeline.addEvent":
		s.labels[op.ID] = str(op.Label)
		return "added event " + quote(str(op.Label))
	case "timeline.updateEvent":
		return "edited event " + quote(s.eventLabel(op.ID, op.Label))
	case "timeline.removeEvent":
		return "removed event " + quote(s.eventLabel(op.ID, nil))

	case "card.rename":
		if str(op.Name) == "" {
			return "cleared the card’s own name"
		}
		return "renamed to " + quote(*op.Name)
	case "card.setAliases":
		return "changed the aliases"
	case "card.setProperty":
		return "set property " + quote(op.Key)
	case "card.removeProperty":
		return "removed property " + quote(op.Key)
	case "card.addSection":
		s.titles[op.ID], s.secret[op.ID] = str(op.Title), op.Secret != nil && *op.Secret
		return s.section("added", op.ID)
	case "card.updateSection":
		p := s.section("edited", op.ID)
		if op.Title != nil {
			s.titles[op.ID] = *op.Title
			p = s.section("edited", op.ID)
		}
		return p
	case "card.editSectionText":
		return s.section("edited", op.ID)
	case "card.moveSection":
		return s.section("moved", op.ID)
	case "card.removeSection":
		return s.section("removed", op.ID)
	case "card.setSectionSecret":
		if op.Secret != nil && *op.Secret {
			s.secret[op.ID] = true
			return s.section("made secret", op.ID)
		}
		s.secret[op.ID] = false
		return s.section("revealed", op.ID)

	case "map.setImage":
		return "changed the map image"
	case "map.addPin":
		s.labels[op.ID] = str(op.Label)
		return "added pin " + quote(str(op.Label))
	case "map.movePin":
		return "moved pin " + quote(s.pinLabel(op.ID))
	case "map.updatePin":
		if op.Label != nil {
			return "edited pin " + quote(*op.Label)
		}
		return "edited pin " + quote(s.pinLabel(op.ID))
	case "map.removePin":
		return "removed pin " + quote(s.pinLabel(op.ID))

	case "folder.setDescription":
		return "edited the description"

	case "animator.setModel":
		if str(op.Name) != "" {
			return "set the model " + quote(*op.Name)
		}
		return "set the model"
	case "animator.setClips":
		return "changed the clips"
	case "animator.setActiveClip":
		return "set the active clip " + quote(op.ClipID)
	}
	return "applied " + op.Op
}

// section says what happened to a card section; a secret one is not named to a reader who
// may not see it.
func (s *summarizer) section(verb, id string) string {
	if s.public && s.secret[id] {
		switch verb {
		case "made secret":
			return "hid a section"
		}
		return verb + " a secret section"
	}
	if verb == "made secret" {
		return "made section " + quote(s.titles[id]) + " secret"
	}
	return verb + " section " + quote(s.titles[id])
}

func (s *summarizer) eventLabel(id string, label *string) string {
	if label != nil {
		return *label
	}
	if l, ok := s.labels[id]; ok {
		return l
	}
	if t, ok := s.before.(*Timeline); ok {
		if i := t.find(id); i >= 0 {
			return t.Events[i].Label
		}
	}
	return id
}

func (s *summarizer) pinLabel(id string) string {
	if l, ok := s.labels[id]; ok {
		return l
	}
	if m, ok := s.before.(*Map); ok {
		if i := slices.IndexFunc(m.Pins, func(p Pin) bool { return p.ID == id }); i >= 0 {
			return m.Pins[i].Label
		}
	}
	return id
}

// toolPhrase says what a tool type's op did, with the field's label and the item's.
func (s *summarizer) toolPhrase(d *toolDoc, o *toolOp, raw json.RawMessage, id string) string {
	_, fs, _ := d.t.resolve(o.path.String())
	label := o.path.String()
	if fs != nil && fs.title != "" {
		label = fs.title
	}
	field := label
	if c := label[0]; c >= 'A' && c <= 'Z' {
		field = string(c+'a'-'A') + label[1:]
	}
	item := func() string {
		if l, ok := s.labels[id]; ok {
			return quote(l)
		}
		list := o.path.field
		if o.inList() {
			list = o.path.list
		}
		obj, key := parent(d.data, list) // conformed data has every object: nothing is added
		a, _ := obj[key].([]any)
		if i := itemIndex(a, id); i >= 0 {
			_, ls, _ := d.t.resolve(strings.Join(list, "."))
			if ls != nil && ls.items != nil {
				return quote(itemLabel(ls.items, a[i].(map[string]any)))
			}
		}
		return "an item"
	}
	switch o.kind {
	case KindSet:
		return "set " + field
	case KindAppend:
		var v map[string]any
		_ = json.Unmarshal(raw, &v)
		l := itemLabel(o.target.items, v)
		s.labels[id] = l
		return "added " + quote(l) + " to " + field
	case KindUpdate:
		return "edited " + item() + " in " + field
	case KindRemove:
		return "removed " + item() + " from " + field
	case KindMove:
		return "moved " + item() + " in " + field
	}
	if o.inList() {
		return "edited " + field + " of " + item()
	}
	return "edited " + field
}
