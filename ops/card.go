package ops

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Card is a card document (a character, a place, a thing): its own name, aliases, key/value
// properties and titled text sections.
type Card struct {
	// Name, when set, wins over the document's metadata name in this era (a character
	// renamed in a later age).
	Name       string     `json:"name"`
	Aliases    []string   `json:"aliases"`
	Properties []Property `json:"properties"`
	Sections   []Section  `json:"sections"`
}

// Property is one key/value fact on a card ("Born": "Year 312").
type Property struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Section is one titled block of text on a card.
type Section struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Body  string `json:"body"`
	// Secret sections are seen by the world's editors only (a game master's notes): viewers
	// get the card without them (Public) in every channel.
	Secret bool `json:"secret,omitempty"`
}

// MaxSectionBody is how many characters a card section's text may hold: with maxSections it
// keeps a card's text to a few megabytes at worst. The browser editor refuses a change past
// it before sending it.
const MaxSectionBody = 50000

const (
	maxAliases    = 50
	maxProperties = 200
	maxKey        = 200
	maxValue      = 5000
	maxSections   = 100
	maxTitle      = 500
	// maxSplices bounds one card.editSectionText.
	maxSplices = 1000
	// maxRequestSplices bounds the splices of one request, all ops together: a splice that
	// lands before an earlier one of its op costs that op's length so far, so this keeps the
	// worst request to a few milliseconds of the document's lock.
	maxRequestSplices = 10000
	// maxRebaseWork bounds a request's rebasing, counted as an edit's components times the
	// concurrent changes it crosses: past it the edit is stale_base_version, and its author
	// sends it again on the current version, which needs no rebase.
	maxRebaseWork = 10_000_000
	// maxUnits bounds a splice's pos and del, far above any body, so sums cannot overflow.
	maxUnits = 1 << 30
)

func init() {
	register(&docType{
		name:  "card",
		empty: func() Document { return (&Card{}).normalize() },
		decode: func(data []byte) (Document, error) {
			c := &Card{}
			if err := json.Unmarshal(data, c); err != nil {
				return nil, err
			}
			return c.normalize(), nil
		},
		ops: map[string]opFunc{
			"card.rename":           cardRename,
			"card.setAliases":       cardSetAliases,
			"card.setProperty":      cardSetProperty,
			"card.removeProperty":   cardRemoveProperty,
			"card.addSection":       cardAddSection,
			"card.updateSection":    cardUpdateSection,
			"card.editSectionText":  cardEditSectionText,
			"card.moveSection":      cardMoveSection,
			"card.removeSection":    cardRemoveSection,
			"card.setSectionSecret": cardSetSectionSecret,
		},
	})
}

// normalize turns missing lists into empty ones, so the JSON always has arrays.
func (c *Card) normalize() *Card {
	if c.Aliases == nil {
		c.Aliases = []string{}
	}
	if c.Properties == nil {
		c.Properties = []Property{}
	}
	if c.Sections == nil {
		c.Sections = []Section{}
	}
	return c
}

// Type implements Document.
func (c *Card) Type() string { return "card" }

// JSON implements Document.
func (c *Card) JSON() []byte { return mustJSON(c) }

// Text implements Document: the card's own name (else the document name), the aliases,
// each property's key and value, and each section's title and body.
func (c *Card) Text(name string) string { return c.PlainText(name, asIs) }

// PlainText implements MarkdownText: section bodies are Markdown.
func (c *Card) PlainText(name string, plain func(string) string) string {
	if c.Name != "" {
		name = c.Name
	}
	parts := make([]string, 0, 1+len(c.Aliases)+2*len(c.Properties)+2*len(c.Sections))
	parts = append(parts, name)
	parts = append(parts, c.Aliases...)
	for _, p := range c.Properties {
		parts = append(parts, p.Key, p.Value)
	}
	for _, s := range c.Sections {
		parts = append(parts, s.Title, plain(s.Body))
	}
	return joinText(parts)
}

func (c *Card) clone() Document {
	return &Card{
		Name:       c.Name,
		Aliases:    slices.Clone(c.Aliases),
		Properties: slices.Clone(c.Properties),
		Sections:   slices.Clone(c.Sections),
	}
}

func (c *Card) section(id string) int {
	return slices.IndexFunc(c.Sections, func(s Section) bool { return s.ID == id })
}

