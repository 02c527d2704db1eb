package auth

import (
	"fmt"
	"net/mail"
	"strings"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/store"
)

// SessionsEndedKind is the outbox kind that signs out every session of a user (Subject: the
// user id): the live hub closes their open event streams. Their tokens stopped working
// already, with the user's tokenKey (PocketBase renews it when the password or email changes).
const SessionsEndedKind = "sessions.ended"

// CheckPassword reports whether password is acceptable as a new password: the same rule as
// at sign-up (bcrypt reads at most 72 bytes).
func CheckPassword(password string) error {
	if len(password) < 8 {
		return apierr.Field("password", "the password needs at least 8 characters")
	}
	if len(password) > 71 {
		return apierr.Field("password", "the password may have at most 71 characters")
	}
	return nil
}

// SetPassword gives u a new password and signs out every session of u, here and in a running
// server (the CLI calls it too). API keys and connected apps keep working: they are not
// passwords, and each can be revoked on its own.
func SetPassword(app core.App, u *core.Record, password string) error {
	if err := CheckPassword(password); err != nil {
		return err
	}
	return app.RunInTransaction(func(tx core.App) error {
		u.SetPassword(password)
		// Whoever reset the password by mail showed they hold the inbox.
		u.SetVerified(true)
		if err := tx.Save(u); err != nil {
			return fmt.Errorf("auth: set password: %w", err)
		}
		_, err := store.WriteOutbox(tx.DB(), SessionsEndedKind, "", "", "", u.Id)
		return err
	})
}

// NormalEmail trims and lower-cases an email address and checks its form.
func NormalEmail(email string) (string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || len(email) > 254 {
		return "", apierr.Field("email", "enter an email address such as name@example.com")
	}
	return email, nil
}

// EmailTaken reports whether another account than userID uses email.
func EmailTaken(app core.App, email, userID string) bool {
	u, err := app.FindAuthRecordByEmail("users", email)
	return err == nil && u.Id != userID
}

// errEmailUnavailable is all a user learns when the address they chose cannot be theirs:
// not whose it is.
var errEmailUnavailable = apierr.Field("email", "this email address cannot be used for your account; choose another")

// SetEmail changes u's email to email (already normalised) and signs out every session of u
// (PocketBase renews the tokenKey on an email change). A taken address is refused without
// saying more.
func SetEmail(app core.App, u *core.Record, email string) error {
	return app.RunInTransaction(func(tx core.App) error {
		if EmailTaken(tx, email, u.Id) {
			return errEmailUnavailable
		}
		u.SetEmail(email)
		if err := tx.Save(u); err != nil {
			return errEmailUnavailable // the unique index, should another account take it meanwhile
		}
		_, err := store.WriteOutbox(tx.DB(), SessionsEndedKind, "", "", "", u.Id)
		return err
	})
}

// OwnedWorld is a world that keeps its owner from deleting their account.
type OwnedWorld struct {
	ID   string `db:"id"`
	Name string `db:"name"`
	Slug string `db:"slug"`
}

// OwnedWorlds lists the worlds userID owns, by name.
func OwnedWorlds(db dbx.Builder, userID string) ([]OwnedWorld, error) {
	worlds := []OwnedWorld{}
	err := db.NewQuery("SELECT id, name, slug FROM worlds WHERE owner = {:u} ORDER BY name COLLATE NOCASE, id").
		Bind(dbx.Params{"u": userID}).All(&worlds)
	if err != nil {
		return nil, fmt.Errorf("auth: owned worlds: %w", err)
	}
	return worlds, nil
}

// DeleteUser deletes an account that owns no world, in one transaction: it leaves every world
// it is a member of, its API keys and OAuth grants are revoked (so a running server closes
// what uses them at once) and deleted, its sessions end, and the user record goes. The ops it
// made stay in the worlds' history under its id (shown as a deleted account); uploads keep
// their files and lose their uploader. While it owns worlds it is refused with code
// owns_worlds and the worlds in "worlds".
func DeleteUser(app core.App, u *core.Record) error {
	return app.RunInTransaction(func(tx core.App) error {
		owned, err := OwnedWorlds(tx.DB(), u.Id)
		if err != nil {
			return err
		}
		if len(owned) > 0 {
			names := make([]string, len(owned))
			for i, w := range owned {
				names[i] = w.Name
			}
			return apierr.New(409, "owns_worlds", "you own %d world(s) (%s): transfer or delete them first", len(owned), strings.Join(names, ", ")).
				With("worlds", owned)
		}
		var worlds []string
		if err := tx.DB().NewQuery("SELECT world FROM world_members WHERE user = {:u}").Bind(dbx.Params{"u": u.Id}).Column(&worlds); err != nil {
			return fmt.Errorf("auth: delete user: memberships: %w", err)
		}
		for _, w := range worlds {
			if _, err := tx.DB().NewQuery("DELETE FROM world_members WHERE world = {:w} AND user = {:u}").Bind(dbx.Params{"w": w, "u": u.Id}).Execute(); err != nil {
				return fmt.Errorf("auth: delete user: leave %s: %w", w, err)
			}
			if _, err := store.WriteOutbox(tx.DB(), "member.removed", w, "", "", u.Id); err != nil {
				return err
			}
		}
		var keys []string
		if err := tx.DB().NewQuery("SELECT id FROM api_keys WHERE user = {:u} AND revokedAt = ''").Bind(dbx.Params{"u": u.Id}).Column(&keys); err != nil {
			return fmt.Errorf("auth: delete user: keys: %w", err)
		}
		for _, k := range keys {
			if _, err := store.WriteOutbox(tx.DB(), "key.revoked", "", "", "", k); err != nil {
				return err
			}
		}
		if _, err := revokeWhere(tx.DB(), "user = {:u}", dbx.Params{"u": u.Id}); err != nil {
			return fmt.Errorf("auth: delete user: oauth: %w", err)
		}
		if _, err := store.WriteOutbox(tx.DB(), SessionsEndedKind, "", "", "", u.Id); err != nil {
			return err
		}
		// PocketBase deletes the keys and OAuth rows with it (cascade) and clears assets' uploader.
		if err := tx.Delete(u); err != nil {
			return fmt.Errorf("auth: delete user: %w", err)
		}
		return nil
	})
}
