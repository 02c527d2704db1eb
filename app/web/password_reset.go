package web

import (
	"net/http"
	"strings"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/mails"
	"github.com/pocketbase/pocketbase/tools/routine"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/views"
)

// pocketBaseDefaultAppURL is the Application URL of PocketBase's settings until an operator
// changes it.
const pocketBaseDefaultAppURL = "http://localhost:8090"

// useBaseURLInMails makes the links of account mails ({APP_URL}, migration 1763800070) lead to
// this server while the operator has not set PocketBase's Application URL. It changes the
// settings in memory only; an URL set in the dashboard wins.
func (w *Web) useBaseURLInMails() {
	if m := &w.App.Settings().Meta; (m.AppURL == "" || m.AppURL == pocketBaseDefaultAppURL) && w.Config.BaseURL != "" {
		m.AppURL = w.Config.BaseURL
	}
}

// loginNotices are the notices the sign-in page shows after a redirect to it (?notice=).
var loginNotices = map[string]string{
	"reset":   "Your password is changed and every device was signed out. Sign in with the new password.",
	"email":   "Your email is changed and every device was signed out. Sign in with the new address.",
	"deleted": "Your account is deleted.",
}

func (w *Web) forgotPasswordForm(e *core.RequestEvent) error {
	return render(e, http.StatusOK, views.ForgotPasswordPage(page(e, "Forgot password"), views.ForgotPasswordView{MailEnabled: w.mailEnabled()}))
}

// forgotPassword sends PocketBase's password reset mail to an account's email. The answer is
// the same whether or not the email has an account, and as quick (the mail goes in the
// background). Requests count against limits of their own, like PocketBase's own reset
// requests (limitMailRequests), since each may send a mail to someone else's inbox.
func (w *Web) forgotPassword(e *core.RequestEvent) error {
	v := views.ForgotPasswordView{MailEnabled: w.mailEnabled(), Email: strings.TrimSpace(e.Request.PostFormValue("email"))}
	if ok, wait := w.mailRequests.begin(e.RealIP(), v.Email); !ok {
		v.Error = "Too many requests. Try again in " + retryIn(wait) + "."
		return tooManyRequests(e, wait, views.ForgotPasswordPage(page(e, "Forgot password"), v))
	}
	if !v.MailEnabled {
		return render(e, http.StatusOK, views.ForgotPasswordPage(page(e, "Forgot password"), v))
	}
	email, err := auth.NormalEmail(v.Email)
	if err != nil {
		v.Error = sentence(apierr.From(err).Message)
		return render(e, http.StatusUnprocessableEntity, views.ForgotPasswordPage(page(e, "Forgot password"), v))
	}
	if u, err := auth.FindUserByEmail(w.App, email); err == nil {
		app := w.App
		routine.FireAndForget(func() {
			if err := mails.SendRecordPasswordReset(app, u); err != nil {
				app.Logger().Error("web: send password reset mail", "user", u.Id, "error", err.Error())
			}
		})
	}
	v.Sent, v.Email = true, email
	return render(e, http.StatusOK, views.ForgotPasswordPage(page(e, "Forgot password"), v))
}

// resetUser returns the user of a valid password reset token (PocketBase's check: signature,
// expiry, and the user's tokenKey, which a new password renews, so a link works once).
func (w *Web) resetUser(token string) *core.Record {
	u, err := w.App.FindAuthRecordByToken(token, core.TokenTypePasswordReset)
	if err != nil || u.Collection().Name != "users" {
		return nil
	}
	return u
}

// resetPasswordForm is where the reset mail links to.
func (w *Web) resetPasswordForm(e *core.RequestEvent) error {
	token := e.Request.URL.Query().Get("token")
	v := views.ResetPasswordView{Token: token, Expired: w.resetUser(token) == nil}
	status := http.StatusOK
	if v.Expired {
		status = http.StatusBadRequest
	}
	return render(e, status, views.ResetPasswordPage(page(e, "Choose a new password"), v))
}

// resetPassword sets the new password of a reset link's user and signs out all their sessions.
func (w *Web) resetPassword(e *core.RequestEvent) error {
	v := views.ResetPasswordView{Token: e.Request.PostFormValue("token")}
	u := w.resetUser(v.Token)
	if u == nil {
		v.Expired = true
		return render(e, http.StatusBadRequest, views.ResetPasswordPage(page(e, "Choose a new password"), v))
	}
	if err := auth.SetPassword(w.App, u, e.Request.PostFormValue("password")); err != nil {
		ae := apierr.From(err)
		if ae.Status == http.StatusInternalServerError {
			return err
		}
		v.Err = &views.FormError{Code: ae.Code, Message: sentence(ae.Message)}
		return render(e, http.StatusUnprocessableEntity, views.ResetPasswordPage(page(e, "Choose a new password"), v))
	}
	// This browser's session, if any, was someone's: it ended with the others.
	w.clearSessionCookie(e)
	return e.Redirect(http.StatusSeeOther, "/login?notice=reset")
}
