// Package live makes every write appear at once for everyone watching: Server-Sent Events
// streams per document (and era) and per world, with replay from the op log, presence, and
// access re-checked when keys are revoked, members removed or plans downgraded.
//
// The transport is github.com/r3labs/sse/v2, used only through streamWriter and Hub: no
// auto-replay, no auto-streams, streams removed only when our own count of their
// connections is zero, publishing only with TryPublish.
package live

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pocketbase/pocketbase/core"
	"github.com/r3labs/sse/v2"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/background"
	"github.com/loreweave/loreweave/app/ratelimit"
	"github.com/loreweave/loreweave/app/store"
)

// Tunables of the live layer.
const (
	// MaxResume is how far behind a Last-Event-ID may be and still be replayed from the op
	// log; further (or ahead of the current version) gets a fresh snapshot.
	MaxResume = 1000
	// MaxReplayBytes bounds the op log a resume (or a gap fill) replays: past it the client
	// gets a snapshot instead, which the document cap (store.MaxDocumentBytes, 4 MiB) bounds.
	// Twice that cap, so a replay never costs much more than the largest snapshot, and well
	// within what the op log keeps (store.OpLogKeepBytes). The replay is read and written a
	// chunk at a time, so a resumed stream holds little memory whatever the history.
	MaxReplayBytes = 8 << 20
	// WriteTimeout bounds every write to a stream client.
	WriteTimeout = time.Second
	// Heartbeat is the interval of keep-alive comments.
	Heartbeat = 15 * time.Second
	// RetryAfterShutdown is the reconnect delay sent to clients when the server stops.
	RetryAfterShutdown = 2 * time.Second
	// MaxStreamsPerUser bounds the event streams and MCP requests one user may hold open at
	// once, across all their keys, OAuth tokens and sessions: each holds a connection and a
	// file descriptor, and the web pages open at most a couple per tab.
	MaxStreamsPerUser = 50
)

// Hub owns every live stream of the process.
type Hub struct {
	store  *store.Store
	access auth.Access
	keys   *auth.Keys
	sse    *sse.Server

	// Heartbeat may be shortened by tests before Start.
	Heartbeat time.Duration
	// MaxStreamsPerAddress bounds the streams one client address may hold open at once,
	// signed in or not, whatever the kind (these, MCP's, PocketBase's realtime); 0: no
	// limit. Set before Start.
	MaxStreamsPerAddress int

	mu      sync.Mutex
	streams map[string]*stream
	conns   map[*conn]struct{}
	// presence lists who watches each document in each era (docStream id -> user id ->
	// viewer), over both of its streams: editors' and viewers' (publicStream).
	presence map[string]map[string]*viewer
	// users and addresses count the streams admitted and not yet ended, per user id and
	// per client address.
	users, addresses *ratelimit.Slots

	cancel context.CancelFunc
	done   chan struct{}
}

// stream is our bookkeeping for one r3labs stream.
type stream struct {
	conns int
}

// conn is one open stream connection.
type conn struct {
	p        auth.Principal
	worldID  string
	streamID string
	// content is true for streams of document content (plan-gated for keys and OAuth).
	content bool
	w       *streamWriter
}

// New returns a hub. Start must be called before streams are served.
func New(s *store.Store, access auth.Access, keys *auth.Keys) *Hub {
	srv := sse.New()
	srv.AutoReplay = false
	srv.AutoStream = false
	srv.SplitData = true
	srv.BufferSize = 256
	srv.Headers = map[string]string{"X-Accel-Buffering": "no"}
	return &Hub{store: s, access: access, keys: keys, sse: srv, Heartbeat: Heartbeat,
		streams: map[string]*stream{}, conns: map[*conn]struct{}{}, presence: map[string]map[string]*viewer{},
		users: ratelimit.NewSlots(MaxStreamsPerUser, "streams", "for this user")}
}

// Start subscribes to committed changes and to the outbox, and starts the heartbeat.
func (h *Hub) Start() error {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.done = make(chan struct{})
	h.addresses = ratelimit.NewSlots(h.MaxStreamsPerAddress, "streams", "from this client address")
	h.store.OnChange(h.onChange)
	h.store.OnOutbox(h.onOutbox)
	go func() {
		defer close(h.done)
		background.Loop(ctx, h.store.App().Logger(), "stream heartbeats", h.heartbeats)
	}()
	return nil
}

// Stop tells every client to reconnect after RetryAfterShutdown and closes its stream.
func (h *Hub) Stop() {
	if h.cancel != nil {
		h.cancel()
		<-h.done
	}
	h.mu.Lock()
	conns := make([]*conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		c.w.close(RetryAfterShutdown)
	}
}

func docStream(docID, eraID string) string { return "doc/" + docID + "/" + eraID }

// publicStream is the stream of a document in an era for those who may not see its secret
// parts (viewers of the world): the same events, but content in its public form.
func publicStream(docID, eraID string) string { return "pub/" + docID + "/" + eraID }

