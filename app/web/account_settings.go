package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/mails"
	"github.com/pocketbase/pocketbase/tools/routine"
	"github.com/pocketbase/pocketbase/tools/security"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/ratelimit"
	"github.com/loreweave/loreweave/ops"
	"github.com/loreweave/loreweave/views"
)

// accountNotices are the notices the account page shows after a form redirects to it (?saved=).
var accountNotices = map[string]string{
	"name":       "Your name is saved.",
	"email":      "Your email is changed. Other devices are signed out.",
	"email-sent": "We sent a link to the new address. Your email changes when you open it (within 30 minutes).",
	"password":   "Your password is changed. Other devices are signed out.",
}

// mailEnabled reports whether the operator configured SMTP in PocketBase's settings: only
// then do account mails go out (PocketBase would otherwise try the local sendmail).
func (w *Web) mailEnabled() bool { return w.App.Settings().SMTP.Enabled }

// accountPage shows the account settings: name, email, password, deleting the account.
func (w *Web) accountPage(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	return w.renderAccount(e, u, http.StatusOK, views.AccountView{Notice: accountNotices[e.Request.URL.Query().Get("saved")]})
}

func (w *Web) renderAccount(e *core.RequestEvent, u *core.Record, status int, v views.AccountView) error {
	v.Name, v.Email, v.MailEnabled = u.GetString("name"), u.Email(), w.mailEnabled()
	return render(e, status, views.AccountPage(page(e, "Your account"), v))
}

// refuseAccountForm shows the account page again with err next to the control it is about.
func (w *Web) refuseAccountForm(e *core.RequestEvent, u *core.Record, form, field string, err error, v views.AccountView) error {
	ae := apierr.From(err)
	v.Form, v.Field, v.Err = form, field, &views.FormError{Code: ae.Code, Message: sentence(ae.Message)}
	status := ae.Status
	if status == http.StatusInternalServerError {
		return err
	}
	if status == http.StatusBadRequest {
		status = http.StatusUnprocessableEntity
	}
	if ra := ae.Header.Get("Retry-After"); ae.Header != nil && ra != "" {
		e.Response.Header().Set("Retry-After", ra)
	}
	return w.renderAccount(e, u, status, v)
}

// tooMany is a form's 429: what happened, and when to try again (Retry-After).
func tooMany(what string, wait time.Duration) *apierr.Error {
	ae := apierr.New(http.StatusTooManyRequests, "rate_limited", "%s; try again in %s", what, retryIn(wait))
	ae.Header = http.Header{"Retry-After": {strconv.Itoa(ratelimit.Seconds(wait))}}
	return ae
}

// checkCurrentPassword checks the password a form asks for before it changes the account.
// The checks count against the sign-in limits of the client's address and the account's
// email, so that a borrowed session cannot be used to guess the password.
func (w *Web) checkCurrentPassword(e *core.RequestEvent, u *core.Record, password string) error {
	ip := e.RealIP()
	if ok, wait := w.signIns.begin(ip, u.Email()); !ok {
		return tooMany("too many wrong passwords", wait)
	}
	if !u.ValidatePassword(password) {
		return apierr.New(http.StatusUnprocessableEntity, "wrong_password", "your current password is not right")
	}
	w.signIns.succeeded(ip, u.Email())
	return nil
}

func (w *Web) saveAccountName(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	name := strings.TrimSpace(e.Request.PostFormValue("name"))
	if len([]rune(name)) > 200 {
		return w.refuseAccountForm(e, u, "name", "name", apierr.Field("name", "the name may have at most 200 characters"), views.AccountView{})
	}
	if r, bad := ops.UnsafeRuneIn(name); bad {
		return w.refuseAccountForm(e, u, "name", "name", apierr.Field("name", "the name may not contain the control character %U", r), views.AccountView{})
	}
	u.Set("name", name)
	if err := w.App.Save(u); err != nil {
		return err
	}
	return e.Redirect(http.StatusSeeOther, "/settings/account?saved=name")
}

// changeEmail changes the signed-in user's email. With mail configured, the new address gets
// PocketBase's confirmation mail and nothing changes until its link is opened (confirmEmail);
// without, the change is made at once. Both ask for the current password. An address another
// account uses is refused in words that do not say so (with mail: not at all, the mail just
// does not go).
func (w *Web) changeEmail(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	v := views.AccountView{NewEmail: e.Request.PostFormValue("email")}
	email, err := auth.NormalEmail(v.NewEmail)
	if err != nil {
		return w.refuseAccountForm(e, u, "email", "email", err, v)
	}
	if email == u.Email() {
		return w.refuseAccountForm(e, u, "email", "email", apierr.Field("email", "that is already your email"), v)
	}
	// Each request may mail someone else's inbox, or (without mail) tell whether an address
	// is taken: they count like PocketBase's mail requests, and none is given back.
	if ok, wait := w.mailRequests.begin(e.RealIP(), u.Email()); !ok {
		return w.refuseAccountForm(e, u, "email", "email", tooMany("too many email changes", wait), v)
	}
	if err := w.checkCurrentPassword(e, u, e.Request.PostFormValue("password")); err != nil {
		return w.refuseAccountForm(e, u, "email", "password", err, v)
	}
	if w.mailEnabled() {
		if !auth.EmailTaken(w.App, email, u.Id) {
			app, user := w.App, u
			routine.FireAndForget(func() {
				if err := mails.SendRecordChangeEmail(app, user, email); err != nil {
					app.Logger().Error("web: send email change mail", "user", user.Id, "error", err.Error())
				}
			})
		}
		return e.Redirect(http.StatusSeeOther, "/settings/account?saved=email-sent")
	}
	if err := auth.SetEmail(w.App, u, email); err != nil {
		return w.refuseAccountForm(e, u, "email", "email", err, v)
	}
	if err := w.startSession(e, u); err != nil {
		return err
	}
	return e.Redirect(http.StatusSeeOther, "/settings/account?saved=email")
}

