package live

import (
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// SnapshotEvent is the data of `event: snapshot`: the whole content at a version.
type SnapshotEvent struct {
	Version      int64           `json:"version"`
	DocumentType string          `json:"documentType"`
	Data         json.RawMessage `json:"data"`
	Text         string          `json:"text"`
	Source       string          `json:"source"`
}

// OpsEvent is the data of `event: ops`: one accepted write.
type OpsEvent struct {
	Version      int64             `json:"version"`
	DocumentType string            `json:"documentType"`
	Ops          []json.RawMessage `json:"ops"`
	Actor        ActorJSON         `json:"actor"`
	// The editor that sent the write, as it named itself (store.ContentBody).
	store.Client
}

// DeletedEvent is the data of `event: deleted`, the last event of a document stream: the
// document was deleted where the stream looks at it. EraID is the era the delete was made
// in ("" = the main line): the stream's own era or one it descends from.
type DeletedEvent struct {
	ID    string `json:"id"`
	EraID string `json:"eraId"`
}

// ActorJSON is who made a change.
type ActorJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// lastEventID reads the resume point: the Last-Event-ID header, or ?lastEventId= (htmx's SSE
// extension loses the header when it reconnects). ok is false when there is none.
func lastEventID(r *http.Request) (int64, bool) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("lastEventId")
	}
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return 0, false // not ours: start over with a snapshot
	}
	return n, true
}

// ServeDocument streams one document in one era: a snapshot (or the versions missed since
// Last-Event-ID), then one `ops` event per accepted write, `presence` when watchers come and
// go, `metadata` when it or a folder above it is renamed or moved (see relayMetadata), and
// heartbeat comments; when the document is deleted in the era, `deleted`, and the stream
// ends. The caller has checked access.
//
// With public set (a viewer of the world), the client never sees secret parts: it is on the
// document's public stream, its snapshots are the public form of the content, a write whose
// ops are not safe for it (store.Change.Public) reaches it as a public snapshot at that
// version, and a resume or gap is always filled with a public snapshot, never the op log.
func (h *Hub) ServeDocument(e *core.RequestEvent, p auth.Principal, d store.Document, eraID string, public bool) error {
	streamID := docStream(d.ID, eraID)
	if public {
		streamID = publicStream(d.ID, eraID)
	}
	version := func() int64 {
		c, err := h.store.Content(d, eraID)
		if err != nil {
			return 0
		}
		return c.Version
	}
	resume, hasResume := lastEventID(e.Request)
	w := &streamWriter{versioned: true}
	w.replay = func(w *streamWriter) (int64, error) {
		// A delete committed since the caller's access check may have been relayed before
		// this client was registered (see endDeleted): it learns of it here instead.
		if _, err := h.store.Document(d.WorldID, d.ID, eraID); errors.Is(err, apierr.ErrNotFound) {
			w.send("deleted", -1, mustJSON(DeletedEvent{ID: d.ID, EraID: h.deletedIn(d, eraID)}))
			w.flush()
			return 0, errDocumentGone
		}
		c, err := h.store.Content(d, eraID)
		if err != nil {
			return 0, err
		}
		if public {
			if hasResume && resume == c.Version {
				return c.Version, nil // nothing new
			}
			return h.sendSnapshot(w, d, c.Public(d)), nil
		}
		if hasResume && resume <= c.Version {
			return h.catchUp(w, d, eraID, resume, c.Version)
		}
		return h.sendSnapshot(w, d, c), nil
	}
	w.fill = func(w *streamWriter, from, to int64) (int64, error) {
		if public {
			c, err := h.store.Content(d, eraID)
			if err != nil {
				return 0, err
			}
			return h.sendSnapshot(w, d, c.Public(d)), nil
		}
		return h.catchUp(w, d, eraID, from, to)
	}
	// The join is announced once this client is registered, so it sees its own arrival; a
	// second connection of someone already watching changes nothing for the others, so only
	// this client is told who is there.
	w.ready = func() {
		if changed, list := h.presenceChange(d.ID, eraID, p, +1, version); !changed {
			w.send("presence", w.last, mustJSON(map[string]any{"viewers": list}))
		}
	}
	c := &conn{p: p, worldID: d.WorldID, streamID: streamID, content: true}
	return h.serve(e, c, w, func() { h.presenceChange(d.ID, eraID, p, -1, version) })
}