// findSection returns the index of the section the op's "id" names.
func (c *Card) findSection(op string, id *string) (int, error) {
	sid, err := requiredID(op, id)
	if err != nil {
		return 0, err
	}
	i := c.section(sid)
	if i < 0 {
		return 0, notFound("section", sid)
	}
	return i, nil
}

type renameParams struct {
	opField
	Name *string `json:"name"`
}

// cardRename sets the card's own name. An empty name clears it: the projection then falls
// back to the document's metadata name.
func cardRename(c *opCtx, doc Document) (any, error) {
	card := doc.(*Card)
	var p renameParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Name == nil {
		return nil, required(c.name, "name")
	}
	if err := c.label("name", *p.Name, 0, maxName); err != nil {
		return nil, err
	}
	card.Name = *p.Name
	return struct {
		Op   string `json:"op"`
		Name string `json:"name"`
	}{c.name, card.Name}, nil
}

type setAliasesParams struct {
	opField
	Aliases *[]string `json:"aliases"`
}

// cardSetAliases replaces the aliases. Each is 1 to 200 characters, no two alike.
func cardSetAliases(c *opCtx, doc Document) (any, error) {
	card := doc.(*Card)
	var p setAliasesParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Aliases == nil {
		return nil, required(c.name, "aliases")
	}
	aliases := *p.Aliases
	if len(aliases) > maxAliases {
		return nil, fieldError("aliases", "at most %d aliases, got %d", maxAliases, len(aliases))
	}
	for i, a := range aliases {
		field := fmt.Sprintf("aliases[%d]", i)
		if err := c.label(field, a, 1, maxName); err != nil {
			return nil, err
		}
		if slices.Contains(aliases[:i], a) {
			return nil, fieldError(field, "the alias %q appears twice", Echo(a))
		}
	}
	card.Aliases = append(make([]string, 0, len(aliases)), aliases...)
	return struct {
		Op      string   `json:"op"`
		Aliases []string `json:"aliases"`
	}{c.name, card.Aliases}, nil
}

type setPropertyParams struct {
	opField
	Key   *string `json:"key"`
	Value *string `json:"value"`
}

// cardSetProperty sets the value of the property key: in its place if the card has it,
// else as a new last property.
func cardSetProperty(c *opCtx, doc Document) (any, error) {
	card := doc.(*Card)
	var p setPropertyParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Key == nil {
		return nil, required(c.name, "key")
	}
	if err := c.label("key", *p.Key, 1, maxKey); err != nil {
		return nil, err
	}
	if p.Value == nil {
		return nil, required(c.name, "value")
	}
	if err := text("value", *p.Value, 0, maxValue); err != nil {
		return nil, err
	}
	prop := Property{Key: *p.Key, Value: *p.Value}
	if i := slices.IndexFunc(card.Properties, func(q Property) bool { return q.Key == prop.Key }); i >= 0 {
		card.Properties[i] = prop
	} else {
		if len(card.Properties) >= maxProperties {
			return nil, tooMany("properties", "properties", maxProperties)
		}
		card.Properties = append(card.Properties, prop)
	}
	return struct {
		Op string `json:"op"`
		Property
	}{c.name, prop}, nil
}

type removePropertyParams struct {
	opField
	Key *string `json:"key"`
}

func cardRemoveProperty(c *opCtx, doc Document) (any, error) {
	card := doc.(*Card)
	var p removePropertyParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Key == nil {
		return nil, required(c.name, "key")
	}
	i := slices.IndexFunc(card.Properties, func(q Property) bool { return q.Key == *p.Key })
	if i < 0 {
		return nil, notFoundBy("property", "key", *p.Key)
	}
	card.Properties = slices.Delete(card.Properties, i, i+1)
	return struct {
		Op  string `json:"op"`
		Key string `json:"key"`
	}{c.name, *p.Key}, nil
}

// listIndex reads a list position that must lie in [0, max].
func listIndex(field string, n *jsonNumber, max int) (int, error) {
	i, err := integer(field, *n)
	if err != nil {
		return 0, err
	}
	if i < 0 || i > int64(max) {
		return 0, fieldError(field, "%q must be between 0 and %d, got %d", field, max, i)
	}
	return int(i), nil
}

