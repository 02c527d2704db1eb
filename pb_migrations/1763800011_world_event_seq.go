package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// A world stream's event ids count that world's own events (outbox.worldSeq, from the
// counter in world_event_seqs), not the global outbox sequence: ids that rose with every
// other world's writes told a watcher how busy the rest of the server was. Rows written
// before keep worldSeq 0 and are never replayed; a client resuming from an old global id is
// ahead of its world's count and gets a reset.
func init() {
	migrations.Register(func(app core.App) error {
		return exec(app,
			"ALTER TABLE outbox ADD COLUMN worldSeq INTEGER NOT NULL DEFAULT 0",
			"CREATE INDEX idx_outbox_world_seq ON outbox (world, worldSeq) WHERE worldSeq > 0",
			"CREATE TABLE world_event_seqs (world TEXT PRIMARY KEY NOT NULL, seq INTEGER NOT NULL)")
	}, func(app core.App) error {
		return exec(app,
			"DROP TABLE IF EXISTS world_event_seqs",
			"DROP INDEX IF EXISTS idx_outbox_world_seq",
			"ALTER TABLE outbox DROP COLUMN worldSeq")
	})
}
