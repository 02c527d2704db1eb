package web_test

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/loreweave/loreweave/app/apptest"
)

func doc(t *testing.T, res *apptest.Response) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(bytes.NewReader(res.Body))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSignupLoginLogout(t *testing.T) {
	s := apptest.Start(t)
	b := s.Browser()

	// Signed out, the home page sends you to sign in.
	res := s.Do(apptest.Request{Method: "GET", Path: "/", Client: b})
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Fatalf("home signed out: %d %s", res.Status, res.Header.Get("Location"))
	}

	token := s.CSRFToken(b, "/signup")
	res = s.PostForm(b, "/signup", url.Values{"csrf": {token}, "name": {"Ann <b>Author</b>"}, "email": {"ann@example.test"}, "password": {"short"}})
	if res.Status != http.StatusUnprocessableEntity || doc(t, res).Find(`[data-testid="error"]`).Length() != 1 {
		t.Fatalf("short password: %d", res.Status)
	}
	res = s.PostForm(b, "/signup", url.Values{"csrf": {token}, "name": {"Ann <b>Author</b>"}, "email": {"ann@example.test"}, "password": {"long enough pw"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("signup: %d %s", res.Status, res.Body)
	}
	var session *http.Cookie
	for _, c := range res.Header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "lw_session=") {
			if !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Lax") {
				t.Fatalf("session cookie flags: %s", c)
			}
			session = &http.Cookie{}
		}
	}
	if session == nil {
		t.Fatal("no session cookie")
	}

	res = s.Do(apptest.Request{Method: "GET", Path: "/", Client: b})
	d := doc(t, res)
	if res.Status != 200 || d.Find(`[data-testid="signed-in-as"]`).Text() != "Ann <b>Author</b>" {
		t.Fatalf("home: %d %q", res.Status, d.Find(`[data-testid="signed-in-as"]`).Text())
	}
	if strings.Contains(string(res.Body), "<b>Author</b>") {
		t.Fatal("name was not escaped")
	}
	// Same email again is refused.
	b2 := s.Browser()
	res = s.PostForm(b2, "/signup", url.Values{"csrf": {s.CSRFToken(b2, "/signup")}, "email": {"ANN@example.test"}, "password": {"long enough pw"}})
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("duplicate signup: %d", res.Status)
	}

	// Sign out, then in again.
	res = s.PostForm(b, "/logout", url.Values{"csrf": {s.CSRFToken(b, "/")}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("logout: %d", res.Status)
	}
	if res := s.Do(apptest.Request{Method: "GET", Path: "/", Client: b}); res.Status != http.StatusSeeOther {
		t.Fatalf("still signed in after logout: %d", res.Status)
	}
	token = s.CSRFToken(b, "/login")
	res = s.PostForm(b, "/login", url.Values{"csrf": {token}, "email": {"ann@example.test"}, "password": {"wrong password"}})
	if res.Status != http.StatusUnauthorized || doc(t, res).Find(`[data-testid="error"]`).Length() != 1 {
		t.Fatalf("bad password: %d", res.Status)
	}
	res = s.PostForm(b, "/login", url.Values{"csrf": {token}, "email": {"ann@example.test"}, "password": {"long enough pw"}, "next": {"//evil.example/x"}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("login redirect: %d %q", res.Status, res.Header.Get("Location"))
	}
}

func TestFormsNeedCSRF(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	b := s.SignIn(ann)
	for name, req := range map[string]struct {
		form   url.Values
		header http.Header
	}{
		"no token":          {url.Values{"name": {"x"}}, http.Header{"Sec-Fetch-Site": {"same-origin"}}},
		"wrong token":       {url.Values{"name": {"x"}, "csrf": {strings.Repeat("a", 43)}}, http.Header{"Sec-Fetch-Site": {"same-origin"}}},
		"cross-site origin": {url.Values{"name": {"x"}, "csrf": {s.CSRFToken(b, "/")}}, http.Header{"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}}},
	} {
		t.Run(name, func(t *testing.T) {
			h := req.header
			h.Set("Content-Type", "application/x-www-form-urlencoded")
			res := s.Do(apptest.Request{Method: "POST", Path: "/worlds", Body: req.form.Encode(), Header: h, Client: b})
			if res.Status != http.StatusForbidden {
				t.Fatalf("got %d", res.Status)
			}
		})
	}
	if n := s.Count("worlds", ""); n != 0 {
		t.Fatalf("a forged form created %d worlds", n)
	}
}

func TestWorldsPage(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	b := s.SignIn(ann)
	d := doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: "/", Client: b}), 200))
	if d.Find(`[data-testid="no-worlds"]`).Length() != 1 {
		t.Fatal("empty state missing")
	}
	res := s.PostForm(b, "/worlds", url.Values{"csrf": {s.CSRFToken(b, "/")}, "name": {"Eldoria"}, "genre": {"fantasy"}})
	worldPath := res.Header.Get("Location")
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(worldPath, "/w/eldoria-") {
		t.Fatalf("create world: %d %s", res.Status, res.Header.Get("Location"))
	}
	d = doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: "/", Client: b}), 200))
	if d.Find(`[data-testid="world"]`).Length() != 1 || !strings.Contains(d.Find(`[data-testid="world"]`).Text(), "Eldoria") {
		t.Fatal("world not listed")
	}
	res = s.PostForm(b, "/worlds", url.Values{"csrf": {s.CSRFToken(b, "/")}, "name": {"  "}})
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("blank name: %d", res.Status)
	}
	d = doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: worldPath, Client: b}), 200))
	if d.Find(`[data-testid="world-name"]`).Text() != "Eldoria" {
		t.Fatal("world page")
	}
	// Another user gets 404 for it.
	bob := s.NewUser("Bob")
	if res := s.Do(apptest.Request{Method: "GET", Path: worldPath, Client: s.SignIn(bob)}); res.Status != 404 {
		t.Fatalf("non-member world page: %d", res.Status)
	}
}