type addSectionParams struct {
	opField
	Title  *string     `json:"title"`
	Body   *string     `json:"body"`
	Index  *jsonNumber `json:"index"`
	Secret *bool       `json:"secret"`
}

// sectionApplied is the applied form of card.addSection: the whole new section and where
// it went.
type sectionApplied struct {
	Op string `json:"op"`
	Section
	Index int `json:"index"`
}

// cardAddSection adds a section with a new "sec-" id, at index (0 is first) or last.
func cardAddSection(c *opCtx, doc Document) (any, error) {
	card := doc.(*Card)
	var p addSectionParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Title == nil {
		return nil, required(c.name, "title")
	}
	if err := c.label("title", *p.Title, 1, maxTitle); err != nil {
		return nil, err
	}
	sec := Section{Title: *p.Title}
	if p.Body != nil {
		if err := text("body", *p.Body, 0, MaxSectionBody); err != nil {
			return nil, err
		}
		sec.Body = *p.Body
	}
	at := len(card.Sections)
	if p.Index != nil {
		i, err := listIndex("index", p.Index, len(card.Sections))
		if err != nil {
			return nil, err
		}
		at = i
	}
	if len(card.Sections) >= maxSections {
		return nil, tooMany("sections", "sections", maxSections)
	}
	if p.Secret != nil {
		sec.Secret = *p.Secret
	}
	sec.ID = c.newID("sec-")
	card.Sections = slices.Insert(card.Sections, at, sec)
	c.out.Created = append(c.out.Created, Created{ID: sec.ID, Label: sec.Title})
	return sectionApplied{Op: c.name, Section: sec, Index: at}, nil
}

type updateSectionParams struct {
	opField
	ID    *string `json:"id"`
	Title *string `json:"title"`
	Body  *string `json:"body"`
}

// updateSectionApplied is the applied form of card.updateSection: the fields it set and,
// when it set the body, the length in UTF-16 code units of the body it replaced, so that
// concurrent text edits can be rebased over the replacement.
type updateSectionApplied struct {
	Op                 string  `json:"op"`
	ID                 string  `json:"id"`
	Title              *string `json:"title,omitempty"`
	Body               *string `json:"body,omitempty"`
	PreviousBodyLength *int    `json:"previousBodyLength,omitempty"`
}

// cardUpdateSection sets a section's title, body or both. A new body replaces the whole
// text: a concurrent card.editSectionText is rebased over it as one splice replacing the
// previous body, so text typed concurrently lands after the new body.
func cardUpdateSection(c *opCtx, doc Document) (any, error) {
	card := doc.(*Card)
	var p updateSectionParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	i, err := card.findSection(c.name, p.ID)
	if err != nil {
		return nil, err
	}
	if p.Title == nil && p.Body == nil {
		return nil, atLeastOne(c.name, "title", "body")
	}
	sec := &card.Sections[i]
	out := updateSectionApplied{Op: c.name, ID: sec.ID}
	if p.Title != nil {
		if err := c.label("title", *p.Title, 1, maxTitle); err != nil {
			return nil, err
		}
		sec.Title, out.Title = *p.Title, p.Title
	}
	if p.Body != nil {
		if err := text("body", *p.Body, 0, MaxSectionBody); err != nil {
			return nil, err
		}
		prev := utf16Len(sec.Body)
		sec.Body, out.Body, out.PreviousBodyLength = *p.Body, p.Body, &prev
	}
	return out, nil
}

type editSectionTextParams struct {
	opField
	ID          *string         `json:"id"`
	BaseVersion *jsonNumber     `json:"baseVersion"`
	Splices     *[]spliceParams `json:"splices"`
}

type spliceParams struct {
	Pos *jsonNumber `json:"pos"`
	Del *jsonNumber `json:"del"`
	Ins *string     `json:"ins"`
}

// editSectionTextApplied is the applied form of card.editSectionText: the splices as
// rebased, on the version the request applied to.
type editSectionTextApplied struct {
	Op          string   `json:"op"`
	ID          string   `json:"id"`
	BaseVersion int64    `json:"baseVersion"`
	Splices     []Splice `json:"splices"`
}

