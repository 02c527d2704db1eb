package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// Each op-log row gets `total`: the bytes of its era's op log up to and including it (the
// length of every ops array before it in the same document and era, plus its own). The size
// of any run of versions is then the difference of two totals, read from two rows: a stream
// resume and an edit's rebase check the size of what they would read before reading it, and
// each write deletes the oldest rows once the newest hold more than the op log keeps
// (store.OpLogKeepBytes). The column comes right after version, so that reading it never
// walks a large row's overflow pages; that takes rebuilding the table, rows in the same
// order.
func init() {
	migrations.Register(opLogTotalsUp, opLogTotalsDown)
}

func opLogTotalsUp(app core.App) error {
	return rebuildOpLog(app,
		`CREATE TABLE document_ops_new (
			document   TEXT NOT NULL,
			era        TEXT NOT NULL DEFAULT '',
			version    INTEGER NOT NULL,
			total      INTEGER NOT NULL DEFAULT 0,
			ops        TEXT NOT NULL,
			actor      TEXT NOT NULL DEFAULT '',
			credential TEXT NOT NULL DEFAULT '',
			created    TEXT NOT NULL
		)`,
		`INSERT INTO document_ops_new (document, era, version, total, ops, actor, credential, created)
			SELECT document, era, version, SUM(octet_length(ops)) OVER (PARTITION BY document, era ORDER BY version),
				ops, actor, credential, created
			FROM document_ops ORDER BY rowid`)
}

func opLogTotalsDown(app core.App) error {
	return rebuildOpLog(app,
		`CREATE TABLE document_ops_new (
			document   TEXT NOT NULL,
			era        TEXT NOT NULL DEFAULT '',
			version    INTEGER NOT NULL,
			ops        TEXT NOT NULL,
			actor      TEXT NOT NULL DEFAULT '',
			credential TEXT NOT NULL DEFAULT '',
			created    TEXT NOT NULL
		)`,
		`INSERT INTO document_ops_new (document, era, version, ops, actor, credential, created)
			SELECT document, era, version, ops, actor, credential, created FROM document_ops ORDER BY rowid`)
}

// rebuildOpLog replaces document_ops by the table create makes, filled by copy, with the
// op log's index and cascade trigger (see 1763800003).
func rebuildOpLog(app core.App, create, copy string) error {
	return exec(app,
		create,
		copy,
		"DROP TRIGGER document_ops_cascade",
		"DROP INDEX idx_document_ops_doc_era_version",
		"DROP TABLE document_ops",
		"ALTER TABLE document_ops_new RENAME TO document_ops",
		"CREATE UNIQUE INDEX idx_document_ops_doc_era_version ON document_ops (document, era, version)",
		`CREATE TRIGGER document_ops_cascade AFTER DELETE ON documents BEGIN
			DELETE FROM document_ops WHERE document = OLD.id;
		END`,
	)
}
