package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// document_snapshots holds whole copies of a document's content at some of its versions, so
// that a version the op log still lists can be rebuilt by replaying a bounded run of entries
// from the nearest snapshot before it (see store.SnapshotEvery), even after the op log's
// oldest entries were trimmed. Like the op log, a plain table: one unique index on
// (document, era, version), and a trigger that deletes a document's snapshots with it.
func init() {
	migrations.Register(func(app core.App) error {
		return exec(app,
			`CREATE TABLE document_snapshots (
				document TEXT NOT NULL,
				era      TEXT NOT NULL DEFAULT '',
				version  INTEGER NOT NULL,
				data     TEXT NOT NULL,
				created  TEXT NOT NULL
			)`,
			"CREATE UNIQUE INDEX idx_document_snapshots_doc_era_version ON document_snapshots (document, era, version)",
			`CREATE TRIGGER document_snapshots_cascade AFTER DELETE ON documents BEGIN
				DELETE FROM document_snapshots WHERE document = OLD.id;
			END`,
		)
	}, func(app core.App) error {
		return exec(app, "DROP TRIGGER IF EXISTS document_snapshots_cascade", "DROP TABLE IF EXISTS document_snapshots")
	})
}