// cardEditSectionText edits a section's body with splices in UTF-16 code units, made on the
// body as it was at baseVersion. The splices apply in order, each to the text the previous
// one left. The server rebases them over every change to that section's body applied after
// baseVersion: first the batches of the op log (Env.History), then the earlier ops of this
// request; so all the ops of one request that carry the same baseVersion refer to the same
// text, the one their author read. The algorithm is described with TransformSplices.
//
// baseVersion newer than the document, or a history that is not available, is
// stale_base_version: the client re-reads the document and makes its edit again.
func cardEditSectionText(c *opCtx, doc Document) (any, error) {
	card := doc.(*Card)
	var p editSectionTextParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	i, err := card.findSection(c.name, p.ID)
	if err != nil {
		return nil, err
	}
	id := card.Sections[i].ID
	body, edit, err := c.editText(id, card.Sections[i].Body, p.BaseVersion, p.Splices, MaxSectionBody)
	if err != nil {
		return nil, err
	}
	card.Sections[i].Body = body
	return editSectionTextApplied{Op: c.name, ID: id, BaseVersion: c.version, Splices: edit.splices()}, nil
}

// editText applies splices made at baseVersion to text, the current value of the text named
// key (a card section's id; a tool type's field path), rebased over the changes made to
// it since: the edit of card.editSectionText and of tool text ops. It returns the new text and
// the edit as applied.
func (c *opCtx) editText(key, text string, baseVersion *jsonNumber, raw *[]spliceParams, maxLen int) (string, textOp, error) {
	if baseVersion == nil {
		return "", nil, required(c.name, "baseVersion")
	}
	base, err := integer("baseVersion", *baseVersion)
	if err != nil {
		return "", nil, err
	}
	if base < 0 {
		return "", nil, fieldError("baseVersion", "%q must not be negative", "baseVersion")
	}
	if raw == nil {
		return "", nil, required(c.name, "splices")
	}
	splices, err := readSplices(*raw, maxLen)
	if err != nil {
		return "", nil, err
	}
	if c.out.splices += len(splices); c.out.splices > maxRequestSplices {
		return "", nil, fieldError("splices", "at most %d splices in one request, all ops together; send the edit in several requests", maxRequestSplices)
	}
	changes, err := c.textChangesSince(base, key)
	if err != nil {
		return "", nil, err
	}
	if len(*raw) == 0 && !c.replay {
		// As an update op that sets nothing is refused (atLeastOne): it would make a version
		// that changes nothing.
		return "", nil, fieldError("splices", "%s needs at least one splice in %q", c.name, "splices")
	}
	var edit textOp
	if len(changes) == 0 {
		// Made on the current text: every splice is checked against it, by index.
		edit, err = fromSplices(splices, &text)
	} else {
		edit, err = fromSplices(splices, nil)
	}
	if err != nil {
		return "", nil, err
	}
	if c.out.rebaseWork += len(edit) * len(changes); c.out.rebaseWork > maxRebaseWork {
		if base < c.version {
			return "", nil, c.stale(base, "the edit is too large to rebase over the %d changes made to the text since version %d", len(changes), base)
		}
		return "", nil, fieldError("splices", "this request edits one text too many times to merge its edits; send fewer, larger ops, or several requests")
	}
	edit = rebase(edit, changes)
	text, err = applyOp(text, edit)
	if err != nil {
		if e, ok := err.(*Error); ok && len(changes) > 0 {
			e.Message += fmt.Sprintf(", after rebasing the edit over %d concurrent changes since version %d", len(changes), base)
		}
		return "", nil, err
	}
	if n := utf8.RuneCountInString(text); n > maxLen {
		return "", nil, fieldError("splices", "the text would be %d characters long; the limit is %d", n, maxLen)
	}
	return text, edit, nil
}

func readSplices(in []spliceParams, maxLen int) ([]Splice, error) {
	if len(in) > maxSplices {
		return nil, fieldError("splices", "at most %d splices in one op, got %d", maxSplices, len(in))
	}
	out := make([]Splice, len(in))
	for i, sp := range in {
		field := fmt.Sprintf("splices[%d].pos", i)
		if sp.Pos == nil {
			return nil, fieldError(field, "%s is required", field)
		}
		pos, err := unitCount(field, *sp.Pos)
		if err != nil {
			return nil, err
		}
		out[i].Pos = pos
		if sp.Del != nil {
			field = fmt.Sprintf("splices[%d].del", i)
			if out[i].Del, err = unitCount(field, *sp.Del); err != nil {
				return nil, err
			}
		}
		if sp.Ins != nil {
			if err := text(fmt.Sprintf("splices[%d].ins", i), *sp.Ins, 0, maxLen); err != nil {
				return nil, err
			}
			out[i].Ins = *sp.Ins
		}
	}
	return out, nil
}

