package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// Webhooks (app/webhooks): a world's webhooks, their deliveries, and the dispatcher's cursor
// into the outbox. A delivery is created from an outbox row in the same transaction that
// moves the cursor past it, so a crash neither loses nor repeats one; (webhook, seq) is unique
// for the same reason (a ping has no seq). The cursor starts at the outbox's head: webhooks
// hear of changes made after they exist.
func init() {
	migrations.Register(func(app core.App) error {
		for _, q := range []string{
			`CREATE TABLE webhooks (
				id             TEXT PRIMARY KEY NOT NULL,
				world          TEXT NOT NULL,
				url            TEXT NOT NULL,
				secret         TEXT NOT NULL,
				events         TEXT NOT NULL DEFAULT '[]',
				enabled        INTEGER NOT NULL DEFAULT 1,
				disabledReason TEXT NOT NULL DEFAULT '',
				failures       INTEGER NOT NULL DEFAULT 0,
				created        TEXT NOT NULL,
				updated        TEXT NOT NULL
			)`,
			"CREATE INDEX idx_webhooks_world ON webhooks (world)",
			`CREATE TABLE webhook_deliveries (
				id          TEXT PRIMARY KEY NOT NULL,
				webhook     TEXT NOT NULL,
				seq         INTEGER,
				kind        TEXT NOT NULL,
				payload     TEXT NOT NULL,
				status      TEXT NOT NULL DEFAULT 'pending',
				attempts    INTEGER NOT NULL DEFAULT 0,
				nextAttempt TEXT NOT NULL,
				lastStatus  INTEGER NOT NULL DEFAULT 0,
				lastError   TEXT NOT NULL DEFAULT '',
				responseMs  INTEGER NOT NULL DEFAULT 0,
				created     TEXT NOT NULL,
				delivered   TEXT NOT NULL DEFAULT ''
			)`,
			"CREATE UNIQUE INDEX idx_webhook_deliveries_seq ON webhook_deliveries (webhook, seq)",
			"CREATE INDEX idx_webhook_deliveries_due ON webhook_deliveries (status, nextAttempt)",
			"CREATE INDEX idx_webhook_deliveries_log ON webhook_deliveries (webhook, created)",
			`CREATE TABLE webhook_cursor (
				id  INTEGER PRIMARY KEY CHECK (id = 1),
				seq INTEGER NOT NULL
			)`,
			"INSERT INTO webhook_cursor (id, seq) VALUES (1, (SELECT COALESCE(MAX(seq), 0) FROM outbox))",
		} {
			if _, err := app.DB().NewQuery(q).Execute(); err != nil {
				return err
			}
		}
		return nil
	}, func(app core.App) error {
		for _, t := range []string{"webhook_cursor", "webhook_deliveries", "webhooks"} {
			if _, err := app.DB().NewQuery("DROP TABLE IF EXISTS " + t).Execute(); err != nil {
				return err
			}
		}
		return nil
	})
}
