package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/loreweave/loreweave/app/apptest"
)

// sessionCookie returns the session cookie the browser holds for the server.
func sessionCookie(t *testing.T, s *apptest.Server, b *http.Client) *http.Cookie {
	t.Helper()
	u, _ := url.Parse(s.URL)
	for _, c := range b.Jar.Cookies(u) {
		if c.Name == "lw_session" {
			return c
		}
	}
	t.Fatal("no session cookie")
	return nil
}

// browserWith returns a fresh browser holding only the given cookie (a copied session).
func browserWith(s *apptest.Server, c *http.Cookie) *http.Client {
	b := s.Browser()
	u, _ := url.Parse(s.URL)
	b.Jar.SetCookies(u, []*http.Cookie{{Name: c.Name, Value: c.Value, Path: "/"}})
	return b
}

func TestSignOutEndsTheSessionOnTheServer(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	worldID := s.World(ann, "Eldoria")
	b := s.SignIn(ann)
	other := s.SignIn(ann) // the same account signed in on another device
	copied := browserWith(s, sessionCookie(t, s, b))
	token := sessionCookie(t, s, b).Value

	// Before signing out the copy works like the original.
	s.Must(s.Do(apptest.Request{Method: "GET", Path: "/", Client: copied}), http.StatusOK)
	st := s.StreamRequest("/api/v1/worlds/"+worldID+"/events", nil, copied)
	if st.Status != http.StatusOK {
		t.Fatalf("stream before sign-out: %d", st.Status)
	}
	kept := s.StreamRequest("/api/v1/worlds/"+worldID+"/events", nil, other)
	if kept.Status != http.StatusOK {
		t.Fatalf("the other device's stream: %d", kept.Status)
	}

	s.Must(s.PostForm(b, "/logout", url.Values{"csrf": {s.CSRFToken(b, "/")}}), http.StatusSeeOther)
	// The signed-out session's open stream ends; the other device's stays.
	if err := st.Closed(2 * time.Second); err != nil {
		t.Fatalf("the signed-out session's stream: %v", err)
	}
	if err := kept.Closed(500 * time.Millisecond); err == nil {
		t.Fatal("signing out one device ended the other device's stream")
	}

	// The copied cookie no longer signs anyone in: pages, the API, event streams.
	if res := s.Do(apptest.Request{Method: "GET", Path: "/", Client: copied}); res.Status != http.StatusSeeOther {
		t.Fatalf("home with a signed-out session: %d", res.Status)
	}
	if res := s.Do(apptest.Request{Method: "GET", Path: "/settings/api-keys", Client: copied}); res.Status != http.StatusSeeOther {
		t.Fatalf("settings with a signed-out session: %d", res.Status)
	}
	if res := s.Do(apptest.Request{Method: "GET", Path: "/api/v1/me", Client: copied}); res.Status != http.StatusUnauthorized {
		t.Fatalf("/api/v1/me with a signed-out session: %d", res.Status)
	}
	if st := s.StreamRequest("/api/v1/worlds/"+worldID+"/events", nil, copied); st.Status != http.StatusUnauthorized {
		t.Fatalf("stream reconnect with a signed-out session: %d", st.Status)
	}
	// Nor can the token be swapped for a fresh one through PocketBase's own API.
	res := s.Do(apptest.Request{Method: "POST", Path: "/api/collections/users/auth-refresh", Header: http.Header{"Authorization": {token}}})
	if res.Status != http.StatusUnauthorized {
		t.Fatalf("auth-refresh with a signed-out token: %d %s", res.Status, res.Body)
	}

	// Only that session ended: the other device is still signed in.
	s.Must(s.Do(apptest.Request{Method: "GET", Path: "/", Client: other}), http.StatusOK)
	s.Must(s.Do(apptest.Request{Method: "GET", Path: "/api/v1/me", Client: other}), http.StatusOK)

	// It stays ended after a restart.
	s.Stop()
	s2 := apptest.StartIn(t, s.Dir)
	copied2 := browserWith(s2, &http.Cookie{Name: "lw_session", Value: token})
	if res := s2.Do(apptest.Request{Method: "GET", Path: "/", Client: copied2}); res.Status != http.StatusSeeOther {
		t.Fatalf("signed-out session after a restart: %d", res.Status)
	}
}

// keyRow finds the row of the named key in the API keys list.
func keyRow(d *goquery.Document, name string) *goquery.Selection {
	var row *goquery.Selection
	d.Find(`[data-testid="key"]`).Each(func(_ int, sel *goquery.Selection) {
		if strings.Contains(sel.Text(), name) {
			row = sel
		}
	})
	return row
}

