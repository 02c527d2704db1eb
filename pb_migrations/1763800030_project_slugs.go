package pb_migrations

import (
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// A project gets a slug, unique across the instance, made from its name when it is created
// and kept when it is renamed: a wiki's address (/wiki/{slug}/) must not move under its
// readers. Projects made before get "project-" and their id. The outbox gains an index by
// world and sequence, so a wiki page can ask for its world's newest change (its ETag) without
// a scan.
func init() {
	migrations.Register(func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("projects")
		if err != nil {
			return fmt.Errorf("find projects: %w", err)
		}
		c.Fields.Add(&core.TextField{Name: "slug", Max: 100})
		if err := app.Save(c); err != nil {
			return fmt.Errorf("projects slug: %w", err)
		}
		if err := exec(app, "UPDATE projects SET slug = 'project-' || lower(id) WHERE slug = ''"); err != nil {
			return err
		}
		c.AddIndex("idx_projects_slug", true, "slug", "")
		if err := app.Save(c); err != nil {
			return fmt.Errorf("projects slug index: %w", err)
		}
		return exec(app, "CREATE INDEX idx_outbox_world_seq_all ON outbox (world, seq)")
	}, func(app core.App) error {
		if err := exec(app, "DROP INDEX IF EXISTS idx_outbox_world_seq_all"); err != nil {
			return err
		}
		c, err := app.FindCollectionByNameOrId("projects")
		if err != nil {
			return nil
		}
		c.RemoveIndex("idx_projects_slug")
		c.Fields.RemoveByName("slug")
		return app.Save(c)
	})
}
