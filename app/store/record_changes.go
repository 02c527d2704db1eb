package store

import (
	"github.com/pocketbase/pocketbase/core"
)

// Worlds and memberships may also be changed as PocketBase records: in the dashboard, through
// PocketBase's records API as a superuser, or by app.Save. The store itself writes them with
// SQL, which no record hook sees, so these hooks see exactly the other writers. Each such
// change writes the outbox row the store would have written, in the record's own
// transaction, so that the access caches and the open streams of every process hear of it;
// once it committed, this process forgets what it cached at once.

// watchRecords binds the record hooks of worlds and world_members.
func (s *Store) watchRecords() {
	const worlds, members = "worlds", "world_members"
	s.app.OnRecordCreateExecute(worlds, members).BindFunc(func(e *core.RecordEvent) error {
		return writeRecordRows(e, recordRows("create", e.Record))
	})
	s.app.OnRecordUpdateExecute(worlds, members).BindFunc(func(e *core.RecordEvent) error {
		return writeRecordRows(e, recordRows("update", e.Record))
	})
	s.app.OnRecordDeleteExecute(worlds, members).BindFunc(func(e *core.RecordEvent) error {
		return writeRecordRows(e, recordRows("delete", e.Record))
	})
	committed := func(e *core.RecordEvent) error {
		rows := recordRows("committed", e.Record)
		s.cache.forget(rows)
		// Wakes the outbox follower, which hands the rows to the streams.
		s.publish(Change{Kind: rows[len(rows)-1].Kind, WorldID: e.Record.GetString("world")})
		return e.Next()
	}
	s.app.OnRecordAfterCreateSuccess(worlds, members).BindFunc(committed)
	s.app.OnRecordAfterUpdateSuccess(worlds, members).BindFunc(committed)
	s.app.OnRecordAfterDeleteSuccess(worlds, members).BindFunc(committed)
}

// writeRecordRows saves the record, then writes rows to the outbox in the same transaction.
func writeRecordRows(e *core.RecordEvent, rows []OutboxRow) error {
	if err := e.Next(); err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := WriteOutbox(e.App.NonconcurrentDB(), r.Kind, r.World, "", "", r.Subject); err != nil {
			return err
		}
	}
	return nil
}

// recordRows are the outbox rows a change of a worlds or world_members record makes: op is
// "create", "update" or "delete", or "committed" after any of them, when the rows only say
// what caches must forget (the record as it was and as it is).
func recordRows(op string, rec *core.Record) []OutboxRow {
	old := rec.Original()
	if rec.Collection().Name == "worlds" {
		switch {
		case op == "create":
			return []OutboxRow{{Kind: "world.created", World: rec.Id}}
		case op == "delete":
			return []OutboxRow{{Kind: "world.deleted", World: rec.Id}}
		case op == "committed" || rec.GetString("plan") == old.GetString("plan"):
			return []OutboxRow{{Kind: "world.updated", World: rec.Id}}
		default:
			return []OutboxRow{{Kind: "world.plan", World: rec.Id, Subject: rec.GetString("plan")}}
		}
	}
	was := OutboxRow{Kind: "member.removed", World: old.GetString("world"), Subject: old.GetString("user")}
	is := OutboxRow{Kind: "member.added", World: rec.GetString("world"), Subject: rec.GetString("user")}
	switch {
	case op == "create":
		return []OutboxRow{is}
	case op == "delete":
		return []OutboxRow{was}
	case op == "committed":
		return []OutboxRow{was, is}
	case was.World != is.World || was.Subject != is.Subject:
		return []OutboxRow{was, is} // the membership moved to another world or user
	default:
		is.Kind = "member.role"
		return []OutboxRow{is}
	}
}