// parseDocStream reads a document stream id (docStream or publicStream); ok is false for
// other streams.
func parseDocStream(id string) (docID, eraID string, public, ok bool) {
	rest, ok := strings.CutPrefix(id, "doc/")
	if !ok {
		if rest, ok = strings.CutPrefix(id, "pub/"); !ok {
			return "", "", false, false
		}
		public = true
	}
	docID, eraID, ok = strings.Cut(rest, "/")
	return docID, eraID, public, ok
}

// publishDoc publishes an event to both streams of a document in an era. Only events that
// hold nothing secret (presence, metadata) go to both.
func (h *Hub) publishDoc(docID, eraID, event string, id int64, data any) {
	h.publish(docStream(docID, eraID), event, id, data)
	h.publish(publicStream(docID, eraID), event, id, data)
}
func worldStream(worldID string) string { return "world/" + worldID }

// Connections returns the number of open stream connections.
func (h *Hub) Connections() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns)
}

// serve runs one stream connection through r3labs until the client leaves or is closed.
// Over HTTP/1.1 it takes the connection over from net/http and returns at once: the stream
// then lives on two small goroutines (r3labs' loop and a close watcher) instead of the
// request's whole handler stack and net/http's own.
func (h *Hub) serve(e *core.RequestEvent, c *conn, w *streamWriter, onLeave func()) error {
	// Admitted before anything else, so a refusal is a plain JSON answer; from here on every
	// path reaches run, which releases the admission.
	release, err := h.Admit(c.p.UserID, e.RealIP())
	if err != nil {
		return err
	}
	var ctx context.Context
	var cancel context.CancelFunc
	raw, hijacked := hijack(e)
	if hijacked {
		// The request's context ends when this handler returns: the stream needs its own.
		ctx, cancel = context.WithCancel(context.Background())
		w.w, w.rc = raw, http.NewResponseController(raw)
	} else {
		rc := http.NewResponseController(e.Response)
		// PocketBase's server has a 5-minute WriteTimeout; streams use per-write deadlines.
		_ = rc.SetWriteDeadline(time.Time{})
		ctx, cancel = context.WithCancel(e.Request.Context())
		w.w, w.rc = e.Response, rc
	}
	w.cancel, w.timeout = cancel, WriteTimeout
	c.w = w

	h.mu.Lock()
	st := h.streams[c.streamID]
	if st == nil {
		st = &stream{}
		h.streams[c.streamID] = st
		h.sse.CreateStream(c.streamID)
	}
	st.conns++
	h.conns[c] = struct{}{}
	h.mu.Unlock()

	r := e.Request.Clone(ctx)
	r.URL = &url.URL{Path: r.URL.Path, RawQuery: "stream=" + url.QueryEscape(c.streamID)}
	r.Header.Del("Last-Event-ID") // we resume ourselves; r3labs rejects non-numeric ids
	run := func() {
		defer func() { // even if r3labs panics: the user's admission must not leak
			w.finish()
			if onLeave != nil {
				onLeave()
			}
			h.mu.Lock()
			delete(h.conns, c)
			st.conns--
			if st.conns == 0 {
				delete(h.streams, c.streamID)
				h.sse.RemoveStream(c.streamID) // no subscriber left: safe to remove
			}
			h.mu.Unlock()
			release()
			cancel()
		}()
		h.sse.ServeHTTP(w, r)
	}
	if !hijacked {
		run()
		return nil
	}
	go watchClose(raw.conn, cancel)
	go func() {
		defer background.Recover(h.store.App().Logger(), "event stream")
		defer raw.conn.Close()
		run()
	}()
	return nil
}

// Admit counts one more long-lived stream of a user (none for "": anonymous) from a client
// address, or refuses it with 429 rate_limited when either already holds its most
// (MaxStreamsPerUser, MaxStreamsPerAddress). Every kind of stream is admitted here, the
// MCP connector's too, so that the caps count them all; release ends the stream's count.
func (h *Hub) Admit(userID, ip string) (release func(), err error) {
	releaseAddress, aerr := h.addresses.Take(ip)
	if aerr != nil {
		return nil, aerr
	}
	if userID == "" {
		return releaseAddress, nil
	}
	releaseUser, uerr := h.users.Take(userID)
	if uerr != nil {
		releaseAddress()
		return nil, uerr
	}
	return func() { releaseUser(); releaseAddress() }, nil
}

// LimitRealtime admits PocketBase's own realtime stream (/api/realtime, which the dashboard
// uses) under the per-address cap: anyone may open it without signing in, and each one
// holds a connection for as long as the client likes.
func (h *Hub) LimitRealtime(e *core.RequestEvent) error {
	if e.Request.Method != http.MethodGet || e.Request.URL.Path != "/api/realtime" {
		return e.Next()
	}
	release, err := h.Admit("", e.RealIP())
	if err != nil {
		apierr.Write(e.Response, e.Request, nil, err)
		return nil
	}
	defer release()
	return e.Next()
}

// publish hands an event to a stream without ever blocking; a dropped event becomes a gap
// that each client's writer fills from the op log.
func (h *Hub) publish(streamID, event string, id int64, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		return
	}
	h.sse.TryPublish(streamID, &sse.Event{ID: []byte(strconv.FormatInt(id, 10)), Event: []byte(event), Data: b})
}

