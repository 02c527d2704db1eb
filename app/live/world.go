package live

import (
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// WorldEvent is the data of a world stream event: what changed and the record's metadata.
type WorldEvent struct {
	Kind string `json:"kind"`
	Seq  int64  `json:"seq"`
	// EraID is, for document events, the era the change was made in ("" = the main line): a
	// document deleted in an era is still there on the main line.
	EraID string `json:"eraId"`
	// Document is set for document.* events.
	Document *DocumentMeta `json:"document,omitempty"`
	// World is set for world.updated: the world's name, genre and theme as they now are.
	World *WorldMeta `json:"world,omitempty"`
	// Era is set for era.created, era.renamed and era.deleted.
	Era *EraMeta `json:"era,omitempty"`
	// Project is set for project.created, project.updated and project.deleted (the id only).
	Project *ProjectMeta `json:"project,omitempty"`
	// UserID is set for member.added, member.removed and member.role.
	UserID string `json:"userId,omitempty"`
	Role   string `json:"role,omitempty"`
	// Tool is the tool's name, for tool.installed (or upgraded) and tool.uninstalled: the
	// world's document types and app kinds changed.
	Tool string `json:"tool,omitempty"`
}

// DocumentMeta is a document's metadata in a world event.
type DocumentMeta struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	DocumentType string `json:"documentType"`
	ParentID     string `json:"parentId"`
	EraID        string `json:"eraId"`
}

// WorldMeta is the world itself in a world.updated event.
type WorldMeta struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Genre string `json:"genre"`
	Theme string `json:"theme"`
}

// EraMeta is an era in a world event.
type EraMeta struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	ParentID string `json:"parentId"`
}

// ProjectMeta is a project in a world event.
type ProjectMeta struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// worldEvent turns an outbox row into the event watchers get; ok is false for rows that are
// not world events or whose record is gone.
func (h *Hub) worldEvent(r store.OutboxRow) (WorldEvent, bool) {
	if !store.IsWorldEvent(r.Kind) || r.World == "" || r.WorldSeq == 0 {
		return WorldEvent{}, false
	}
	return Describe(h.store, r)
}

// Describe says what a change of a world is, as its world stream's event says it (webhooks
// send the same): the records it is about, as they are now or as the row recorded them; ok
// is false when the record is gone and the row did not record it.
func Describe(st *store.Store, r store.OutboxRow) (ev WorldEvent, ok bool) {
	ev = WorldEvent{Kind: r.Kind, Seq: r.WorldSeq}
	switch r.Kind {
	case "world.updated":
		w, err := st.World(r.World)
		if err != nil {
			return ev, false
		}
		ev.World = &WorldMeta{ID: w.ID, Name: w.Name, Genre: w.Genre, Theme: w.Theme}
	case "world.deleted":
		// Nothing more to say: the world is gone for everyone (endWorld ends its streams).
	case "era.created":
		e, err := st.Era(r.World, r.Era)
		if err != nil {
			return ev, false
		}
		ev.Era = &EraMeta{ID: e.ID, Name: e.Name, ParentID: e.ParentID}
	case "era.renamed", "era.deleted":
		// As the row recorded it: the name it got then, or the era as it was when deleted.
		e, ok := r.RecordedEra()
		if !ok {
			e = store.Era{ID: r.Era}
		}
		ev.Era = &EraMeta{ID: r.Era, Name: e.Name, ParentID: e.ParentID}
	case "project.created":
		p, err := st.Project(r.World, r.Subject)
		if err != nil {
			return ev, false
		}
		ev.Project = &ProjectMeta{ID: p.ID, Kind: p.Kind, Name: p.Name}
	case "project.updated":
		// The project as it is now; the id alone once it is deleted.
		ev.Project = &ProjectMeta{ID: r.Subject}
		if p, err := st.Project(r.World, r.Subject); err == nil {
			ev.Project = &ProjectMeta{ID: p.ID, Kind: p.Kind, Name: p.Name}
		}
	case "project.deleted":
		ev.Project = &ProjectMeta{ID: r.Subject}
	case "tool.installed", "tool.uninstalled":
		ev.Tool = r.Subject
	case "member.added", "member.removed", "member.role":
		ev.UserID = r.Subject
		if m, err := st.Member(r.World, r.Subject); err == nil {
			ev.Role = m.Role
		}
	default:
		d, err := st.DocumentByID(r.Document)
		if err != nil {
			// Deleted on the main line: the row is gone, but the outbox row recorded its
			// metadata (rows written before deletes did so give the id only).
			var recorded bool
			if d, recorded = r.DeletedDocument(); !recorded {
				d = store.Document{ID: r.Document, EraID: r.Era}
			}
		}
		ev.Document = &DocumentMeta{ID: d.ID, Name: d.Name, DocumentType: d.DocumentType, ParentID: d.ParentID, EraID: d.EraID}
		ev.EraID = r.Era
	}
	return ev, true
}