// unitCount reads a position or length in UTF-16 code units.
func unitCount(field string, n jsonNumber) (int, error) {
	v, err := integer(field, n)
	if err != nil {
		return 0, err
	}
	if v < 0 || v > maxUnits {
		return 0, fieldError(field, "%s must be between 0 and %d UTF-16 code units, got %d", field, maxUnits, v)
	}
	return int(v), nil
}

// MaxRebase is how many versions behind the document an editSectionText may be: its splices
// are transformed over every change since, read from the op log.
const MaxRebase = 1000

// textChangesSince returns the changes made to the text named key after version base, one
// list of splices per op, oldest first: those of the op log, then those of the earlier ops
// of this request.
func (c *opCtx) textChangesSince(base int64, key string) ([]concurrentEdit, error) {
	if base > c.version {
		return nil, c.stale(base, "baseVersion %d is newer than the document's version %d", base, c.version)
	}
	if c.version-base > MaxRebase {
		return nil, c.stale(base, "baseVersion %d is more than %d versions behind the document's version %d; re-read the document and make the edit again", base, MaxRebase, c.version)
	}
	var changes []concurrentEdit
	take := func(ch *textChange, version int64, sameRequest bool) error {
		if !ch.about(key) {
			return nil
		}
		if ch.reset {
			return c.stale(base, "the text was replaced whole at version %d, after version %d", version, base)
		}
		edit, err := ch.op()
		if err != nil {
			return err
		}
		// Ties go to the smaller client id; the request's own earlier ops come first.
		changes = append(changes, concurrentEdit{edit: edit, first: !sameRequest && c.client < ch.client})
		return nil
	}
	if base < c.version {
		h, err := c.textHistory(base)
		if err != nil {
			return nil, c.stale(base, "the changes made since version %d could not be read (%v)", base, err)
		}
		if h.restoredAt > base {
			// A restore replaced the whole document: the edit's positions say nothing
			// about the text it left.
			return nil, c.stale(base, "the document was restored to an earlier version at version %d, after version %d", h.restoredAt, base)
		}
		for _, ch := range h.changes {
			if ch.version > base {
				if err := take(ch, ch.version, false); err != nil {
					return nil, err
				}
			}
		}
	}
	// The earlier ops of this request, each read once per request.
	for _, op := range c.prior[c.out.priorRead:] {
		chs, err := c.changesOf(op)
		if err != nil {
			return nil, err
		}
		c.out.priorEdits = append(c.out.priorEdits, chs...)
		c.out.priorRead++
	}
	for _, ch := range c.out.priorEdits {
		if err := take(ch, c.version+1, true); err != nil {
			return nil, err
		}
	}
	return changes, nil
}

// textChange is the change one op as applied made to one text of the document (key): its
// splices, or reset when it replaced the text whole in a way splices do not say.
type textChange struct {
	key     string
	splices []Splice
	reset   bool
	version int64
	client  string // the client id of the batch that made it
	edit    textOp // the splices in canonical form, made once
}

// about reports whether the change is to the text named key (a reset names a prefix).
func (ch *textChange) about(key string) bool {
	if ch.reset {
		return strings.HasPrefix(key+".", ch.key)
	}
	return ch.key == key
}

func (ch *textChange) op() (textOp, error) {
	if ch.edit == nil && len(ch.splices) > 0 {
		edit, err := fromSplices(ch.splices, nil)
		if err != nil {
			return nil, err
		}
		ch.edit = edit
	}
	return ch.edit, nil
}

// cardTextChanges returns the change an op as applied made to a card section's body.
func cardTextChanges(op json.RawMessage) ([]*textChange, error) {
	id, splices, err := sectionSplices(op)
	if err != nil || len(splices) == 0 {
		return nil, err
	}
	return []*textChange{{key: id, splices: splices}}, nil
}

// textHistory holds the changes the op log made to the document's texts after version from,
// oldest first: read and converted once per request, however many of its ops edit texts.
type textHistory struct {
	from    int64
	changes []*textChange
	// restoredAt is the newest version that restored the document (RestoreOp), 0 for none.
	restoredAt int64
}