func (h *Hub) heartbeats(ctx context.Context) {
	t := time.NewTicker(h.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			h.mu.Lock()
			ids := make([]string, 0, len(h.streams))
			for id := range h.streams {
				ids = append(ids, id)
			}
			h.mu.Unlock()
			for _, id := range ids {
				h.sse.TryPublish(id, &sse.Event{Comment: []byte("heartbeat")})
			}
		}
	}
}

// onOutbox re-checks open streams when access may have changed or a document was deleted,
// tells document streams of renames and moves, ends the streams of trashed worlds and
// deleted eras, and relays world events.
func (h *Hub) onOutbox(rows []store.OutboxRow) {
	for _, r := range rows {
		switch r.Kind {
		case "key.revoked":
			h.closeWhere(func(c *conn) bool { return c.p.Kind == auth.KindAPIKey && c.p.CredentialID == r.Subject })
		case "oauth.revoked":
			h.closeWhere(func(c *conn) bool { return c.p.Kind == auth.KindOAuth && c.p.CredentialID == r.Subject })
		case "session.ended":
			h.closeWhere(func(c *conn) bool { return c.p.Kind == auth.KindSession && c.p.CredentialID == r.Subject })
		case auth.SessionsEndedKind: // every session of a user: a new password or email, or the account deleted
			h.closeWhere(func(c *conn) bool { return c.p.Kind == auth.KindSession && c.p.UserID == r.Subject })
		case "member.removed":
			h.closeWhere(func(c *conn) bool { return c.worldID == r.World && c.p.UserID == r.Subject })
		case "member.role":
			// A new role may see less of a document (secret sections) or more: its streams
			// close, and the client reconnects with the role. The world stream shows every
			// role the same and stays open, to tell of the change.
			h.closeWhere(func(c *conn) bool { return c.worldID == r.World && c.p.UserID == r.Subject && c.content })
		case "document.deleted":
			h.endDeleted(r)
		case "document.renamed", "document.moved":
			h.relayMetadata(r)
		case "world.plan":
			if r.Subject == "free" {
				h.closeWhere(func(c *conn) bool { return c.worldID == r.World && c.content && c.p.PlanGated() })
			}
		case "world.deleted":
			h.endWorld(r)
			continue // the last event each stream got
		case "era.deleted":
			h.endEra(r)
		}
		h.relayWorldEvent(r)
	}
}

func (h *Hub) closeWhere(match func(c *conn) bool) {
	for _, c := range h.connsWhere(match) {
		c.w.close(0)
	}
}

// connsWhere returns the open connections that match.
func (h *Hub) connsWhere(match func(c *conn) bool) []*conn {
	h.mu.Lock()
	defer h.mu.Unlock()
	var found []*conn
	for c := range h.conns {
		if match(c) {
			found = append(found, c)
		}
	}
	return found
}

// viewer is one user watching a document stream (with any number of connections).
type viewer struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Colour string `json:"colour"`
	conns  int
}

// Colour returns a stable colour for a user id, dark enough for white initials (4.5:1).
func Colour(userID string) string {
	palette := []string{"#c0392b", "#2679af", "#1d8548", "#8e44ad", "#be4b00", "#11816b", "#8b7106", "#2c3e50", "#c2185b", "#007c87"}
	f := fnv.New32a()
	_, _ = f.Write([]byte(userID))
	return palette[f.Sum32()%uint32(len(palette))]
}

// presenceChange records a viewer joining (+1) or leaving (-1). When that changes who is
// watching, it publishes the new list to both streams of the document and returns true; otherwise it returns
// false and the current list.
func (h *Hub) presenceChange(docID, eraID string, p auth.Principal, delta int, version func() int64) (bool, []viewer) {
	key := docStream(docID, eraID)
	h.mu.Lock()
	viewers := h.presence[key]
	v := viewers[p.UserID]
	if v == nil {
		if delta < 0 {
			h.mu.Unlock()
			return false, nil
		}
		if viewers == nil {
			viewers = map[string]*viewer{}
			h.presence[key] = viewers
		}
		name := p.Name
		if name == "" {
			name = p.Email
		}
		v = &viewer{ID: p.UserID, Name: name, Colour: Colour(p.UserID)}
		viewers[p.UserID] = v
	}
	before := v.conns
	v.conns += delta
	if v.conns <= 0 {
		delete(viewers, p.UserID)
	}
	if len(viewers) == 0 {
		delete(h.presence, key)
	}
	changed := (before == 0) != (v.conns <= 0)
	list := viewersOf(viewers)
	h.mu.Unlock()
	if changed {
		h.publishDoc(docID, eraID, "presence", version(), map[string]any{"viewers": list})
	}
	return changed, list
}

func viewersOf(viewers map[string]*viewer) []viewer {
	list := make([]viewer, 0, len(viewers))
	for _, v := range viewers {
		list = append(list, *v)
	}
	sort.Slice(list, func(i, j int) bool {
		return list[i].Name < list[j].Name || (list[i].Name == list[j].Name && list[i].ID < list[j].ID)
	})
	return list
}
