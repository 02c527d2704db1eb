package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// An address no route knows gets the app's own 404 page; PocketBase's API and dashboard keep
// their answers.
func TestUnknownAddressesGetThePageNotFound(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	b := s.SignIn(ann)

	for _, path := range []string{"/nothing-here", "/w/eldoria/d/x/y/z", "/settings", "/oauth/nothing"} {
		res := s.Do(apptest.Request{Method: "GET", Path: path, Client: b})
		if res.Status != http.StatusNotFound || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("GET %s: %d %s", path, res.Status, res.Header.Get("Content-Type"))
		}
		if !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'self'") {
			t.Fatalf("GET %s: no CSP", path)
		}
		d := doc(t, res)
		if d.Find(`[data-testid="error-page"] h1`).Text() != "Page not found" || d.Find(`[data-testid="signed-in-as"]`).Text() != "Ann" {
			t.Fatalf("GET %s: %s", path, res.Body)
		}
	}
	if res := s.Do(apptest.Request{Method: "HEAD", Path: "/nothing-here"}); res.Status != http.StatusNotFound || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("HEAD: %d %s", res.Status, res.Header.Get("Content-Type"))
	}

	// PocketBase's own API answers its JSON, whatever the method (no CSRF check on the way).
	for _, r := range []struct{ method, path string }{
		{"GET", "/api/nothing"}, {"POST", "/api/nothing"}, {"DELETE", "/api/health"}, {"POST", "/nothing-here"},
	} {
		res := s.Do(apptest.Request{Method: r.method, Path: r.path, Client: b})
		if res.Status != http.StatusNotFound || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") ||
			!strings.Contains(string(res.Body), `"status":404`) {
			t.Fatalf("%s %s: %d %s %s", r.method, r.path, res.Status, res.Header.Get("Content-Type"), res.Body)
		}
	}
	// The REST API keeps its error object, and the dashboard its pages.
	if res := s.Get(ann.Key, "/api/v1/nothing"); res.Status != http.StatusNotFound || res.ErrorCode() != "not_found" {
		t.Fatalf("/api/v1/nothing: %d %s", res.Status, res.Body)
	}
	if res := s.Do(apptest.Request{Method: "GET", Path: "/_/"}); res.Status != http.StatusOK || !strings.Contains(string(res.Body), "<html") {
		t.Fatalf("/_/: %d", res.Status)
	}
	if res := s.Do(apptest.Request{Method: "GET", Path: "/api/health"}); res.Status != http.StatusOK {
		t.Fatalf("/api/health: %d", res.Status)
	}
}
