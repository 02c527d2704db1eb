package web

import (
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/security"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/views"
)

// signupClosed answers /signup when the operator closed it (config.Config.Signup).
func (w *Web) signupClosed(e *core.RequestEvent) error {
	return w.errorPage(e, http.StatusNotFound, "Sign-up is closed",
		"This server does not let visitors create accounts. Ask its operator to create one for you, then sign in.")
}

func (w *Web) signupForm(e *core.RequestEvent) error {
	if !w.Config.SignupOpen() {
		return w.signupClosed(e)
	}
	if user(e) != nil {
		return e.Redirect(http.StatusSeeOther, "/")
	}
	return render(e, http.StatusOK, views.SignupPage(page(e, "Create account"), views.AuthForm{}))
}

func (w *Web) signup(e *core.RequestEvent) error {
	if !w.Config.SignupOpen() {
		return w.signupClosed(e)
	}
	f := views.AuthForm{Email: e.Request.PostFormValue("email"), Name: e.Request.PostFormValue("name")}
	if ok, wait := w.signups.Take(e.RealIP()); !ok {
		f.Error = "Too many sign-ups from your address. Try again in " + retryIn(wait) + "."
		return tooManyRequests(e, wait, views.SignupPage(page(e, "Create account"), f))
	}
	u, err := auth.CreateUser(w.App, f.Email, e.Request.PostFormValue("password"), f.Name)
	if err != nil {
		f.Error = apierr.From(err).Message
		return render(e, http.StatusUnprocessableEntity, views.SignupPage(page(e, "Create account"), f))
	}
	if err := w.verifyByMail(u); err != nil {
		return err
	}
	if err := w.startSession(e, u); err != nil {
		return err
	}
	return e.Redirect(http.StatusSeeOther, "/")
}

func (w *Web) loginForm(e *core.RequestEvent) error {
	next := localPath(e.Request.URL.Query().Get("next"))
	if user(e) != nil {
		return e.Redirect(http.StatusSeeOther, next)
	}
	f := views.AuthForm{Next: next, Notice: loginNotices[e.Request.URL.Query().Get("notice")]}
	return render(e, http.StatusOK, views.LoginPage(page(e, "Sign in"), f))
}

func (w *Web) login(e *core.RequestEvent) error {
	f := views.AuthForm{Email: e.Request.PostFormValue("email"), Next: localPath(e.Request.PostFormValue("next"))}
	ip := e.RealIP()
	if ok, wait := w.signIns.begin(ip, f.Email); !ok {
		f.Error = "Too many failed sign-ins. Try again in " + retryIn(wait) + "."
		return tooManyRequests(e, wait, views.LoginPage(page(e, "Sign in"), f))
	}
	u, err := auth.SignIn(w.App, f.Email, e.Request.PostFormValue("password"))
	if err != nil {
		f.Error = "The email or password is not right."
		return render(e, http.StatusUnauthorized, views.LoginPage(page(e, "Sign in"), f))
	}
	w.signIns.succeeded(ip, f.Email)
	if err := w.startSession(e, u); err != nil {
		return err
	}
	return e.Redirect(http.StatusSeeOther, f.Next)
}

// startSession sets the session cookie and a fresh CSRF token.
func (w *Web) startSession(e *core.RequestEvent, u *core.Record) error {
	token, err := auth.NewSessionToken(u)
	if err != nil {
		return err
	}
	maxAge := int(u.Collection().AuthToken.DurationTime() / time.Second)
	http.SetCookie(e.Response, &http.Cookie{Name: auth.SessionCookie, Value: token, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: w.secure(e.Request)})
	w.setCSRFCookie(e)
	return nil
}

// logout ends the session on the server (auth.EndSession), so that a copy of the cookie stops
// working too, and clears the cookie. Other sessions of the same user stay signed in.
func (w *Web) logout(e *core.RequestEvent) error {
	if c, err := e.Request.Cookie(auth.SessionCookie); err == nil && c.Value != "" {
		if err := auth.EndSession(w.App, c.Value); err != nil {
			return err
		}
	}
	w.clearSessionCookie(e)
	return e.Redirect(http.StatusSeeOther, "/login")
}

// clearSessionCookie makes the browser forget its session cookie.
func (w *Web) clearSessionCookie(e *core.RequestEvent) {
	http.SetCookie(e.Response, &http.Cookie{Name: auth.SessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: w.secure(e.Request)})
}

