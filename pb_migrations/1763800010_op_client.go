package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// The op log keeps which editor sent each write (store.Client): the browser editor
// recognises its own writes in the `ops` events, even when its user has the document open
// twice, and on a resumed stream; and a retried write (same client, same sequence number)
// is answered from the log instead of being applied twice.
func init() {
	migrations.Register(func(app core.App) error {
		if err := exec(app, "ALTER TABLE document_ops ADD COLUMN client TEXT NOT NULL DEFAULT ''"); err != nil {
			return err
		}
		if err := exec(app, "ALTER TABLE document_ops ADD COLUMN clientSeq INTEGER NOT NULL DEFAULT 0"); err != nil {
			return err
		}
		return exec(app, "CREATE INDEX idx_document_ops_client ON document_ops (document, era, client, clientSeq) WHERE client != ''")
	}, func(app core.App) error {
		if err := exec(app, "DROP INDEX IF EXISTS idx_document_ops_client"); err != nil {
			return err
		}
		if err := exec(app, "ALTER TABLE document_ops DROP COLUMN clientSeq"); err != nil {
			return err
		}
		return exec(app, "ALTER TABLE document_ops DROP COLUMN client")
	})
}
