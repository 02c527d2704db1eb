package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// signed_out_sessions holds the SHA-256 of each signed-out session token, its user and when
// the token expires anyway: a copied cookie stops working at sign-out (auth.EndSession). Rows
// past their expiry are deleted at the next sign-out.
func init() {
	migrations.Register(func(app core.App) error {
		return exec(app, `CREATE TABLE signed_out_sessions (
			hash    TEXT PRIMARY KEY NOT NULL,
			user    TEXT NOT NULL,
			expires TEXT NOT NULL
		)`)
	}, func(app core.App) error {
		return exec(app, "DROP TABLE IF EXISTS signed_out_sessions")
	})
}