// catchUp brings a client from version from to version to: the op-log entries in between as
// ops events, or a snapshot of the current content when they are more than MaxResume
// versions or MaxReplayBytes, or no longer all in the op log. It returns the version the
// client then has.
func (h *Hub) catchUp(w *streamWriter, d store.Document, eraID string, from, to int64) (int64, error) {
	if to-from <= MaxResume {
		span, err := h.store.OpLogSpan(d, eraID, from, to)
		if err != nil {
			return 0, err
		}
		if span.Complete() && span.Bytes <= MaxReplayBytes {
			reached, err := h.writeLog(w, d, eraID, from, to)
			if !errors.Is(err, errLogGap) {
				return reached, err
			}
			// Entries went (a write trimmed the op log) while they were read: the snapshot
			// holds them.
		}
	}
	c, err := h.store.Content(d, eraID)
	if err != nil {
		return 0, err
	}
	return h.sendSnapshot(w, d, c), nil
}

// sendSnapshot sends the content as a snapshot event and returns its version.
func (h *Hub) sendSnapshot(w *streamWriter, d store.Document, c store.Content) int64 {
	w.send("snapshot", c.Version, mustJSON(SnapshotEvent{Version: c.Version, DocumentType: d.DocumentType, Data: c.Data, Text: c.Text, Source: c.Source}))
	return c.Version
}

// errLogGap ends a replay that found a version missing from the op log.
var errLogGap = errors.New("live: op log entry missing")

// writeLog sends the op-log entries in (from, to] as ops events, each as it is read, and
// returns the last version sent (from if none). It stops at a missing version (errLogGap)
// and when the client is gone.
func (h *Hub) writeLog(w *streamWriter, d store.Document, eraID string, from, to int64) (int64, error) {
	last := from
	names := map[string]string{} // actor id -> name, looked up once per replay
	err := h.store.ScanOpLog(d, eraID, from, to, func(en store.LogEntry) error {
		if en.Version != last+1 {
			return errLogGap
		}
		name, ok := names[en.ActorID]
		if !ok {
			name = h.userName(en.ActorID)
			names[en.ActorID] = name
		}
		w.send("ops", en.Version, mustJSON(OpsEvent{Version: en.Version, DocumentType: d.DocumentType, Ops: en.Ops, Actor: ActorJSON{ID: en.ActorID, Name: name}, Client: en.Client}))
		if w.failed {
			return errStreamClosed
		}
		last = en.Version
		return nil
	})
	return last, err
}

func (h *Hub) userName(id string) string {
	if id == "" {
		return ""
	}
	u, err := h.store.App().FindRecordById("users", id)
	if errors.Is(err, sql.ErrNoRows) {
		return store.DeletedAccount
	}
	if err != nil {
		return ""
	}
	if n := u.GetString("name"); n != "" {
		return n
	}
	return u.Email()
}

