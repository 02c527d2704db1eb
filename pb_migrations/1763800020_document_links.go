package pb_migrations

import (
	"fmt"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"

	"github.com/loreweave/loreweave/ops"
)

// document_links is the backlinks table: one row per document (source), era and linked
// document (target), written with each content write in the write's own transaction. A
// link by name keeps target empty and the name in targetName. A trigger takes a deleted
// document's rows with it, as for the op log. Documents get an index by name, which
// resolving a link written by name reads.
func init() {
	migrations.Register(func(app core.App) error {
		documents, err := app.FindCollectionByNameOrId("documents")
		if err != nil {
			return err
		}
		documents.AddIndex("idx_documents_world_name", false, "world, name COLLATE NOCASE", "")
		if err := app.Save(documents); err != nil {
			return err
		}
		if err := exec(app,
			`CREATE TABLE document_links (
				source     TEXT NOT NULL,
				era        TEXT NOT NULL DEFAULT '',
				world      TEXT NOT NULL,
				position   INTEGER NOT NULL,
				target     TEXT NOT NULL DEFAULT '',
				targetName TEXT NOT NULL DEFAULT '' COLLATE NOCASE,
				context    TEXT NOT NULL DEFAULT '',
				secret     BOOLEAN NOT NULL DEFAULT FALSE
			)`,
			"CREATE UNIQUE INDEX idx_document_links_source ON document_links (source, era, position)",
			"CREATE INDEX idx_document_links_target ON document_links (target, era)",
			"CREATE INDEX idx_document_links_name ON document_links (world, targetName)",
			`CREATE TRIGGER document_links_cascade AFTER DELETE ON documents BEGIN
				DELETE FROM document_links WHERE source = OLD.id;
			END`,
		); err != nil {
			return err
		}
		return backfillLinks(app)
	}, func(app core.App) error {
		if documents, err := app.FindCollectionByNameOrId("documents"); err == nil {
			documents.RemoveIndex("idx_documents_world_name")
			if err := app.Save(documents); err != nil {
				return err
			}
		}
		return exec(app,
			"DROP TRIGGER IF EXISTS document_links_cascade",
			"DROP TABLE IF EXISTS document_links",
		)
	})
}

// backfillLinks writes the rows of the documents whose text already holds [[…]] (written
// before links existed): their links are by name, as written, until an editor picks them.
func backfillLinks(app core.App) error {
	var rows []struct {
		Document string `db:"document"`
		Era      string `db:"era"`
		World    string `db:"world"`
		Type     string `db:"documentType"`
		Data     string `db:"data"`
	}
	if err := app.DB().NewQuery(`SELECT s.document, s.era, d.world, d.documentType, s.data FROM document_states s
		JOIN documents d ON d.id = s.document WHERE NOT s.deleted AND instr(s.data, '[[') > 0`).All(&rows); err != nil {
		return fmt.Errorf("backfill links: %w", err)
	}
	for _, r := range rows {
		if !ops.IsBuiltin(r.Type) {
			continue
		}
		doc, err := ops.Decode(r.Type, []byte(r.Data))
		if err != nil {
			continue
		}
		for i, l := range ops.DocumentLinks(doc) {
			if _, err := app.DB().NewQuery(`INSERT INTO document_links (source, era, world, position, target, targetName, context, secret)
				VALUES ({:source}, {:era}, {:world}, {:pos}, {:target}, {:name}, {:context}, {:secret})`).Bind(dbx.Params{
				"source": r.Document, "era": r.Era, "world": r.World, "pos": i, "target": l.TargetID, "name": l.TargetName, "context": l.Context, "secret": l.Secret,
			}).Execute(); err != nil {
				return fmt.Errorf("backfill links of %s: %w", r.Document, err)
			}
		}
	}
	return nil
}
