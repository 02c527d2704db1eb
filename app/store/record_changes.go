package store

import (
	"github.com/pocketbase/pocketbase/core"
)

// Loreweave's records may also be changed as PocketBase records: in the dashboard, through
// PocketBase's records API as a superuser, or by app.Save. Loreweave itself writes them with
// SQL, which no record hook sees, so record hooks see exactly the other writers. Each such
// change writes the outbox rows Loreweave would have written, in the record's own
// transaction, so that the access caches and the open streams of every process hear of it;
// once it committed, this process's caches forget what it changed at once.

// RecordRows says which outbox rows a change of a record makes: op is "create", "update" or
// "delete" when the rows are written, or "committed" after any of them, when the rows need
// only say what caches must forget.
type RecordRows func(op string, rec *core.Record) []OutboxRow

// OnRecordChange has every change of the collections' records made as PocketBase records
// write the outbox rows that rows returns, and calls committed with the rows for
// "committed" once the change committed.
func (s *Store) OnRecordChange(rows RecordRows, committed func([]OutboxRow), collections ...string) {
	write := func(op string) func(e *core.RecordEvent) error {
		return func(e *core.RecordEvent) error {
			pending := rows(op, e.Record) // before the save: the record as it was is still known
			if err := e.Next(); err != nil {
				return err
			}
			for _, r := range pending {
				if _, err := WriteOutbox(e.App.NonconcurrentDB(), r.Kind, r.World, "", "", r.Subject); err != nil {
					return err
				}
			}
			return nil
		}
	}
	s.app.OnRecordCreateExecute(collections...).BindFunc(write("create"))
	s.app.OnRecordUpdateExecute(collections...).BindFunc(write("update"))
	s.app.OnRecordDeleteExecute(collections...).BindFunc(write("delete"))
	after := func(e *core.RecordEvent) error {
		if rs := rows("committed", e.Record); len(rs) > 0 {
			committed(rs)
			// Wakes the outbox follower, which hands the rows to the streams.
			s.publish(Change{Kind: rs[len(rs)-1].Kind, WorldID: rs[len(rs)-1].World})
		}
		return e.Next()
	}
	s.app.OnRecordAfterCreateSuccess(collections...).BindFunc(after)
	s.app.OnRecordAfterUpdateSuccess(collections...).BindFunc(after)
	s.app.OnRecordAfterDeleteSuccess(collections...).BindFunc(after)
}

// watchRecords keeps the caches of worlds, memberships, documents and tools in step with
// their records.
func (s *Store) watchRecords() {
	s.OnRecordChange(recordRows, s.cache.forget, "worlds", "world_members")
	s.OnRecordChange(documentRows, s.cache.forget, "documents", "document_states")
	s.OnRecordChange(toolRows, s.tools.forget, "tools")
}

// documentRows only make the cache forget a document whose record (or one of its states,
// which say in which eras it is deleted) changed: streams and search are not told.
func documentRows(op string, rec *core.Record) []OutboxRow {
	if op != "committed" {
		return nil
	}
	id := rec.Id
	if rec.Collection().Name == "document_states" {
		id = rec.GetString("document")
	}
	return []OutboxRow{{Kind: "document.renamed", Document: id}}
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
