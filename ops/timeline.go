package ops

import (
	"encoding/json"
	"slices"
	"strings"
)

// Timeline is a timeline document: events kept sorted by dateMs, then id.
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
			return t, nil
		},
		ops: map[string]opFunc{
			"timeline.addEvent": timelineAddEvent,
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

func (t *Timeline) sort() {
	slices.SortStableFunc(t.Events, func(a, b Event) int {
		if a.DateMs != b.DateMs {
			if a.DateMs < b.DateMs {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
}

type addEventParams struct {
	opField
	Label       *string      `json:"label"`
	DateMs      *json.Number `json:"dateMs"`
	Description *string      `json:"description"`
	Precision   *string      `json:"precision"`
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
	if err := text("label", *p.Label, 1, maxLabel); err != nil {
		return nil, err
	}
	if p.DateMs == nil {
		return nil, required(c.name, "dateMs")
	}
	date, err := integer("dateMs", *p.DateMs)
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
		if !slices.Contains(Precisions, *p.Precision) {
			e := fieldError("precision", "%q is not a precision; use one of %s", *p.Precision, strings.Join(Precisions, ", "))
			e.Details = map[string]any{"allowed": Precisions}
			return nil, e
		}
		ev.Precision = *p.Precision
	}
	t.Events = append(t.Events, ev)
	t.sort()
	c.out.Created = append(c.out.Created, Created{ID: ev.ID, Label: ev.Label})
	return struct {
		Op string `json:"op"`
		Event
	}{c.name, ev}, nil
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
