package store

import (
	"context"
	"fmt"
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
	// Subject is kind-specific: the key id (key.revoked), the user id (member.*), the plan
	// (world.plan), the project id (project.created).
	Subject string `db:"subject"`
	Created string `db:"created"`
}

// OutboxSince returns up to limit rows after seq, oldest first.
func (s *Store) OutboxSince(seq int64, limit int) ([]OutboxRow, error) {
	var rows []OutboxRow
	err := s.app.DB().NewQuery("SELECT seq, kind, world, document, era, subject, created FROM outbox WHERE seq > {:seq} ORDER BY seq LIMIT {:limit}").
		Bind(dbx.Params{"seq": seq, "limit": limit}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("store: read outbox: %w", err)
	}
	return rows, nil
}

// OutboxHead returns the newest sequence (0 if the outbox is empty).
func (s *Store) OutboxHead() (int64, error) {
	var seq int64
	if err := s.app.DB().NewQuery("SELECT COALESCE(MAX(seq), 0) FROM outbox").Row(&seq); err != nil {
		return 0, fmt.Errorf("store: outbox head: %w", err)
	}
	return seq, nil
}

// TailOutbox calls fn with every batch of outbox rows after from, in order, until ctx ends.
// It reads at once when this process commits a change that wake accepts (nil: any), and at
// least every interval otherwise, so changes made by other processes (the command line)
// arrive within that interval.
func (s *Store) TailOutbox(ctx context.Context, from int64, interval time.Duration, wake func(Change) bool, fn func([]OutboxRow)) {
	nudge := make(chan struct{}, 1)
	s.OnChange(func(c Change) {
		if wake != nil && !wake(c) {
			return
		}
		select {
		case nudge <- struct{}{}:
		default:
		}
	})
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		for {
			rows, err := s.OutboxSince(from, 500)
			if err != nil {
				if ctx.Err() == nil {
					s.app.Logger().Warn("store: tail outbox", "error", err.Error())
				}
				break
			}
			if len(rows) == 0 {
				break
			}
			fn(rows)
			from = rows[len(rows)-1].Seq
			if len(rows) < 500 {
				break
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
