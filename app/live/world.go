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
	// Era is set for era.created.
	Era *EraMeta `json:"era,omitempty"`
	// Project is set for project.created.
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
	ev := WorldEvent{Kind: r.Kind, Seq: r.WorldSeq}
	switch r.Kind {
	case "era.created":
		e, err := h.store.Era(r.World, r.Era)
		if err != nil {
			return ev, false
		}
		ev.Era = &EraMeta{ID: e.ID, Name: e.Name, ParentID: e.ParentID}
	case "project.created":
		p, err := h.store.Project(r.World, r.Subject)
		if err != nil {
			return ev, false
		}
		ev.Project = &ProjectMeta{ID: p.ID, Kind: p.Kind, Name: p.Name}
	case "tool.installed", "tool.uninstalled":
		ev.Tool = r.Subject
	case "member.added", "member.removed", "member.role":
		ev.UserID = r.Subject
		if m, err := h.store.Member(r.World, r.Subject); err == nil {
			ev.Role = m.Role
		}
	default:
		d, err := h.store.DocumentByID(r.Document)
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