func (h *Hub) relayWorldEvent(r store.OutboxRow) {
	h.mu.Lock()
	_, watched := h.streams[worldStream(r.World)]
	h.mu.Unlock()
	if !watched {
		return // nobody to tell: skip building the event
	}
	if ev, ok := h.worldEvent(r); ok {
		h.publish(worldStream(r.World), r.Kind, r.WorldSeq, ev)
	}
}

// ServeWorld streams a world's structural changes. Event ids count this world's events
// (store.OutboxRow.WorldSeq), so they say nothing of other worlds' activity: a client
// resuming with Last-Event-ID gets what it missed (up to MaxResume changes, kept for
// store.OutboxKeep), or a `reset` event telling it to reload the lists. The caller has checked access.
func (h *Hub) ServeWorld(e *core.RequestEvent, p auth.Principal, w store.World) error {
	resume, hasResume := lastEventID(e.Request)
	sw := &streamWriter{}
	sw.replay = func(sw *streamWriter) (int64, error) {
		head, err := h.store.WorldEventHead(w.ID)
		if err != nil {
			return 0, err
		}
		if !hasResume {
			sw.send("ready", head, mustJSON(map[string]any{"seq": head}))
			return head, nil
		}
		rows, err := h.store.WorldEventsSince(w.ID, resume, MaxResume+1)
		if err != nil {
			return 0, err
		}
		// A world's events are numbered without gaps, so a first row other than resume+1
		// means pruning took what the client missed. Too far behind, or ahead of the head,
		// resets too.
		missing := resume < head && (len(rows) == 0 || rows[0].WorldSeq != resume+1)
		if len(rows) > MaxResume || resume > head || missing {
			sw.send("reset", head, mustJSON(map[string]any{"seq": head}))
			return head, nil
		}
		for _, r := range rows {
			if ev, ok := h.worldEvent(r); ok {
				sw.send(r.Kind, r.WorldSeq, mustJSON(ev))
			}
		}
		return head, nil
	}
	c := &conn{p: p, worldID: w.ID, streamID: worldStream(w.ID), content: false}
	return h.serve(e, c, sw, nil)
}

// endWorld ends every stream of a world that went to the trash, world and document streams
// alike, with a last world.deleted event: the world is gone, and a reconnect gets 404.
func (h *Hub) endWorld(r store.OutboxRow) {
	data := mustJSON(WorldEvent{Kind: r.Kind, Seq: r.WorldSeq})
	for _, c := range h.connsWhere(func(c *conn) bool { return c.worldID == r.World }) {
		c.w.end("world.deleted", data)
	}
}

// endEra ends the document streams of an era that was deleted, with a last era.deleted event.
func (h *Hub) endEra(r store.OutboxRow) {
	data := mustJSON(map[string]string{"eraId": r.Era})
	for _, c := range h.connsWhere(func(c *conn) bool {
		_, era, _, ok := parseDocStream(c.streamID)
		return ok && c.worldID == r.World && era == r.Era
	}) {
		c.w.end("era.deleted", data)
	}
}
