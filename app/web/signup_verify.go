package web

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/mails"
)

// verifyByMail, when the instance sends mail, marks a new account's email unverified and
// sends PocketBase's verification mail. Invitations go to an email, so whoever signs up with
// somebody else's address must not receive that person's invitations: with mail, only a
// verified address sees and accepts them (store.InviteeEmail). Without mail nothing can be
// verified, and accounts stay as they were made.
func (w *Web) verifyByMail(u *core.Record) error {
	if !w.App.Settings().SMTP.Enabled {
		return nil
	}
	u.SetVerified(false)
	if err := w.App.Save(u); err != nil {
		return err
	}
	app := w.App
	go func() {
		if err := mails.SendRecordVerification(app, u); err != nil {
			app.Logger().Warn("verification mail not sent", "user", u.Id, "error", err)
		}
	}()
	return nil
}