func TestAPIKeysPage(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	b := s.SignIn(ann)

	res := s.PostForm(b, "/settings/api-keys", url.Values{"csrf": {s.CSRFToken(b, "/settings/api-keys")}, "name": {"import script"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("create: %d", res.Status)
	}
	d := doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: res.Header.Get("Location"), Client: b}), 200))
	secret := strings.TrimSpace(d.Find(`[data-testid="new-key-secret"]`).Text())
	if !strings.HasPrefix(secret, "lw_live_") {
		t.Fatalf("secret %q", secret)
	}
	// The key works at once and acts as Ann.
	var me struct{ ID string }
	s.Must(s.Get(secret, "/api/v1/me"), 200).JSON(t, &me)
	if me.ID != ann.ID {
		t.Fatalf("key acts as %s", me.ID)
	}
	// The list shows it (name, prefix, created, last used) but never the secret again.
	res = s.Must(s.Do(apptest.Request{Method: "GET", Path: "/settings/api-keys", Client: b}), 200)
	if strings.Contains(string(res.Body), secret) {
		t.Fatal("secret shown twice")
	}
	d = doc(t, res)
	var row *goquery.Selection
	d.Find(`[data-testid="key"]`).Each(func(_ int, sel *goquery.Selection) {
		if strings.Contains(sel.Text(), "import script") {
			row = sel
		}
	})
	if row == nil || !strings.Contains(row.Text(), secret[:14]) || strings.Contains(row.Text(), "never") {
		t.Fatalf("key row: %v", row)
	}
	id, _ := row.Attr("data-key-id")

	// Revoke: the key stops working at once.
	res = s.PostForm(b, "/settings/api-keys/"+id+"/revoke", url.Values{"csrf": {s.CSRFToken(b, "/settings/api-keys")}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", res.Status)
	}
	if res := s.Get(secret, "/api/v1/me"); res.Status != 401 {
		t.Fatalf("revoked key: %d", res.Status)
	}
	// Bob cannot revoke Ann's keys.
	bob := s.NewUser("Bob")
	bb := s.SignIn(bob)
	res = s.PostForm(bb, "/settings/api-keys/"+ann.KeyID+"/revoke", url.Values{"csrf": {s.CSRFToken(bb, "/settings/api-keys")}})
	if res.Status != 404 {
		t.Fatalf("bob revoking: %d", res.Status)
	}
	s.Must(s.Get(ann.Key, "/api/v1/me"), 200)
}

func TestStaticAssets(t *testing.T) {
	s := apptest.Start(t)
	res := s.Do(apptest.Request{Method: "GET", Path: "/static/vendor/htmx/htmx.min.js?v=1"})
	if res.Status != 200 || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") || len(res.Body) < 10000 {
		t.Fatalf("htmx: %d %s", res.Status, res.Header.Get("Cache-Control"))
	}
	if res := s.Do(apptest.Request{Method: "GET", Path: "/static/nope.js"}); res.Status != 404 {
		t.Fatalf("missing asset: %d", res.Status)
	}
	// Pages carry a strict CSP with no inline scripts.
	res = s.Do(apptest.Request{Method: "GET", Path: "/login"})
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Fatalf("csp %q", csp)
	}
	d := doc(t, res)
	d.Find("script").Each(func(_ int, sel *goquery.Selection) {
		if src, _ := sel.Attr("src"); src == "" {
			t.Fatal("inline script")
		}
	})
}

// ?next= leads only to paths on this site, whatever a browser would make of it: it drops tabs
// and newlines and reads a backslash as a slash.
func TestNextStaysOnTheSite(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	b := s.SignIn(ann)
	for next, want := range map[string]string{
		"/w/eldoria?era=x":       "/w/eldoria?era=x",
		"/\t/evil.example":       "/",
		"/\n/evil.example":       "/",
		"/\\evil.example":        "/",
		"\\\\evil.example":       "/",
		"//evil.example":         "/",
		"https://evil.example/x": "/",
		"/%09/evil.example":      "/%09/evil.example", // an escaped tab stays escaped: a path here
		"javascript:alert(1)":    "/",
	} {
		res := s.Do(apptest.Request{Method: "GET", Path: "/login?next=" + url.QueryEscape(next), Client: b})
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != want {
			t.Errorf("next %q: %d %q, want %q", next, res.Status, res.Header.Get("Location"), want)
		}
	}
}
