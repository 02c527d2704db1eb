package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/pocketbase/dbx"
)

// OutboxRow is one change in the outbox.
type OutboxRow struct {
	Seq      int64  `db:"seq"`
	Kind     string `db:"kind"`
	World    string `db:"world"`
	Document string `db:"document"`
	Era      string `db:"era"`
	// Subject is kind-specific: the key id (key.revoked), the access token id (oauth.revoked),
	// the hash of the session token (session.ended), the user id (member.*, sessions.ended), the plan
	// (world.plan), the project id (project.*), the era's name and parent as JSON (era.renamed, era.deleted; read it with RecordedEra), the tool's name (tool.*), the deleted document's metadata as
	// JSON (document.deleted; read it with DeletedDocument).
	Subject string `db:"subject"`
	Created string `db:"created"`
	// WorldSeq numbers a world event among its world's events (1, 2, ...); 0 on other rows.
	WorldSeq int64 `db:"worldSeq"`
}

// worldEventKinds are the changes a world's event stream relays.
var worldEventKinds = map[string]bool{
	"document.created": true, "document.renamed": true, "document.moved": true, "document.deleted": true,
	"era.created": true, "project.created": true, "member.added": true, "member.removed": true, "member.role": true,
	"tool.installed": true, "tool.uninstalled": true,
	"world.updated": true, "world.deleted": true, "era.renamed": true, "era.deleted": true,
	"project.updated": true, "project.deleted": true,
}

// IsWorldEvent reports whether a change of this kind is relayed on its world's event stream.
func IsWorldEvent(kind string) bool { return worldEventKinds[kind] }

const outboxCols = "seq, kind, world, document, era, subject, created, worldSeq"

// deletedDocument is what a document.deleted row keeps in Subject. A main-line delete takes
// the document's row away, so world events built from the row later (live or replayed) could
// otherwise say only which id went.
type deletedDocument struct {
	Name         string `json:"name"`
	DocumentType string `json:"documentType"`
	ParentID     string `json:"parentId"`
	EraID        string `json:"eraId"`
}

func deletedSubject(d Document) string {
	b, _ := json.Marshal(deletedDocument{Name: d.Name, DocumentType: d.DocumentType, ParentID: d.ParentID, EraID: d.EraID}) // strings only: cannot fail
	return string(b)
}

// DeletedDocument returns the metadata a document.deleted row recorded of its document as it
// was when deleted; ok is false for other rows and for rows written before deletes recorded it.
func (r OutboxRow) DeletedDocument() (d Document, ok bool) {
	var m deletedDocument
	if r.Kind != "document.deleted" || json.Unmarshal([]byte(r.Subject), &m) != nil {
		return Document{}, false
	}
	return Document{ID: r.Document, WorldID: r.World, Name: m.Name, DocumentType: m.DocumentType, ParentID: m.ParentID, EraID: m.EraID}, true
}

// OutboxPage is how many rows OutboxSince returns at most; TailBatch how many TailOutbox
// hands over at most.
const (
	OutboxPage = 500
	TailBatch  = 4 * OutboxPage
)

// OutboxSince returns up to OutboxPage rows after seq, oldest first.
func (s *Store) OutboxSince(seq int64) ([]OutboxRow, error) {
	st, err := s.outboxSince()
	if err != nil {
		return nil, err
	}
	res, err := st.Query(seq)
	if err != nil {
		return nil, fmt.Errorf("store: read outbox: %w", err)
	}
	defer res.Close()
	var rows []OutboxRow
	for res.Next() {
		var r OutboxRow
		if err := res.Scan(&r.Seq, &r.Kind, &r.World, &r.Document, &r.Era, &r.Subject, &r.Created, &r.WorldSeq); err != nil {
			return nil, fmt.Errorf("store: read outbox: %w", err)
		}
		rows = append(rows, r)
	}
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("store: read outbox: %w", err)
	}
	return rows, nil
}

// outboxSince is OutboxSince's statement, prepared once on the read connections (the
// outbox's followers read it after nearly every change, and parsing the query was half the
// cost); it goes with the database. Its LIMIT is a constant: SQLite plans with a bound
// LIMIT's value, so it prepared a statement with LIMIT ? again on every run.
func (s *Store) outboxSince() (*sql.Stmt, error) {
	s.outboxOnce.Do(func() {
		db, ok := s.app.ConcurrentDB().(*dbx.DB)
		if !ok {
			s.outboxErr = errors.New("store: the read connections are not a *dbx.DB")
			return
		}
		if s.outboxStmt, s.outboxErr = db.DB().Prepare("SELECT " + outboxCols + " FROM outbox WHERE seq > ? ORDER BY seq LIMIT " + strconv.Itoa(OutboxPage)); s.outboxErr != nil {
			s.outboxErr = fmt.Errorf("store: prepare the outbox read: %w", s.outboxErr)
		}
	})
	return s.outboxStmt, s.outboxErr
}

