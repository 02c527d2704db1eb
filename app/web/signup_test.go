package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestSignupClosed: with sign-up closed, /signup says so (404) and creates nothing, no page
// links to it, and accounts the operator creates (as `loreweave users create` does) sign in.
func TestSignupClosed(t *testing.T) {
	open := apptest.Start(t)
	if n := doc(t, open.Do(apptest.Request{Method: "GET", Path: "/login"})).Find(`a[href="/signup"]`).Length(); n != 2 {
		t.Fatalf("open: the sign-in page links to /signup %d times, want 2 (menu and form)", n)
	}

	s := apptest.Start(t, apptest.WithSignup("closed"))
	b := s.Browser()
	res := s.Do(apptest.Request{Method: "GET", Path: "/signup", Client: b})
	if res.Status != http.StatusNotFound {
		t.Fatalf("GET /signup: %d", res.Status)
	}
	if d := doc(t, res); d.Find(`[data-testid="error-page"]`).Length() != 1 || d.Find("h1").Text() != "Sign-up is closed" {
		t.Fatalf("GET /signup page: %s", res.Body)
	}
	res = s.PostForm(b, "/signup", url.Values{"csrf": {s.CSRFToken(b, "/login")}, "email": {"eve@example.test"}, "password": {"long enough pw"}})
	if res.Status != http.StatusNotFound || s.Count("users", "") != 0 {
		t.Fatalf("POST /signup: %d, %d users", res.Status, s.Count("users", ""))
	}

	login := doc(t, s.Do(apptest.Request{Method: "GET", Path: "/login"}))
	if n := login.Find(`a[href="/signup"]`).Length(); n != 0 {
		t.Fatalf("closed: the sign-in page links to /signup %d times", n)
	}
	if login.Find(`[data-testid="signup-closed"]`).Length() != 1 {
		t.Fatal("closed: the sign-in page does not say how to get an account")
	}

	ann := s.NewUser("Ann")
	res = s.Do(apptest.Request{Method: "GET", Path: "/", Client: s.SignIn(ann)})
	if res.Status != http.StatusOK || doc(t, res).Find(`a[href="/signup"]`).Length() != 0 {
		t.Fatalf("signed in: %d", res.Status)
	}
}
