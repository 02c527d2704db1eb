package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// idempotency_keys remembers the first response to each POST sent with an Idempotency-Key,
// per user, for a day: a retry gets that response back and changes nothing.
func init() {
	migrations.Register(func(app core.App) error {
		_, err := app.DB().NewQuery(`
			CREATE TABLE idempotency_keys (
				principal   TEXT NOT NULL,
				key         TEXT NOT NULL,
				fingerprint TEXT NOT NULL,
				status      INTEGER NOT NULL DEFAULT 0,
				body        TEXT NOT NULL DEFAULT '',
				created     TEXT NOT NULL,
				PRIMARY KEY (principal, key)
			)`).Execute()
		if err != nil {
			return err
		}
		_, err = app.DB().NewQuery("CREATE INDEX idx_idempotency_keys_created ON idempotency_keys (created)").Execute()
		return err
	}, func(app core.App) error {
		_, err := app.DB().NewQuery("DROP TABLE IF EXISTS idempotency_keys").Execute()
		return err
	})
}
