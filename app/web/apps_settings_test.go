package web_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// connectApp registers an OAuth client named name and lets u authorise it, as the consent
// page and the token endpoint would; it returns the client id and the app's access token.
func connectApp(t *testing.T, s *apptest.Server, u apptest.User, name string) (string, string) {
	t.Helper()
	const redirect = "http://127.0.0.1:9/callback"
	c, err := s.LW.OAuth.RegisterClient(name, []string{redirect})
	if err != nil {
		t.Fatal(err)
	}
	verifier := strings.Repeat("v", 50)
	sum := sha256.Sum256([]byte(verifier))
	resource, err := s.LW.OAuth.CheckResource("")
	if err != nil {
		t.Fatal(err)
	}
	code, err := s.LW.OAuth.IssueCode(c.ClientID, u.ID, redirect, base64.RawURLEncoding.EncodeToString(sum[:]), resource, "")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.LW.OAuth.ExchangeCode(c.ClientID, code, redirect, verifier, "")
	if err != nil {
		t.Fatal(err)
	}
	return c.ClientID, tok.AccessToken
}

// Disconnecting an app answers with a redirect to the list (Post/Redirect/Get), which names
// the app; an app that is not connected is not reported disconnected.
func TestDisconnectAppRedirectsToTheList(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	b := s.SignIn(ann)
	desk, token := connectApp(t, s, ann, "Desk app")
	other, _ := connectApp(t, s, ann, "Other app")
	resource, _ := s.LW.OAuth.CheckResource("")

	res := s.PostForm(b, "/settings/apps/"+desk+"/revoke", url.Values{"csrf": {s.CSRFToken(b, "/settings/apps")}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/settings/apps?disconnected="+desk {
		t.Fatalf("disconnect: %d %q", res.Status, res.Header.Get("Location"))
	}
	if _, _, err := s.LW.OAuth.VerifyAccess(token, resource); err == nil {
		t.Fatal("the disconnected app's token still works")
	}
	d := doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: res.Header.Get("Location"), Client: b}), http.StatusOK))
	if n := d.Find(`[data-testid="notice"]`).Text(); !strings.Contains(n, "“Desk app” is disconnected") {
		t.Fatalf("notice after disconnecting: %q", n)
	}
	if rows := d.Find(`[data-testid="app"]`); rows.Length() != 1 || !strings.Contains(rows.Text(), "Other app") {
		t.Fatalf("apps left: %q", rows.Text())
	}

	// The list claims nothing for an app that is still connected, or unknown.
	for _, id := range []string{other, "lwc_nothing"} {
		d := doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: "/settings/apps?disconnected=" + id, Client: b}), http.StatusOK))
		if d.Find(`[data-testid="notice"]`).Length() != 0 {
			t.Fatalf("?disconnected=%s shows %q", id, d.Find(`[data-testid="notice"]`).Text())
		}
	}

	// Disconnecting an app that is not connected (again, or never) says so.
	for _, id := range []string{desk, "lwc_nothing"} {
		res := s.PostForm(b, "/settings/apps/"+id+"/revoke", url.Values{"csrf": {s.CSRFToken(b, "/settings/apps")}})
		d := doc(t, res)
		if res.Status != http.StatusNotFound || d.Find(`[data-testid="error-page"]`).Length() != 1 || strings.Contains(string(res.Body), "is disconnected") {
			t.Fatalf("disconnecting %s that is not connected: %d %s", id, res.Status, res.Body)
		}
	}
	// Bob cannot disconnect Ann's app.
	bob := s.NewUser("Bob")
	bb := s.SignIn(bob)
	if res := s.PostForm(bb, "/settings/apps/"+other+"/revoke", url.Values{"csrf": {s.CSRFToken(bb, "/settings/apps")}}); res.Status != http.StatusNotFound {
		t.Fatalf("Bob disconnecting Ann's app: %d", res.Status)
	}
	if apps, _ := s.LW.OAuth.ConnectedApps(ann.ID); len(apps) != 1 {
		t.Fatalf("Ann's apps after Bob tried: %v", apps)
	}
}
