package web

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/views"
)

// The OAuth consent page: the browser half of the authorization server (RFC 6749 §4.1.1).
// The machine endpoints (token, registration, revocation) live in app/mcp.

// authParams are the authorization request parameters carried through the consent form.
var authParams = []string{"response_type", "client_id", "redirect_uri", "code_challenge", "code_challenge_method", "state", "resource", "scope"}

// authRequest is a validated authorization request.
type authRequest struct {
	params   url.Values
	client   auth.Client
	redirect *url.URL
	resource string
}

// checkAuthRequest validates a request. A bad client or redirect URI is shown to the user
// (never redirected to); other problems are sent back to the client's redirect URI.
func (w *Web) checkAuthRequest(e *core.RequestEvent, q url.Values) (*authRequest, bool, error) {
	client, err := w.OAuth.ResolveClient(e.Request.Context(), q.Get("client_id"))
	if err != nil {
		if auth.IsMetadataClientID(q.Get("client_id")) {
			var oe *auth.OAuthError
			msg := "This connection request names an app whose description could not be read."
			if errors.As(err, &oe) {
				msg = sentence(oe.Description)
			}
			return nil, false, w.errorPage(e, http.StatusBadRequest, "Unknown app", msg+" Start the connection again from the app.")
		}
		return nil, false, w.errorPage(e, http.StatusBadRequest, "Unknown app", "This connection request names an app that is not registered here. Start the connection again from the app.")
	}
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || !client.RedirectMatches(q.Get("redirect_uri")) {
		return nil, false, w.errorPage(e, http.StatusBadRequest, "Wrong return address", "This connection request's redirect address does not match the app's registration, so it was stopped.")
	}
	// Only the code flow is served, so any other response type is not a request of a real
	// client of ours; its error is shown, not redirected: anyone may register a client, and
	// redirecting a signed-in user to its address without consent would make this server an
	// open redirector (RFC 9700 §4.11.2).
	if q.Get("response_type") != "code" {
		return nil, false, w.errorPage(e, http.StatusBadRequest, "Unsupported request", "This connection request asks for a kind of access this server does not give (only response_type=code is supported), so it was stopped.")
	}
	r := &authRequest{params: q, client: client, redirect: redirect}
	switch {
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		return nil, false, w.redirectError(e, r, "invalid_request", "PKCE with code_challenge_method S256 is required")
	}
	resource, err := w.OAuth.CheckResource(q.Get("resource"))
	if err != nil {
		return nil, false, w.redirectError(e, r, "invalid_target", err.(*auth.OAuthError).Description)
	}
	r.resource = resource
	return r, true, nil
}

// sendBack redirects to the client with params plus state and iss (RFC 9207).
func (w *Web) sendBack(e *core.RequestEvent, r *authRequest, params url.Values) error {
	u := *r.redirect
	q := u.Query()
	for k, vs := range params {
		q[k] = vs
	}
	if s := r.params.Get("state"); s != "" {
		q.Set("state", s)
	}
	q.Set("iss", w.Config.BaseURL)
	u.RawQuery = q.Encode()
	return e.Redirect(http.StatusFound, u.String())
}

func (w *Web) redirectError(e *core.RequestEvent, r *authRequest, code, desc string) error {
	return w.sendBack(e, r, url.Values{"error": {code}, "error_description": {desc}})
}

// authorizeForm shows the consent page, signing in first: only then is the request checked,
// because a faulty request is redirected to the client's address, and anyone may register a
// client, so before sign-in that redirect would take anyone anywhere (RFC 9700 §4.11.2).
func (w *Web) authorizeForm(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	r, ok, err := w.checkAuthRequest(e, e.Request.URL.Query())
	if !ok {
		return err
	}
	// The decision is a form posted here that answers with a redirect to the app, and
	// browsers hold redirects of a form submission to form-action too.
	e.Response.Header().Set("Content-Security-Policy", strings.Replace(contentSecurityPolicy, "form-action 'self'", "form-action 'self' "+cspSource(r.redirect), 1))
	v := views.ConsentView{ClientName: r.client.Name, RedirectTo: r.redirect.Host, Params: map[string]string{},
		WholeServer: r.resource == w.Config.BaseURL, ReadOnly: auth.ReadOnlyScope(auth.GrantedScope(r.params.Get("scope")))}
	if s := r.redirect.Scheme; s != "http" && s != "https" {
		v.RedirectTo = s + "://" + r.redirect.Host // an app's own scheme: name the app, not just a host
	}
	if auth.IsMetadataClientID(r.client.ClientID) {
		if u, err := url.Parse(r.client.ClientID); err == nil {
			v.DescribedAt = u.Host
		}
	}
	if v.ClientName == "" {
		v.ClientName = "An unnamed app"
	}
	for _, k := range authParams {
		if val := r.params.Get(k); val != "" {
			v.Params[k] = val
			v.Keys = append(v.Keys, k)
		}
	}
	sort.Strings(v.Keys)
	return render(e, http.StatusOK, views.ConsentPage(page(e, "Connect an app"), v))
}

// authorizeDecision takes the user's approval or denial (CSRF-checked by the middleware).
func (w *Web) authorizeDecision(e *core.RequestEvent) error {
	if err := e.Request.ParseForm(); err != nil {
		return w.errorPage(e, http.StatusBadRequest, "Bad request", "The form could not be read.")
	}
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	r, ok, err := w.checkAuthRequest(e, e.Request.PostForm)
	if !ok {
		return err
	}
	if e.Request.PostForm.Get("decision") != "approve" {
		return w.redirectError(e, r, "access_denied", "the user denied the request")
	}
	code, err := w.OAuth.IssueCode(r.client.ClientID, u.Id, r.params.Get("redirect_uri"), r.params.Get("code_challenge"), r.resource, r.params.Get("scope"))
	if err != nil {
		return err
	}
	return w.sendBack(e, r, url.Values{"code": {code}})
}

// revokeApp disconnects an app: every token the user granted it dies at once.
func (w *Web) revokeApp(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	clientID := e.Request.PathValue("clientId")
	connected, err := w.OAuth.ConnectedApps(u.Id)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(connected, func(a auth.ConnectedApp) bool { return a.ClientID == clientID }) {
		return w.errorPage(e, http.StatusNotFound, "App not connected",
			"That app is not connected to your account, so there was nothing to disconnect. It may have been disconnected already.")
	}
	if err := w.OAuth.RevokeApp(u.Id, clientID); err != nil {
		return err
	}
	// Post/Redirect/Get: the list says what happened, and reloading it sends nothing.
	return e.Redirect(http.StatusSeeOther, "/settings/apps?disconnected="+url.QueryEscape(clientID))
}

// cspSource is the CSP source expression of a redirect URI: its origin, or its scheme for an
// app's own scheme or an IPv6 host (which CSP host sources cannot name).
func cspSource(u *url.URL) string {
	if (u.Scheme == "http" || u.Scheme == "https") && !strings.Contains(u.Host, "[") {
		return u.Scheme + "://" + u.Host
	}
	return u.Scheme + ":"
}