// Creating and revoking keys answer with a redirect to the list (Post/Redirect/Get): a reload
// re-sends nothing. The new key's secret is shown once, on the page the browser lands on.
func TestAPIKeyFormsRedirectToTheList(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	b := s.SignIn(ann)
	keysOfAnn := func() int { return s.Count("api_keys", "user = '"+ann.ID+"'") }

	res := s.PostForm(b, "/settings/api-keys", url.Values{"csrf": {s.CSRFToken(b, "/settings/api-keys")}, "name": {"import script"}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/settings/api-keys" {
		t.Fatalf("create: %d %q", res.Status, res.Header.Get("Location"))
	}
	if strings.Contains(string(res.Body), "lw_live_") {
		t.Fatal("the redirect carries the secret")
	}
	res = s.Must(s.Do(apptest.Request{Method: "GET", Path: "/settings/api-keys", Client: b}), http.StatusOK)
	if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("the page with the secret may be stored: Cache-Control %q", cc)
	}
	d := doc(t, res)
	secret := strings.TrimSpace(d.Find(`[data-testid="new-key-secret"]`).Text())
	if !strings.HasPrefix(secret, "lw_live_") || !strings.Contains(d.Find(`[data-testid="new-key"]`).Text(), "import script") {
		t.Fatalf("new key shown: %q", d.Find(`[data-testid="new-key"]`).Text())
	}
	s.Must(s.Get(secret, "/api/v1/me"), http.StatusOK)
	// A reload shows the list, without the secret, and creates nothing.
	res = s.Must(s.Do(apptest.Request{Method: "GET", Path: "/settings/api-keys", Client: b}), http.StatusOK)
	if strings.Contains(string(res.Body), secret) || doc(t, res).Find(`[data-testid="new-key"]`).Length() != 0 {
		t.Fatal("the secret is shown twice")
	}
	if n := keysOfAnn(); n != 2 {
		t.Fatalf("Ann has %d keys, want 2", n)
	}
	// Another browser of Ann's never sees it.
	other := s.SignIn(ann)
	res = s.PostForm(b, "/settings/api-keys", url.Values{"csrf": {s.CSRFToken(b, "/settings/api-keys")}, "name": {"second"}})
	s.Must(res, http.StatusSeeOther)
	if d := doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: "/settings/api-keys", Client: other}), http.StatusOK)); d.Find(`[data-testid="new-key"]`).Length() != 0 {
		t.Fatal("another browser was shown the new key")
	}

	// Revoking redirects to the list, which says which key was revoked.
	row := keyRow(doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: "/settings/api-keys", Client: b}), http.StatusOK)), "import script")
	id, _ := row.Attr("data-key-id")
	res = s.PostForm(b, "/settings/api-keys/"+id+"/revoke", url.Values{"csrf": {s.CSRFToken(b, "/settings/api-keys")}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/settings/api-keys?revoked="+id {
		t.Fatalf("revoke: %d %q", res.Status, res.Header.Get("Location"))
	}
	if res := s.Get(secret, "/api/v1/me"); res.Status != http.StatusUnauthorized {
		t.Fatalf("revoked key: %d", res.Status)
	}
	d = doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: res.Header.Get("Location"), Client: b}), http.StatusOK))
	if n := d.Find(`[data-testid="notice"]`).Text(); !strings.Contains(n, "“import script” is revoked") {
		t.Fatalf("notice after revoking: %q", n)
	}
	if keyRow(d, "import script").Find(`[data-testid="revoked"]`).Length() != 1 {
		t.Fatal("the list does not show the key revoked")
	}
	// The list claims nothing for a key that is not revoked, or not Ann's.
	bob := s.NewUser("Bob")
	if err := s.LW.Keys.Revoke(bob.ID, bob.KeyID); err != nil {
		t.Fatal(err)
	}
	for _, keyID := range []string{ann.KeyID, bob.KeyID, "nothing"} {
		d := doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: "/settings/api-keys?revoked=" + keyID, Client: b}), http.StatusOK))
		if d.Find(`[data-testid="notice"]`).Length() != 0 {
			t.Fatalf("?revoked=%s shows %q", keyID, d.Find(`[data-testid="notice"]`).Text())
		}
	}
	// A form sent again for a key already revoked says so.
	res = s.PostForm(b, "/settings/api-keys/"+id+"/revoke", url.Values{"csrf": {s.CSRFToken(b, "/settings/api-keys")}})
	if res.Status != http.StatusNotFound || doc(t, res).Find(`[data-testid="error"]`).Length() != 1 {
		t.Fatalf("revoking again: %d", res.Status)
	}
}

// If the secret of a new key cannot be handed over (its one minute passed), the page says so
// rather than showing nothing.
func TestNewKeySecretLostIsExplained(t *testing.T) {
	s := apptest.Start(t)
	b := s.SignIn(s.NewUser("Ann"))
	u, _ := url.Parse(s.URL + "/settings/api-keys")
	b.Jar.SetCookies(u, []*http.Cookie{{Name: "lw_new_key", Value: "gone", Path: "/settings/api-keys"}})
	d := doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: "/settings/api-keys", Client: b}), http.StatusOK))
	if !strings.Contains(d.Find(`[data-testid="error"]`).Text(), "can no longer be shown") {
		t.Fatalf("lost secret: %q", d.Find(`[data-testid="error"]`).Text())
	}
	d = doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: "/settings/api-keys", Client: b}), http.StatusOK))
	if d.Find(`[data-testid="error"]`).Length() != 0 {
		t.Fatal("the explanation is shown again")
	}
}