// onChange publishes committed content writes to the streams that show them: the era written
// and every era that still inherits the document from it.
func (h *Hub) onChange(c store.Change) {
	if c.Kind != "document.content" {
		return
	}
	if len(c.LinkTargets) > 0 {
		h.relayBacklinks(c)
	}
	type target struct {
		era    string
		public bool
	}
	h.mu.Lock()
	var targets []target
	for id := range h.streams {
		if docID, era, public, ok := parseDocStream(id); ok && docID == c.DocumentID {
			targets = append(targets, target{era, public})
		}
	}
	h.mu.Unlock()
	if len(targets) == 0 { // nobody watches: most writes
		return
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(c.Ops, &batch); err != nil {
		return
	}
	ev := OpsEvent{Version: c.Version, DocumentType: c.DocumentType, Ops: batch, Actor: ActorJSON{ID: c.Actor.UserID, Name: c.Actor.Name}, Client: c.Client}
	var snapshot *SnapshotEvent // viewers' public form of the new content, made once
	for _, t := range targets {
		if t.era != c.EraID && !h.inherits(c.WorldID, c.DocumentID, t.era, c.EraID) {
			continue
		}
		switch {
		case !t.public:
			h.publish(docStream(c.DocumentID, t.era), "ops", c.Version, ev)
		case c.Public:
			h.publish(publicStream(c.DocumentID, t.era), "ops", c.Version, ev)
		default:
			if snapshot == nil {
				snapshot = h.publicSnapshot(c)
			}
			if snapshot != nil {
				h.publish(publicStream(c.DocumentID, t.era), "snapshot", c.Version, snapshot)
			}
		}
	}
}

// BacklinksEvent is the data of `event: backlinks` on a document stream: a write to another
// document linked or unlinked this one, so its "Linked from" changed. Readers fetch the list
// again (GET …/links, or the page's fragment).
type BacklinksEvent struct {
	// SourceID is the document whose write changed its links.
	SourceID string `json:"sourceId"`
}

// relayBacklinks tells the open streams of the documents a content write linked or unlinked,
// in the eras that see the write, that their backlinks changed.
func (h *Hub) relayBacklinks(c store.Change) {
	type watched struct{ doc, era string }
	var targets []watched
	h.mu.Lock()
	for id := range h.streams {
		if docID, era, _, ok := parseDocStream(id); ok && slices.Contains(c.LinkTargets, docID) && !slices.Contains(targets, watched{docID, era}) {
			targets = append(targets, watched{docID, era})
		}
	}
	h.mu.Unlock()
	for _, t := range targets {
		if t.era != c.EraID && !h.inherits(c.WorldID, c.DocumentID, t.era, c.EraID) {
			continue
		}
		d, err := h.store.DocumentByID(t.doc)
		if err != nil {
			continue
		}
		content, err := h.store.Content(d, t.era)
		if err != nil {
			continue
		}
		h.publishDoc(t.doc, t.era, "backlinks", content.Version, BacklinksEvent{SourceID: c.DocumentID})
	}
}

// publicSnapshot is the snapshot a viewer gets of a write it may not see as ops: the public
// form of the content the write made. Nil when the document is gone.
func (h *Hub) publicSnapshot(c store.Change) *SnapshotEvent {
	d, err := h.store.DocumentByID(c.DocumentID)
	if err != nil || c.Doc == nil {
		return nil
	}
	pub := ops.Public(c.Doc)
	return &SnapshotEvent{Version: c.Version, DocumentType: c.DocumentType, Data: pub.JSON(), Text: pub.Text(d.Name), Source: "live"}
}

// errDocumentGone ends a stream whose document was deleted before its replay.
var errDocumentGone = errors.New("live: document deleted")

// endDeleted sends `deleted` to the streams of a deleted document that no longer see it (the
// era of the delete and the eras descending from it; every era for a main-line delete), and
// closes them. A stream whose replay has not run yet is left to the replay, which finds the
// document gone: the delete committed before its outbox row got here.
func (h *Hub) endDeleted(r store.OutboxRow) {
	eraOf := func(c *conn) (string, bool) {
		docID, era, _, ok := parseDocStream(c.streamID)
		return era, ok && docID == r.Document
	}
	watchers := h.connsWhere(func(c *conn) bool {
		_, ok := eraOf(c)
		return c.worldID == r.World && ok
	})
	if len(watchers) == 0 {
		return
	}
	data := mustJSON(DeletedEvent{ID: r.Document, EraID: r.Era})
	gone := map[string]bool{} // era -> the document is no longer visible there
	for _, c := range watchers {
		era, _ := eraOf(c)
		g, seen := gone[era]
		if !seen {
			_, err := h.store.Document(r.World, r.Document, era)
			g = errors.Is(err, apierr.ErrNotFound)
			gone[era] = g
		}
		if g {
			c.w.end("deleted", data)
		}
	}
}

// deletedIn returns the era, in eraID's chain, that d was deleted in: the nearest with a
// deleted state; "" (the main line) when none has one, as after a main-line delete.
func (h *Hub) deletedIn(d store.Document, eraID string) string {
	chain, err := h.store.EraChain(d.WorldID, eraID)
	if err != nil {
		return ""
	}
	states, err := h.store.States(d.ID)
	if err != nil {
		return ""
	}
	for _, era := range chain {
		for _, st := range states {
			if st.Era == era && st.Deleted {
				return era
			}
		}
	}
	return ""
}

// inherits reports whether the document as seen from era comes from the state written in
// source (era has no copy of its own between itself and source).
func (h *Hub) inherits(worldID, docID, era, source string) bool {
	chain, err := h.store.EraChain(worldID, era)
	if err != nil {
		return false
	}
	owners, err := h.store.StateEras(docID)
	if err != nil {
		return false
	}
	for _, e := range chain {
		if e == source {
			return true
		}
		if owners[e] {
			return false
		}
	}
	return false
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("live: encode event: " + err.Error())
	}
	return b
}
