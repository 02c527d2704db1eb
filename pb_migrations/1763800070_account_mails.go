package pb_migrations

import (
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// The password reset and email change mails of users link to Loreweave's own pages
// (/reset-password and /confirm-email, app/web/password_reset.go and account_settings.go)
// instead of PocketBase's dashboard, which users cannot use. {APP_URL} is the Application
// URL of PocketBase's settings; Loreweave fills it with its base URL while it is PocketBase's
// default.
func init() {
	migrations.Register(func(app core.App) error {
		users, err := app.FindCollectionByNameOrId("users")
		if err != nil {
			return fmt.Errorf("find users: %w", err)
		}
		users.ResetPasswordTemplate = core.EmailTemplate{
			Subject: "Reset your " + core.EmailPlaceholderAppName + " password",
			Body: `<p>Hello,</p>
<p>Someone asked to reset the password of your ` + core.EmailPlaceholderAppName + ` account. To choose a new password, open this link (it works for 30 minutes, once):</p>
<p><a class="btn" href="` + core.EmailPlaceholderAppURL + `/reset-password?token=` + core.EmailPlaceholderToken + `" target="_blank" rel="noopener">Choose a new password</a></p>
<p><i>If you did not ask for this, ignore this mail: your password stays as it is.</i></p>`,
		}
		users.ConfirmEmailChangeTemplate = core.EmailTemplate{
			Subject: "Confirm your new " + core.EmailPlaceholderAppName + " email address",
			Body: `<p>Hello,</p>
<p>Someone asked to use this address for their ` + core.EmailPlaceholderAppName + ` account. To confirm, open this link (it works for 30 minutes):</p>
<p><a class="btn" href="` + core.EmailPlaceholderAppURL + `/confirm-email?token=` + core.EmailPlaceholderToken + `" target="_blank" rel="noopener">Confirm new email</a></p>
<p><i>If you did not ask for this, ignore this mail: nothing changes.</i></p>`,
		}
		if err := app.Save(users); err != nil {
			return fmt.Errorf("users mail templates: %w", err)
		}
		return nil
	}, nil)
}