// emailChangeToken returns the user and new email of a valid email change token.
func (w *Web) emailChangeToken(token string) (*core.Record, string, bool) {
	u, err := w.App.FindAuthRecordByToken(token, core.TokenTypeEmailChange)
	if err != nil || u.Collection().Name != "users" {
		return nil, "", false
	}
	newEmail, err := emailClaim(token)
	if err != nil {
		return nil, "", false
	}
	return u, newEmail, true
}

// emailClaim reads the new email of an email change token (already verified).
func emailClaim(token string) (string, error) {
	claims, err := security.ParseUnverifiedJWT(token)
	if err != nil {
		return "", err
	}
	email, _ := claims[core.TokenClaimNewEmail].(string)
	return auth.NormalEmail(email)
}

// confirmEmailForm is where the email change mail links to: it asks to confirm, so that a
// mail scanner that opens links changes nothing.
func (w *Web) confirmEmailForm(e *core.RequestEvent) error {
	token := e.Request.URL.Query().Get("token")
	_, newEmail, ok := w.emailChangeToken(token)
	if !ok {
		return w.errorPage(e, http.StatusBadRequest, "Link expired",
			"This link has expired or was already used. Ask for the change again under Account.")
	}
	return render(e, http.StatusOK, views.ConfirmEmailPage(page(e, "Confirm your new email"), views.ConfirmEmailView{Token: token, NewEmail: newEmail}))
}

func (w *Web) confirmEmail(e *core.RequestEvent) error {
	u, newEmail, ok := w.emailChangeToken(e.Request.PostFormValue("token"))
	if !ok {
		return w.errorPage(e, http.StatusBadRequest, "Link expired",
			"This link has expired or was already used. Ask for the change again under Account.")
	}
	if err := auth.SetEmail(w.App, u, newEmail); err != nil {
		ae := apierr.From(err)
		if ae.Status == http.StatusInternalServerError {
			return err
		}
		return w.errorPage(e, http.StatusUnprocessableEntity, "Email not changed", sentence(ae.Message))
	}
	if me := user(e); me != nil && me.Id == u.Id {
		if err := w.startSession(e, u); err != nil {
			return err
		}
		return e.Redirect(http.StatusSeeOther, "/settings/account?saved=email")
	}
	return e.Redirect(http.StatusSeeOther, "/login?notice=email")
}

// changePassword sets a new password after checking the current one; every other session of
// the user ends (a new tokenKey), and this one gets a new token.
func (w *Web) changePassword(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	if err := w.checkCurrentPassword(e, u, e.Request.PostFormValue("current")); err != nil {
		return w.refuseAccountForm(e, u, "password", "current", err, views.AccountView{})
	}
	if err := auth.SetPassword(w.App, u, e.Request.PostFormValue("password")); err != nil {
		return w.refuseAccountForm(e, u, "password", "password", err, views.AccountView{})
	}
	if err := w.startSession(e, u); err != nil {
		return err
	}
	return e.Redirect(http.StatusSeeOther, "/settings/account?saved=password")
}

// deleteAccount deletes the signed-in user's account after checking the password; while the
// user owns worlds it is refused, with the list (auth.DeleteUser).
func (w *Web) deleteAccount(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	if err := w.checkCurrentPassword(e, u, e.Request.PostFormValue("password")); err != nil {
		return w.refuseAccountForm(e, u, "delete", "password", err, views.AccountView{})
	}
	if err := auth.DeleteUser(w.App, u); err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) && ae.Code == "owns_worlds" {
			owned, lerr := auth.OwnedWorlds(w.App.DB(), u.Id)
			if lerr != nil {
				return lerr
			}
			v := views.AccountView{}
			for _, o := range owned {
				v.Owned = append(v.Owned, views.OwnedWorldLink{Name: o.Name, Href: "/w/" + url.PathEscape(o.Slug)})
			}
			return w.refuseAccountForm(e, u, "delete", "password",
				apierr.New(http.StatusConflict, "owns_worlds", "you still own %d world(s), listed above: transfer or delete them first", len(owned)), v)
		}
		return err
	}
	w.clearSessionCookie(e)
	return e.Redirect(http.StatusSeeOther, "/login?notice=deleted")
}
