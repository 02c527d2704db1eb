package store

import (
	"fmt"
	"net/http"
	"net/mail"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/mailer"

	"github.com/loreweave/loreweave/app/apierr"
)

// MailInvitation tells the invited address of an invitation by mail, when the operator has
// configured SMTP in PocketBase; otherwise it does nothing. It sends in the background and
// only logs a failure: an invitation stands whether or not its mail went out, and the answer
// to the inviter must not depend on the address (whether it has an account, or a mail server
// that answers slowly). baseURL is the instance's public address, for the link.
func (s *Store) MailInvitation(inv Invitation, inviterName, baseURL string) {
	app := s.app
	if !app.Settings().SMTP.Enabled {
		return
	}
	meta := app.Settings().Meta
	who := inviterName
	if who == "" {
		who = "Someone"
	}
	text := fmt.Sprintf("%s invited you to the world “%s” on Loreweave, as %s.\n\n"+
		"Sign in (or sign up with this email address) to accept or decline:\n%s/\n\n"+
		"The invitation expires on %s. If you did not expect it, ignore this mail.\n",
		who, inv.WorldName, inv.Role, baseURL, ParseTime(inv.Expires).Format("2 January 2006"))
	msg := &mailer.Message{
		From:    mail.Address{Name: meta.SenderName, Address: meta.SenderAddress},
		To:      []mail.Address{{Address: inv.Email}},
		Subject: fmt.Sprintf("Invitation to %s", inv.WorldName),
		Text:    text,
	}
	go func() {
		if err := app.NewMailClient().Send(msg); err != nil {
			app.Logger().Warn("invitation mail not sent", "invitation", inv.ID, "world", inv.WorldID, "error", err)
		}
	}()
}

// InviteeEmail is the email whose invitations user may see, accept and decline. When the
// instance sends mail, the address must be verified: otherwise whoever signed up first with
// somebody else's address would receive that person's invitations. Without mail nothing can
// be verified, and the address as signed up counts (the README says so).
func (s *Store) InviteeEmail(user *core.Record) (string, error) {
	if s.app.Settings().SMTP.Enabled && !user.Verified() {
		return "", apierr.New(http.StatusForbidden, "email_unverified",
			"verify your email address first (open the link in the mail sent when you signed up): invitations are for whoever holds the address")
	}
	return NormalizeEmail(user.Email()), nil
}
