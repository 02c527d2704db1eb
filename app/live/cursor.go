package live

import (
	"bytes"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// Cursor is where one editor's cursor and selection are in a text of a document: a card
// section's body (Field is the section id). Positions are UTF-16 code units in the text as
// it was at Version; watchers map them over the writes since. Field "" means the editor
// left the text. Cursors travel as short-lived `cursor` events on the document's stream
// and are never written to the op log.
type Cursor struct {
	ClientID string `json:"clientId"`
	Field    string `json:"field"`
	Anchor   int    `json:"anchor"`
	Head     int    `json:"head"`
	Version  int64  `json:"version"`
}

// CursorEvent is the data of `event: cursor`.
type CursorEvent struct {
	Cursor
	User viewer `json:"user"`
}

// PublishCursor tells the watchers of d in eraID where p's cursor is (viewers only when it
// is not in a secret section). The event's id is
// the document's current version, so it never moves a watcher's resume point.
func (h *Hub) PublishCursor(p auth.Principal, d store.Document, eraID string, current int64, c Cursor) {
	name := p.Name
	if name == "" {
		name = p.Email
	}
	ev := CursorEvent{Cursor: c, User: viewer{ID: p.UserID, Name: name, Colour: Colour(p.UserID)}}
	h.publish(docStream(d.ID, eraID), "cursor", current, ev)
	if !h.secretField(d, eraID, c.Field) {
		h.publish(publicStream(d.ID, eraID), "cursor", current, ev)
	}
}

// secretField reports whether field names a secret part of d in eraID (a secret section):
// a cursor there is not shown to viewers, who do not have the section.
func (h *Hub) secretField(d store.Document, eraID, field string) bool {
	if field == "" {
		return false
	}
	c, err := h.store.Content(d, eraID)
	if err != nil {
		return true
	}
	if !bytes.Contains(c.Data, []byte(`"secret":true`)) {
		return false
	}
	doc, err := h.store.Decode(d, c.Data)
	return err != nil || ops.IsSecretPart(doc, field)
}
