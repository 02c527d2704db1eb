package pb_migrations

import (
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// Tools become installable (docs/TOOLS.md): a tool's row keeps its whole canonical manifest
// (ops.Tool.JSON()) in manifest, its title and version beside it for lists, and when it was
// last installed or upgraded, and when it was uninstalled. A world has one tool of a name:
// installing it again upgrades it (or reinstalls it).
func init() {
	migrations.Register(func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("tools")
		if err != nil {
			return fmt.Errorf("find tools: %w", err)
		}
		c.Fields.Add(
			&core.TextField{Name: "title", Max: 200},
			&core.TextField{Name: "version", Max: 100},
			&core.AutodateField{Name: "updated", OnCreate: true, OnUpdate: true},
			// uninstalled is when the tool was uninstalled ("" while installed): the row
			// stays so an op on one of its documents can name the tool to install again.
			&core.TextField{Name: "uninstalled", Max: 40},
		)
		if f, ok := c.Fields.GetByName("manifest").(*core.JSONField); ok {
			f.MaxSize = 8 << 20
		}
		c.AddIndex("idx_tools_world_name", true, "world, name", "")
		if err := app.Save(c); err != nil {
			return fmt.Errorf("tools: %w", err)
		}
		return nil
	}, func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("tools")
		if err != nil {
			return nil
		}
		c.RemoveIndex("idx_tools_world_name")
		for _, name := range []string{"title", "version", "updated", "uninstalled"} {
			c.Fields.RemoveByName(name)
		}
		return app.Save(c)
	})
}
