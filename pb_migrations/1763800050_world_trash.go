package pb_migrations

import (
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// A world deleted by its owner goes to a trash first: worlds gain a "deleted" date, empty
// while the world is in use. A trashed world answers 404 everywhere; its owner can restore it
// for store.TrashKeep, after which the purge removes it and everything of it. The index lets
// the purge find the expired worlds without a scan.
func init() {
	migrations.Register(func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("worlds")
		if err != nil {
			return fmt.Errorf("find worlds: %w", err)
		}
		c.Fields.Add(&core.DateField{Name: "deleted"})
		c.AddIndex("idx_worlds_deleted", false, "deleted", "deleted != ''")
		if err := app.Save(c); err != nil {
			return fmt.Errorf("worlds deleted: %w", err)
		}
		return nil
	}, func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("worlds")
		if err != nil {
			return nil
		}
		c.RemoveIndex("idx_worlds_deleted")
		c.Fields.RemoveByName("deleted")
		return app.Save(c)
	})
}
