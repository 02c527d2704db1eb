// Package web serves Loreweave's HTML pages: sign up, sign in, the user's worlds, a world's
// document tree and each document read-only (both kept live by static/js/live.js over the
// /api/v1 event streams), the world page's organising forms for editors (world_edit.go),
// account settings. Pages are templ components from views/; every mutating form is
// CSRF-protected.
package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/config"
	"github.com/loreweave/loreweave/app/live"
	"github.com/loreweave/loreweave/app/ratelimit"
	"github.com/loreweave/loreweave/app/search"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/app/webhooks"
	"github.com/loreweave/loreweave/views"
)

// Web holds what the page handlers need.
type Web struct {
	App    core.App
	Store  *store.Store
	Keys   *auth.Keys
	Access auth.Access
	Config config.Config
	// OAuth backs the MCP connector's consent page and the connected apps settings.
	OAuth *auth.OAuth
	// Search answers the world page's search box.
	Search search.Searcher
	// Live relays the editor's cursors to a document's watchers.
	Live *live.Hub
	// Webhooks registers and tests the world's webhooks (webhooks.go).
	Webhooks *webhooks.Service

	crossOrigin *http.CrossOriginProtection
	// wikiPages keeps rendered wiki pages by ETag (wiki.go).
	wikiPages wikiPageCache
	signIns   signInLimits
	// mailRequests counts PocketBase's anonymous requests that send mail (limitMailRequests).
	mailRequests signInLimits
	signups      *ratelimit.Window // sign-up attempts per client address
}

const (
	csrfCookie      = "lw_csrf"
	userKey         = "lw.user"
	csrfKey         = "lw.csrf"
	signupClosedKey = "lw.signupClosed"
)

// contentSecurityPolicy allows only this origin's scripts, styles and images (Markdown images
// from other hosts are links, see sameOriginImages); models may come from anywhere over
// http(s) because worlds link to them, and map pages widen img-src for their images
// (mapCSP).
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; " + imgSrcSelf + " " +
	"connect-src 'self' http: https:; media-src 'self' http: https:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

// The page CSP's img-src, and the wider one of pages that show images set by address.
const (
	imgSrcSelf = "img-src 'self' data: blob:;"
	imgSrcAny  = "img-src 'self' data: blob: http: https:;"
)

// middleware runs on every page: security headers, the CSRF cookie and check, the session.
func (w *Web) middleware(e *core.RequestEvent) error {
	h := e.Response.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	e.Set(signupClosedKey, !w.Config.SignupOpen())

	token := ""
	if c, err := e.Request.Cookie(csrfCookie); err == nil && len(c.Value) >= 32 {
		token = c.Value
	}
	if e.Request.Method != http.MethodGet && e.Request.Method != http.MethodHead {
		if !w.csrfValid(e.Request, token) {
			if isJSON(e.Request) {
				return w.jsonError(e, apierr.New(http.StatusForbidden, "csrf_failed", "this request did not carry the page's CSRF token (X-CSRF-Token); reload the page"))
			}
			return w.errorPage(e, http.StatusForbidden, "Form expired", "This form could not be accepted (it may have expired or come from another site). Go back, reload the page and try again.")
		}
	}
	if token == "" {
		token = w.setCSRFCookie(e)
	}
	e.Set(csrfKey, token)
	if u := auth.SessionUser(w.App, e.Request); u != nil {
		e.Set(userKey, u)
	}
	return e.Next()
}

// isJSON reports whether a request comes from a page's script (JSON, or any body with the
// X-CSRF-Token header, like an upload): the editors' writes, which get JSON errors.
func isJSON(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || r.Header.Get("X-CSRF-Token") != ""
}

func (w *Web) csrfValid(r *http.Request, cookie string) bool {
	if err := w.crossOrigin.Check(r); err != nil {
		return false
	}
	sent := r.Header.Get("X-CSRF-Token")
	if sent == "" {
		r.Body = http.MaxBytesReader(nil, r.Body, 1<<20)
		sent = r.PostFormValue("csrf")
	}
	return cookie != "" && subtle.ConstantTimeCompare([]byte(sent), []byte(cookie)) == 1
}

func (w *Web) setCSRFCookie(e *core.RequestEvent) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("web: crypto/rand failed: " + err.Error())
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(e.Response, &http.Cookie{Name: csrfCookie, Value: token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: w.secure(e.Request)})
	return token
}

// secure reports whether cookies should be marked Secure.
func (w *Web) secure(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(w.Config.BaseURL, "https://")
}

// user returns the signed-in user, or nil.
func user(e *core.RequestEvent) *core.Record {
	u, _ := e.Get(userKey).(*core.Record)
	return u
}

// page builds the layout state of a page.
func page(e *core.RequestEvent, title string) views.Page {
	p := views.Page{Title: title}
	p.CSRF, _ = e.Get(csrfKey).(string)
	p.SignupClosed, _ = e.Get(signupClosedKey).(bool)
	if u := user(e); u != nil {
		p.User = &views.User{ID: u.Id, Name: u.GetString("name"), Email: u.Email()}
	}
	return p
}

// render writes a templ component as the response.
func render(e *core.RequestEvent, status int, c templ.Component) error {
	e.Response.Header().Set("Content-Type", "text/html; charset=utf-8")
	e.Response.Header().Set("Cache-Control", "no-store")
	e.Response.WriteHeader(status)
	return c.Render(context.Background(), e.Response)
}

func (w *Web) errorPage(e *core.RequestEvent, status int, title, msg string) error {
	return render(e, status, views.ErrorPage(page(e, title), status, msg))
}

// requireUser redirects signed-out visitors to the sign-in page and returns nil then.
func requireUser(e *core.RequestEvent) (*core.Record, error) {
	u := user(e)
	if u == nil {
		return nil, e.Redirect(http.StatusSeeOther, "/login?next="+url.QueryEscape(e.Request.URL.RequestURI()))
	}
	return u, nil
}

// localPath returns next if it is a path on this site, else "/".
// Browsers drop tabs and newlines from a URL and read a backslash as a slash, so "/\t/evil"
// and "/\\evil" lead off-site: next may hold none of them.
func localPath(next string) string {
	if strings.ContainsFunc(next, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") {
		return "/"
	}
	return next
}
