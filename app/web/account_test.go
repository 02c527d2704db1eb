package web_test

import (
	"net/http"
	"net/url"
	"testing"

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
	st.Close()

	s.Must(s.PostForm(b, "/logout", url.Values{"csrf": {s.CSRFToken(b, "/")}}), http.StatusSeeOther)

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
