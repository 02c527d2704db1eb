package ops

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
)

// Timeline is a timeline document: events kept sorted by dateMs, same dates in the order added.
type Timeline struct {
	Events []Event `json:"events"`
}

// Event is one dated event on a timeline.
type Event struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	DateMs      int64  `json:"dateMs"`
	Description string `json:"description"`
	Precision   string `json:"precision"`
}

// Precisions are the granularities an event date may have, coarsest first.
var Precisions = []string{"millennium", "century", "decade", "year", "month", "day", "hour", "minute", "second"}

const (
	maxLabel       = 500
	maxDescription = 20000
	// maxEvents bounds a timeline: with the label and description limits it keeps one
	// document's data in the tens of megabytes at worst.
	maxEvents = 5000
)

func init() {
	register(&docType{
		name:  "timeline",
		empty: func() Document { return &Timeline{Events: []Event{}} },
		decode: func(data []byte) (Document, error) {
			t := &Timeline{}
			if err := json.Unmarshal(data, t); err != nil {
				return nil, err
			}
			if t.Events == nil {
				t.Events = []Event{}
			}
			t.sort()
			return t, nil
		},
		ops: map[string]opFunc{
			"timeline.addEvent":    timelineAddEvent,
			"timeline.updateEvent": timelineUpdateEvent,
			"timeline.removeEvent": timelineRemoveEvent,
		},
	})
}

// Type implements Document.
func (t *Timeline) Type() string { return "timeline" }

// JSON implements Document.
func (t *Timeline) JSON() []byte { return mustJSON(t) }

// Text implements Document: the name, then each event's label and description.
func (t *Timeline) Text(name string) string {
	parts := []string{name}
	for _, e := range t.Events {
		parts = append(parts, e.Label)
		if e.Description != "" {
			parts = append(parts, e.Description)
		}
	}
	return joinText(parts)
}

func (t *Timeline) clone() Document {
	return &Timeline{Events: slices.Clone(t.Events)}
}

// sort orders events by date; events of the same date keep the order they were added in
// (the sort is stable and a new event is appended before it).
func (t *Timeline) sort() {
	slices.SortStableFunc(t.Events, func(a, b Event) int { return cmp.Compare(a.DateMs, b.DateMs) })
}

// find returns the index of the event with the given id, or -1.
func (t *Timeline) find(id string) int {
	return slices.IndexFunc(t.Events, func(e Event) bool { return e.ID == id })
}

func checkPrecision(p string) error {
	if slices.Contains(Precisions, p) {
		return nil
	}
	e := fieldError("precision", "%q is not a precision; use one of %s", Echo(p), strings.Join(Precisions, ", "))
	e.Details = map[string]any{"allowed": Precisions}
	return e
}

type addEventParams struct {
	opField
	Label       *string     `json:"label"`
	DateMs      *jsonNumber `json:"dateMs"`
	Description *string     `json:"description"`
	Precision   *string     `json:"precision"`
}

func timelineAddEvent(c *opCtx, doc Document) (any, error) {
	t := doc.(*Timeline)
	var p addEventParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Label == nil {
		return nil, required(c.name, "label")
	}
	if err := c.label("label", *p.Label, 1, maxLabel); err != nil {
		return nil, err
	}
	if p.DateMs == nil {
		return nil, required(c.name, "dateMs")
	}
	date, err := dateMs("dateMs", *p.DateMs)
	if err != nil {
		return nil, err
	}
	ev := Event{ID: c.newID("evt-"), Label: *p.Label, DateMs: date, Precision: "day"}
	if p.Description != nil {
		if err := text("description", *p.Description, 0, maxDescription); err != nil {
			return nil, err
		}
		ev.Description = *p.Description
	}
	if p.Precision != nil {
		if err := checkPrecision(*p.Precision); err != nil {
			return nil, err
		}
		ev.Precision = *p.Precision
	}
	if len(t.Events) >= maxEvents {
		return nil, tooMany("events", "events", maxEvents)
	}
	// After the events of its date and before later ones, where the stable sort would put
	// it (the events are in order): a search, not a sort of a long timeline at every event.
	at, _ := slices.BinarySearchFunc(t.Events, date, func(e Event, d int64) int {
		if e.DateMs <= d {
			return -1
		}
		return 1
	})
	t.Events = slices.Insert(t.Events, at, ev)
	c.out.Created = append(c.out.Created, Created{ID: ev.ID, Label: ev.Label})
	return struct {
		Op string `json:"op"`
		Event
	}{c.name, ev}, nil
}

type updateEventParams struct {
	opField
	ID          *string     `json:"id"`
	Label       *string     `json:"label"`
	DateMs      *jsonNumber `json:"dateMs"`
	Description *string     `json:"description"`
	Precision   *string     `json:"precision"`
}

// updateEventApplied is the applied form of timeline.updateEvent: the id and the fields
// the op set, with their final values.
type updateEventApplied struct {
	Op          string  `json:"op"`
	ID          string  `json:"id"`
	Label       *string `json:"label,omitempty"`
	DateMs      *int64  `json:"dateMs,omitempty"`
	Description *string `json:"description,omitempty"`
	Precision   *string `json:"precision,omitempty"`
}

// timelineUpdateEvent changes any of an event's label, date, description and precision; a
// new date moves the event to its place in the order.
func timelineUpdateEvent(c *opCtx, doc Document) (any, error) {
	t := doc.(*Timeline)
	var p updateEventParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	id, err := requiredID(c.name, p.ID)
	if err != nil {
		return nil, err
	}
	if p.Label == nil && p.DateMs == nil && p.Description == nil && p.Precision == nil {
		return nil, atLeastOne(c.name, "label", "dateMs", "description", "precision")
	}
	i := t.find(id)
	if i < 0 {
		return nil, notFound("event", id)
	}
	ev := &t.Events[i]
	out := updateEventApplied{Op: c.name, ID: id}
	if p.Label != nil {
		if err := c.label("label", *p.Label, 1, maxLabel); err != nil {
			return nil, err
		}
		ev.Label, out.Label = *p.Label, p.Label
	}
	if p.DateMs != nil {
		date, err := dateMs("dateMs", *p.DateMs)
		if err != nil {
			return nil, err
		}
		ev.DateMs, out.DateMs = date, &date
	}
	if p.Description != nil {
		if err := text("description", *p.Description, 0, maxDescription); err != nil {
			return nil, err
		}
		ev.Description, out.Description = *p.Description, p.Description
	}
	if p.Precision != nil {
		if err := checkPrecision(*p.Precision); err != nil {
			return nil, err
		}
		ev.Precision, out.Precision = *p.Precision, p.Precision
	}
	if p.DateMs != nil {
		t.sort()
	}
	return out, nil
}

type removeParams struct {
	opField
	ID *string `json:"id"`
}

// idApplied is the applied form of the ops that only name an item (the remove ops).
type idApplied struct {
	Op string `json:"op"`
	ID string `json:"id"`
}

func timelineRemoveEvent(c *opCtx, doc Document) (any, error) {
	t := doc.(*Timeline)
	var p removeParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	id, err := requiredID(c.name, p.ID)
	if err != nil {
		return nil, err
	}
	i := t.find(id)
	if i < 0 {
		return nil, notFound("event", id)
	}
	t.Events = slices.Delete(t.Events, i, i+1)
	return idApplied{c.name, id}, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("ops: encode: " + err.Error())
	}
	return b
}

// joinText joins non-empty parts with single spaces.
func joinText(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
}
