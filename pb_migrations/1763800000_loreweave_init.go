// Package pb_migrations creates and evolves Loreweave's collections. Migrations register
// themselves with PocketBase when the package is imported (main.go and the test harness do).
package pb_migrations

import (
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// Every collection keeps its API rules nil (superusers only): /api/v1 is the public contract,
// not PocketBase's generic records API. The admin dashboard still sees everything.

const maxBig = 20_000_000 // characters or bytes for content fields written by the store

func init() {
	migrations.Register(up, down)
}

func up(app core.App) error {
	users, err := app.FindCollectionByNameOrId("users")
	if err != nil {
		return fmt.Errorf("find users: %w", err)
	}
	users.ListRule, users.ViewRule, users.CreateRule, users.UpdateRule, users.DeleteRule = nil, nil, nil, nil, nil
	if err := app.Save(users); err != nil {
		return fmt.Errorf("lock users: %w", err)
	}

	worlds := core.NewBaseCollection("worlds")
	worlds.Fields.Add(
		&core.TextField{Name: "name", Required: true, Max: 200},
		&core.TextField{Name: "slug", Required: true, Max: 120, Pattern: `^[a-z0-9]+(-[a-z0-9]+)*$`},
		&core.TextField{Name: "genre", Max: 200},
		&core.TextField{Name: "theme", Max: 50},
		&core.SelectField{Name: "plan", Required: true, MaxSelect: 1, Values: []string{"free", "pro", "studio"}},
		&core.RelationField{Name: "owner", Required: true, MaxSelect: 1, CollectionId: users.Id},
		&core.AutodateField{Name: "created", OnCreate: true},
		&core.AutodateField{Name: "updated", OnCreate: true, OnUpdate: true},
	)
	worlds.AddIndex("idx_worlds_slug", true, "slug", "")
	if err := app.Save(worlds); err != nil {
		return fmt.Errorf("worlds: %w", err)
	}

	members := core.NewBaseCollection("world_members")
	members.Fields.Add(
		&core.RelationField{Name: "world", Required: true, MaxSelect: 1, CollectionId: worlds.Id, CascadeDelete: true},
		&core.RelationField{Name: "user", Required: true, MaxSelect: 1, CollectionId: users.Id, CascadeDelete: true},
		&core.SelectField{Name: "role", Required: true, MaxSelect: 1, Values: []string{"owner", "admin", "editor", "viewer"}},
		&core.AutodateField{Name: "created", OnCreate: true},
		&core.AutodateField{Name: "updated", OnCreate: true, OnUpdate: true},
	)
	members.AddIndex("idx_world_members_world_user", true, "world, user", "")
	members.AddIndex("idx_world_members_user", false, "user", "")
	if err := app.Save(members); err != nil {
		return fmt.Errorf("world_members: %w", err)
	}

	eras := core.NewBaseCollection("eras")
	eras.Fields.Add(
		&core.RelationField{Name: "world", Required: true, MaxSelect: 1, CollectionId: worlds.Id, CascadeDelete: true},
		&core.TextField{Name: "name", Required: true, Max: 200},
		&core.AutodateField{Name: "created", OnCreate: true},
	)
	if err := app.Save(eras); err != nil {
		return fmt.Errorf("eras: %w", err)
	}
	eras.Fields.Add(&core.RelationField{Name: "parent", MaxSelect: 1, CollectionId: eras.Id})
	eras.AddIndex("idx_eras_world", false, "world, created", "")
	if err := app.Save(eras); err != nil {
		return fmt.Errorf("eras parent: %w", err)
	}

	documents := core.NewBaseCollection("documents")
	documents.Fields.Add(
		&core.RelationField{Name: "world", Required: true, MaxSelect: 1, CollectionId: worlds.Id, CascadeDelete: true},
		&core.TextField{Name: "name", Required: true, Max: 200},
		&core.TextField{Name: "documentType", Required: true, Max: 100},
		&core.RelationField{Name: "era", MaxSelect: 1, CollectionId: eras.Id},
		&core.AutodateField{Name: "created", OnCreate: true},
		&core.AutodateField{Name: "updated", OnCreate: true, OnUpdate: true},
	)
	if err := app.Save(documents); err != nil {
		return fmt.Errorf("documents: %w", err)
	}
	documents.Fields.Add(&core.RelationField{Name: "parent", MaxSelect: 1, CollectionId: documents.Id})
	documents.AddIndex("idx_documents_world", false, "world, created", "")
	documents.AddIndex("idx_documents_parent", false, "parent", "")
	if err := app.Save(documents); err != nil {
		return fmt.Errorf("documents parent: %w", err)
	}

	states := core.NewBaseCollection("document_states")
	states.Fields.Add(
		&core.RelationField{Name: "document", Required: true, MaxSelect: 1, CollectionId: documents.Id, CascadeDelete: true},
		// era is the era id, or "" for the main line.
		&core.TextField{Name: "era", Max: 50},
		&core.JSONField{Name: "data", MaxSize: maxBig},
		&core.TextField{Name: "text", Max: maxBig},
		&core.NumberField{Name: "version", OnlyInt: true},
		// forkedVersion is the inherited version an era's copy started from.
		&core.NumberField{Name: "forkedVersion", OnlyInt: true},
		&core.BoolField{Name: "deleted"},
		&core.AutodateField{Name: "updated", OnCreate: true, OnUpdate: true},
	)
	states.AddIndex("idx_document_states_doc_era", true, "document, era", "")
	if err := app.Save(states); err != nil {
		return fmt.Errorf("document_states: %w", err)
	}

	if err := app.Save(opLogCollection(documents.Id)); err != nil {
		return fmt.Errorf("document_ops: %w", err)
	}

	projects := core.NewBaseCollection("projects")
	projects.Fields.Add(
		&core.RelationField{Name: "world", Required: true, MaxSelect: 1, CollectionId: worlds.Id, CascadeDelete: true},
		&core.TextField{Name: "kind", Required: true, Max: 100},
		&core.TextField{Name: "name", Required: true, Max: 200},
		&core.JSONField{Name: "config"},
		&core.AutodateField{Name: "created", OnCreate: true},
		&core.AutodateField{Name: "updated", OnCreate: true, OnUpdate: true},
	)
	projects.AddIndex("idx_projects_world", false, "world, created", "")
	if err := app.Save(projects); err != nil {
		return fmt.Errorf("projects: %w", err)
	}

	tools := core.NewBaseCollection("tools")
	tools.Fields.Add(
		&core.RelationField{Name: "world", Required: true, MaxSelect: 1, CollectionId: worlds.Id, CascadeDelete: true},
		&core.TextField{Name: "name", Max: 200},
		// manifest: {"documentTypes": ["quest", ...], "appKinds": ["kanban", ...]}
		&core.JSONField{Name: "manifest"},
		&core.AutodateField{Name: "created", OnCreate: true},
	)
	tools.AddIndex("idx_tools_world", false, "world", "")
	if err := app.Save(tools); err != nil {
		return fmt.Errorf("tools: %w", err)
	}

	keys := core.NewBaseCollection("api_keys")
	keys.Fields.Add(
		&core.RelationField{Name: "user", Required: true, MaxSelect: 1, CollectionId: users.Id, CascadeDelete: true},
		&core.TextField{Name: "name", Required: true, Max: 200},
		&core.TextField{Name: "prefix", Required: true, Max: 50},
		&core.TextField{Name: "hash", Required: true, Max: 64, Hidden: true},
		&core.DateField{Name: "lastUsedAt"},
		&core.DateField{Name: "revokedAt"},
		&core.AutodateField{Name: "created", OnCreate: true},
	)
	keys.AddIndex("idx_api_keys_hash", true, "hash", "")
	keys.AddIndex("idx_api_keys_user", false, "user", "")
	if err := app.Save(keys); err != nil {
		return fmt.Errorf("api_keys: %w", err)
	}

	// The outbox is a plain table, not a collection: an append-only change feed with a global,
	// never reused sequence that the search indexer and the live hub tail. Every change they
	// must see writes one row in its own transaction (the CLI's changes too).
	if _, err := app.DB().NewQuery(`
		CREATE TABLE outbox (
			seq      INTEGER PRIMARY KEY AUTOINCREMENT,
			kind     TEXT NOT NULL,
			world    TEXT NOT NULL DEFAULT '',
			document TEXT NOT NULL DEFAULT '',
			era      TEXT NOT NULL DEFAULT '',
			subject  TEXT NOT NULL DEFAULT '',
			created  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%fZ'))
		)`).Execute(); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	return nil
}

func down(app core.App) error {
	if _, err := app.DB().NewQuery("DROP TABLE IF EXISTS outbox").Execute(); err != nil {
		return err
	}
	for _, name := range []string{"api_keys", "tools", "projects", "document_ops", "document_states", "documents", "eras", "world_members", "worlds"} {
		c, err := app.FindCollectionByNameOrId(name)
		if err != nil {
			continue
		}
		if err := app.Delete(c); err != nil {
			return fmt.Errorf("drop %s: %w", name, err)
		}
	}
	return nil
}

// opLogCollection is the op log as this migration made it; 1763800003 turns it into a plain
// table.
func opLogCollection(documentsID string) *core.Collection {
	c := core.NewBaseCollection("document_ops")
	c.Fields.Add(
		&core.RelationField{Name: "document", Required: true, MaxSelect: 1, CollectionId: documentsID, CascadeDelete: true},
		&core.TextField{Name: "era", Max: 50},
		&core.NumberField{Name: "version", OnlyInt: true},
		&core.JSONField{Name: "ops", MaxSize: maxBig},
		&core.TextField{Name: "actor", Max: 50},
		&core.TextField{Name: "credential", Max: 20},
		&core.AutodateField{Name: "created", OnCreate: true},
	)
	c.AddIndex("idx_document_ops_doc_era_version", true, "document, era, version", "")
	return c
}