// apiKeys lists the user's keys. It is also where the key forms redirect to: after creating
// a key it shows the key's secret, once; after revoking one (?revoked=ID) it names the key, if
// it is the user's and revoked.
func (w *Web) apiKeys(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	var v views.KeysView
	if c, err := e.Request.Cookie(newKeyCookie); err == nil {
		w.setNewKeyCookie(e, "", -1)
		if k, ok := w.newKeySecrets().take(c.Value, u.Id); ok {
			v.NewKey, v.NewKeyName = k.secret, k.name
		} else {
			v.Error = "The new key's secret can no longer be shown: it is shown only once, for a minute. If you did not copy it, revoke that key and create another."
		}
	}
	if id := e.Request.URL.Query().Get("revoked"); id != "" {
		if k, err := w.Keys.Get(id); err == nil && k.UserID == u.Id && k.RevokedAt != "" {
			v.Notice = "The key “" + k.Name + "” is revoked: anything using it has stopped working."
		}
	}
	return w.renderKeys(e, u, http.StatusOK, v)
}

func (w *Web) renderKeys(e *core.RequestEvent, u *core.Record, status int, v views.KeysView) error {
	keys, err := w.Keys.List(u.Id)
	if err != nil {
		return err
	}
	for _, k := range keys {
		v.Keys = append(v.Keys, views.KeyItem{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Created: moment(k.Created),
			LastUsedAt: moment(k.LastUsedAt), RevokedAt: moment(k.RevokedAt)})
	}
	return render(e, status, views.APIKeysPage(page(e, "API keys"), v))
}

func (w *Web) createAPIKey(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	name := e.Request.PostFormValue("name")
	secret, key, err := w.Keys.Create(u.Id, name)
	if err != nil {
		return w.renderKeys(e, u, http.StatusUnprocessableEntity, views.KeysView{Error: apierr.From(err).Message})
	}
	id := w.newKeySecrets().put(newKeySecret{userID: u.Id, name: key.Name, secret: secret})
	w.setNewKeyCookie(e, id, int(newKeySecretTTL/time.Second))
	return e.Redirect(http.StatusSeeOther, "/settings/api-keys")
}

func (w *Web) revokeAPIKey(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	id := e.Request.PathValue("id")
	if err := w.Keys.Revoke(u.Id, id); err != nil {
		return w.renderKeys(e, u, http.StatusNotFound, views.KeysView{Error: "That key does not exist or is already revoked."})
	}
	return e.Redirect(http.StatusSeeOther, "/settings/api-keys?revoked="+url.QueryEscape(id))
}

// newKeyCookie holds the id under which a new key's secret waits for the page that creating
// it redirects to.
const newKeyCookie = "lw_new_key"

// newKeySecretTTL is how long a new key's secret waits for that page.
const newKeySecretTTL = time.Minute

// newKeySecrets hands the secret of a just-created key from the form's POST to the page it
// redirects to, once (Post/Redirect/Get): a reload shows the list without it and sends no
// form. The secret waits in this process's memory, never in a cookie; the browser holds only
// a random id.
type newKeySecrets struct {
	mu      sync.Mutex
	waiting map[string]newKeySecret // id -> secret
}

type newKeySecret struct {
	userID, name, secret string
	until                time.Time
}

// newKeySecrets returns the secrets waiting in this app (kept in its store).
func (w *Web) newKeySecrets() *newKeySecrets {
	v := w.App.Store().GetOrSet("lw.newKeySecrets", func() any { return &newKeySecrets{waiting: map[string]newKeySecret{}} })
	return v.(*newKeySecrets)
}

// put keeps k for newKeySecretTTL and returns its id; secrets never picked up are dropped.
func (n *newKeySecrets) put(k newKeySecret) string {
	id := security.RandomString(43)
	now := time.Now()
	k.until = now.Add(newKeySecretTTL)
	n.mu.Lock()
	defer n.mu.Unlock()
	for old, w := range n.waiting {
		if now.After(w.until) {
			delete(n.waiting, old)
		}
	}
	n.waiting[id] = k
	return id
}

// take returns the secret waiting under id for userID, and forgets it.
func (n *newKeySecrets) take(id, userID string) (newKeySecret, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	k, ok := n.waiting[id]
	delete(n.waiting, id)
	return k, ok && k.userID == userID && time.Now().Before(k.until)
}

// setNewKeyCookie sets (maxAge > 0) or clears (maxAge < 0) the new key's cookie.
func (w *Web) setNewKeyCookie(e *core.RequestEvent, id string, maxAge int) {
	http.SetCookie(e.Response, &http.Cookie{Name: newKeyCookie, Value: id, Path: "/settings/api-keys", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: w.secure(e.Request)})
}