// WorldEventsSince returns up to limit of a world's events numbered after worldSeq, oldest
// first.
func (s *Store) WorldEventsSince(worldID string, worldSeq int64, limit int) ([]OutboxRow, error) {
	var rows []OutboxRow
	err := s.app.DB().NewQuery("SELECT " + outboxCols + " FROM outbox WHERE world = {:w} AND worldSeq > {:seq} ORDER BY worldSeq LIMIT {:limit}").
		Bind(dbx.Params{"w": worldID, "seq": worldSeq, "limit": limit}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("store: read world events: %w", err)
	}
	return rows, nil
}

// WorldEventHead returns the number of a world's latest event (0 before its first).
func (s *Store) WorldEventHead(worldID string) (int64, error) {
	var seq int64
	err := s.app.DB().NewQuery("SELECT COALESCE(MAX(seq), 0) FROM world_event_seqs WHERE world = {:w}").Bind(dbx.Params{"w": worldID}).Row(&seq)
	if err != nil {
		return 0, fmt.Errorf("store: world event head: %w", err)
	}
	return seq, nil
}

// OutboxHead returns the newest sequence (0 if the outbox is empty).
func (s *Store) OutboxHead() (int64, error) {
	var seq int64
	if err := s.app.DB().NewQuery("SELECT COALESCE(MAX(seq), 0) FROM outbox").Row(&seq); err != nil {
		return 0, fmt.Errorf("store: outbox head: %w", err)
	}
	return seq, nil
}

// OutboxOldest returns the oldest sequence still kept (0 if the outbox is empty).
func (s *Store) OutboxOldest() (int64, error) {
	var seq int64
	if err := s.app.DB().NewQuery("SELECT COALESCE(MIN(seq), 0) FROM outbox").Row(&seq); err != nil {
		return 0, fmt.Errorf("store: outbox oldest: %w", err)
	}
	return seq, nil
}

// Outbox retention. Every follower reads the outbox as it is written, and the search
// indexer reconciles with the documents themselves whenever it starts; old rows serve only
// world streams resuming after a long absence, and those get a reset event instead. So rows
// are kept a week, then deleted: the outbox no longer grows by a row per change for good.
const (
	OutboxKeep       = 7 * 24 * time.Hour
	outboxPruneEvery = time.Hour
	outboxPruneChunk = 5000
)

// PruneOutbox deletes the rows created before cutoff, oldest first, a chunk per
// transaction so that writes are not held up. The newest row always stays, so the sequence
// (and with it every stream's event ids) never goes back.
func (s *Store) PruneOutbox(cutoff time.Time) (int64, error) {
	var total int64
	for {
		// Rows are created in sequence order, so the old ones are the first ones: each chunk
		// looks at the oldest rows only, never at the whole table.
		res, err := s.app.NonconcurrentDB().NewQuery(`DELETE FROM outbox WHERE seq IN (
				SELECT seq FROM outbox ORDER BY seq LIMIT {:chunk})
			AND created < {:cutoff} AND seq < (SELECT MAX(seq) FROM outbox)`).
			Bind(dbx.Params{"chunk": outboxPruneChunk, "cutoff": cutoff.UTC().Format(dbTime)}).Execute()
		if err != nil {
			return total, fmt.Errorf("store: prune outbox: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, fmt.Errorf("store: prune outbox: %w", err)
		}
		total += n
		if n < outboxPruneChunk {
			return total, nil
		}
	}
}

// pruneOutbox prunes now and every outboxPruneEvery until ctx ends.
func (s *Store) pruneOutbox(ctx context.Context) {
	t := time.NewTicker(outboxPruneEvery)
	defer t.Stop()
	for {
		if n, err := s.PruneOutbox(time.Now().Add(-OutboxKeep)); err != nil {
			s.app.Logger().Warn("store: prune outbox", "error", err.Error())
		} else if n > 0 {
			s.app.Logger().Info("store: pruned outbox", "rows", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// TailOutbox calls fn with every batch of outbox rows after from, in order, until ctx ends.
// It reads at once when this process commits a change that wake accepts (nil: any), and at
// least every interval otherwise, so changes made by other processes (the command line)
// arrive within that interval. After each read it rests at least gap, so that a stream of
// commits is read a batch at a time instead of once per commit.
func (s *Store) TailOutbox(ctx context.Context, from int64, interval, gap time.Duration, wake func(Change) bool, fn func([]OutboxRow)) {
	nudge := make(chan struct{}, 1)
	remove := s.OnChange(func(c Change) {
		if wake != nil && !wake(c) {
			return
		}
		select {
		case nudge <- struct{}{}:
		default:
		}
	})
	defer remove()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		for {
			// Pages are handed over TailBatch rows at a time: one search index segment
			// instead of one per page.
			var rows []OutboxRow
			for len(rows) < TailBatch {
				page, err := s.OutboxSince(from)
				if err != nil {
					if ctx.Err() == nil {
						s.app.Logger().Warn("store: tail outbox", "error", err.Error())
					}
					break
				}
				rows = append(rows, page...)
				if len(page) > 0 {
					from = page[len(page)-1].Seq
				}
				if len(page) < OutboxPage {
					break
				}
			}
			if len(rows) == 0 {
				break
			}
			fn(rows)
			if len(rows) < TailBatch {
				break
			}
		}
		if gap > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(gap):
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-nudge:
		case <-t.C:
		}
	}
}
