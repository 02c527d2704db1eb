package pb_migrations

import (
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// The OAuth 2.1 authorization server's state: registered clients, authorization codes and
// tokens. Codes and tokens are stored as SHA-256 hashes only.
func init() {
	migrations.Register(func(app core.App) error {
		users, err := app.FindCollectionByNameOrId("users")
		if err != nil {
			return err
		}
		clients := core.NewBaseCollection("oauth_clients")
		clients.Fields.Add(
			&core.TextField{Name: "clientId", Required: true, Max: 100},
			&core.TextField{Name: "name", Max: 200},
			&core.JSONField{Name: "redirectUris"},
			&core.AutodateField{Name: "created", OnCreate: true},
		)
		clients.AddIndex("idx_oauth_clients_client_id", true, "clientId", "")
		if err := app.Save(clients); err != nil {
			return fmt.Errorf("oauth_clients: %w", err)
		}

		codes := core.NewBaseCollection("oauth_codes")
		codes.Fields.Add(
			&core.TextField{Name: "hash", Required: true, Max: 64, Hidden: true},
			&core.TextField{Name: "clientId", Required: true, Max: 100},
			&core.RelationField{Name: "user", Required: true, MaxSelect: 1, CollectionId: users.Id, CascadeDelete: true},
			&core.TextField{Name: "redirectUri", Max: 2000},
			&core.TextField{Name: "challenge", Max: 200},
			&core.TextField{Name: "resource", Max: 2000},
			&core.TextField{Name: "scope", Max: 1000},
			&core.DateField{Name: "expiresAt"},
			&core.DateField{Name: "usedAt"},
			&core.AutodateField{Name: "created", OnCreate: true},
		)
		codes.AddIndex("idx_oauth_codes_hash", true, "hash", "")
		if err := app.Save(codes); err != nil {
			return fmt.Errorf("oauth_codes: %w", err)
		}

		tokens := core.NewBaseCollection("oauth_tokens")
		tokens.Fields.Add(
			&core.TextField{Name: "hash", Required: true, Max: 64, Hidden: true},
			&core.SelectField{Name: "kind", Required: true, MaxSelect: 1, Values: []string{"access", "refresh"}},
			// family groups every token descending from one authorization code.
			&core.TextField{Name: "family", Required: true, Max: 50},
			&core.TextField{Name: "codeHash", Max: 64, Hidden: true},
			&core.TextField{Name: "clientId", Required: true, Max: 100},
			&core.RelationField{Name: "user", Required: true, MaxSelect: 1, CollectionId: users.Id, CascadeDelete: true},
			&core.TextField{Name: "resource", Max: 2000},
			&core.TextField{Name: "scope", Max: 1000},
			&core.DateField{Name: "expiresAt"},
			&core.DateField{Name: "usedAt"},
			&core.DateField{Name: "revokedAt"},
			&core.DateField{Name: "lastUsedAt"},
			&core.AutodateField{Name: "created", OnCreate: true},
		)
		tokens.AddIndex("idx_oauth_tokens_hash", true, "hash", "")
		tokens.AddIndex("idx_oauth_tokens_family", false, "family", "")
		tokens.AddIndex("idx_oauth_tokens_user_client", false, "user, clientId", "")
		if err := app.Save(tokens); err != nil {
			return fmt.Errorf("oauth_tokens: %w", err)
		}
		return nil
	}, func(app core.App) error {
		for _, name := range []string{"oauth_tokens", "oauth_codes", "oauth_clients"} {
			if c, err := app.FindCollectionByNameOrId(name); err == nil {
				if err := app.Delete(c); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
