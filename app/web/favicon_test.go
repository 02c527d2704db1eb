package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// Every page names its icon, served from /static/ like any asset; /favicon.ico, which
// browsers and other clients ask for anyway, answers the same icon.
func TestFavicon(t *testing.T) {
	s := apptest.Start(t)
	d := doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: "/login"}), http.StatusOK))
	href, ok := d.Find(`head link[rel="icon"]`).Attr("href")
	if !ok || !strings.HasPrefix(href, "/static/favicon.svg?v=") {
		t.Fatalf("icon link %q", href)
	}
	res := s.Must(s.Do(apptest.Request{Method: "GET", Path: href}), http.StatusOK)
	if res.Header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") ||
		!strings.Contains(string(res.Body), "<svg") {
		t.Fatalf("%s: %s %s", href, res.Header.Get("Content-Type"), res.Header.Get("Cache-Control"))
	}
	icon := s.Must(s.Do(apptest.Request{Method: "GET", Path: "/favicon.ico"}), http.StatusOK)
	if icon.Header.Get("Content-Type") != "image/svg+xml" || string(icon.Body) != string(res.Body) ||
		icon.Header.Get("Cache-Control") != "public, max-age=300" {
		t.Fatalf("/favicon.ico: %s %s", icon.Header.Get("Content-Type"), icon.Header.Get("Cache-Control"))
	}
}
