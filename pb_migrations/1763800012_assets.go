package pb_migrations

import (
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// assets holds a world's uploaded files (map images, animator models) in PocketBase's file
// storage, so the operator's local-disk or S3 setting applies. Each record keeps one file
// under <collection id>/<record id>/, and the rows of a world list all its files, which is
// how an export walks them. Sizes are enforced by the upload handler, not by the field.
func init() {
	migrations.Register(func(app core.App) error {
		worlds, err := app.FindCollectionByNameOrId("worlds")
		if err != nil {
			return fmt.Errorf("find worlds: %w", err)
		}
		users, err := app.FindCollectionByNameOrId("users")
		if err != nil {
			return fmt.Errorf("find users: %w", err)
		}
		c := core.NewBaseCollection("assets")
		c.Fields.Add(
			&core.RelationField{Name: "world", Required: true, MaxSelect: 1, CollectionId: worlds.Id, CascadeDelete: true},
			&core.FileField{Name: "file", Required: true, MaxSelect: 1, MaxSize: 1 << 40, Protected: true},
			&core.TextField{Name: "name", Max: 200},
			&core.SelectField{Name: "kind", Required: true, MaxSelect: 1, Values: []string{"image", "model"}},
			&core.TextField{Name: "contentType", Required: true, Max: 100},
			&core.NumberField{Name: "size", OnlyInt: true},
			&core.NumberField{Name: "width", OnlyInt: true},
			&core.NumberField{Name: "height", OnlyInt: true},
			&core.RelationField{Name: "uploader", MaxSelect: 1, CollectionId: users.Id},
			&core.AutodateField{Name: "created", OnCreate: true},
		)
		c.AddIndex("idx_assets_world", false, "world, created", "")
		if err := app.Save(c); err != nil {
			return fmt.Errorf("assets: %w", err)
		}
		return nil
	}, func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("assets")
		if err != nil {
			return nil
		}
		return app.Delete(c)
	})
}
