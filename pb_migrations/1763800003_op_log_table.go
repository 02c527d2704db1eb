package pb_migrations

import (
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// The op log becomes a plain table, like the outbox: rows in insertion order (rowid) and one
// unique index on (document, era, version), which is how every reader finds them. As a
// PocketBase collection it also had a random text id with its own index, so each content
// write dirtied a page at a random place in that index; the op log was the largest part of
// the committer's work. The rows are copied over; a trigger replaces the collection's
// cascade delete, so that deleting a document anywhere (the API, the admin dashboard, a
// world's cascade) takes its op log with it.
func init() {
	migrations.Register(opLogUp, opLogDown)
}

func opLogUp(app core.App) error {
	steps := []string{
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
			SELECT document, era, CAST(version AS INTEGER), COALESCE(ops, '[]'), actor, credential, created
			FROM document_ops ORDER BY rowid`,
	}
	if err := exec(app, steps...); err != nil {
		return err
	}
	if err := dropCollection(app, "document_ops"); err != nil {
		return err
	}
	return exec(app,
		"ALTER TABLE document_ops_new RENAME TO document_ops",
		"CREATE UNIQUE INDEX idx_document_ops_doc_era_version ON document_ops (document, era, version)",
		`CREATE TRIGGER document_ops_cascade AFTER DELETE ON documents BEGIN
			DELETE FROM document_ops WHERE document = OLD.id;
		END`,
	)
}

// opLogDown turns the table back into the collection of 1763800000, ids newly made.
func opLogDown(app core.App) error {
	if err := exec(app,
		"DROP TRIGGER IF EXISTS document_ops_cascade",
		"DROP INDEX idx_document_ops_doc_era_version",
		"ALTER TABLE document_ops RENAME TO document_ops_old",
	); err != nil {
		return err
	}
	documents, err := app.FindCollectionByNameOrId("documents")
	if err != nil {
		return err
	}
	c := opLogCollection(documents.Id)
	if err := app.Save(c); err != nil {
		return fmt.Errorf("document_ops: %w", err)
	}
	return exec(app,
		`INSERT INTO document_ops (id, document, era, version, ops, actor, credential, created)
			SELECT substr(lower(hex(randomblob(8))), 1, 15), document, era, version, ops, actor, credential, created
			FROM document_ops_old ORDER BY rowid`,
		"DROP TABLE document_ops_old",
	)
}

func exec(app core.App, statements ...string) error {
	for _, s := range statements {
		if _, err := app.DB().NewQuery(s).Execute(); err != nil {
			return fmt.Errorf("%.60s: %w", s, err)
		}
	}
	return nil
}

func dropCollection(app core.App, name string) error {
	c, err := app.FindCollectionByNameOrId(name)
	if err != nil {
		return fmt.Errorf("find %s: %w", name, err)
	}
	if err := app.Delete(c); err != nil {
		return fmt.Errorf("drop %s: %w", name, err)
	}
	return nil
}