// textHistory returns the op log's changes after version base (and perhaps some before:
// callers filter by version). A missing or incomplete history is an error.
func (c *opCtx) textHistory(base int64) (*textHistory, error) {
	if h := c.out.history; h != nil && h.from <= base {
		return h, nil
	}
	if c.env.History == nil {
		return nil, errors.New("the history is not available here")
	}
	batches, err := c.env.History(base)
	if err != nil {
		return nil, err
	}
	if int64(len(batches)) != c.version-base {
		return nil, errors.New("the history is incomplete")
	}
	h := &textHistory{from: base}
	for k, b := range batches {
		if b.Version != base+1+int64(k) {
			return nil, errors.New("the history is incomplete")
		}
		for _, op := range b.Ops {
			if name, _ := opName(op); name == RestoreOp {
				h.restoredAt = b.Version
				continue
			}
			chs, err := c.changesOf(op)
			if err != nil {
				return nil, err
			}
			for _, ch := range chs {
				ch.version, ch.client = b.Version, b.ClientID
				h.changes = append(h.changes, ch)
			}
		}
	}
	c.out.history = h
	return h, nil
}

// stale reports an edit that cannot be rebased.
func (c *opCtx) stale(base int64, format string, args ...any) error {
	return &Error{
		Code:    CodeStaleBaseVersion,
		Field:   "baseVersion",
		Message: fmt.Sprintf(format, args...) + "; re-read the document and make the edit again on its current version",
		Details: map[string]any{"baseVersion": base, "version": c.version},
	}
}

type moveSectionParams struct {
	opField
	ID    *string     `json:"id"`
	Index *jsonNumber `json:"index"`
}

// cardMoveSection moves a section to index, its position once moved (0 is first).
func cardMoveSection(c *opCtx, doc Document) (any, error) {
	card := doc.(*Card)
	var p moveSectionParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	i, err := card.findSection(c.name, p.ID)
	if err != nil {
		return nil, err
	}
	if p.Index == nil {
		return nil, required(c.name, "index")
	}
	to, err := listIndex("index", p.Index, len(card.Sections)-1)
	if err != nil {
		return nil, err
	}
	sec := card.Sections[i]
	card.Sections = slices.Insert(slices.Delete(card.Sections, i, i+1), to, sec)
	return struct {
		Op    string `json:"op"`
		ID    string `json:"id"`
		Index int    `json:"index"`
	}{c.name, sec.ID, to}, nil
}

func cardRemoveSection(c *opCtx, doc Document) (any, error) {
	card := doc.(*Card)
	var p removeParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	i, err := card.findSection(c.name, p.ID)
	if err != nil {
		return nil, err
	}
	id := card.Sections[i].ID
	card.Sections = slices.Delete(card.Sections, i, i+1)
	return idApplied{c.name, id}, nil
}

type setSectionSecretParams struct {
	opField
	ID     *string `json:"id"`
	Secret *bool   `json:"secret"`
}

// cardSetSectionSecret marks a section secret (editors only) or not.
func cardSetSectionSecret(c *opCtx, doc Document) (any, error) {
	card := doc.(*Card)
	var p setSectionSecretParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	i, err := card.findSection(c.name, p.ID)
	if err != nil {
		return nil, err
	}
	if p.Secret == nil {
		return nil, required(c.name, "secret")
	}
	card.Sections[i].Secret = *p.Secret
	return struct {
		Op     string `json:"op"`
		ID     string `json:"id"`
		Secret bool   `json:"secret"`
	}{c.name, card.Sections[i].ID, *p.Secret}, nil
}

// HasSecrets implements Secretive.
func (c *Card) HasSecrets() bool {
	return slices.ContainsFunc(c.Sections, func(s Section) bool { return s.Secret })
}

// Public implements Secretive: the card without its secret sections.
func (c *Card) Public() Document {
	if !c.HasSecrets() {
		return c
	}
	out := c.clone().(*Card)
	out.Sections = slices.DeleteFunc(out.Sections, func(s Section) bool { return s.Secret })
	return out
}

// SecretText implements Secretive: the titles and bodies of the secret sections.
func (c *Card) SecretText(plain func(string) string) string {
	var parts []string
	for _, s := range c.Sections {
		if s.Secret {
			parts = append(parts, s.Title, plain(s.Body))
		}
	}
	return joinText(parts)
}
