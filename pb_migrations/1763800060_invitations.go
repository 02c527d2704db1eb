package pb_migrations

import (
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// Adding someone to a world becomes an invitation: it names an email (lower case), not an
// account, so inviting an address says nothing about whether it has one; the invitation waits
// until someone with that email accepts or declines it, a manager revokes it, or it expires.
// One invitation per world and email: inviting again changes it.
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
		c := core.NewBaseCollection("invitations")
		c.Fields.Add(
			&core.RelationField{Name: "world", Required: true, MaxSelect: 1, CollectionId: worlds.Id, CascadeDelete: true},
			&core.EmailField{Name: "email", Required: true},
			&core.SelectField{Name: "role", Required: true, MaxSelect: 1, Values: []string{"admin", "editor", "viewer"}},
			&core.RelationField{Name: "invitedBy", MaxSelect: 1, CollectionId: users.Id},
			&core.DateField{Name: "expires", Required: true},
			&core.AutodateField{Name: "created", OnCreate: true},
			&core.AutodateField{Name: "updated", OnCreate: true, OnUpdate: true},
		)
		c.AddIndex("idx_invitations_world_email", true, "world, email", "")
		c.AddIndex("idx_invitations_email", false, "email", "")
		if err := app.Save(c); err != nil {
			return fmt.Errorf("invitations: %w", err)
		}
		return nil
	}, func(app core.App) error {
		return dropCollection(app, "invitations")
	})
}
