package mcp_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/loreweave/loreweave/app/apptest"
)

// Native apps: a loopback redirect matches on any port (RFC 8252 §7.3), and an app's own
// scheme may be registered (§7.1, as Cursor does), but never one a browser would run.
func TestNativeAppRedirects(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	register := func(uris ...string) (int, string) {
		res := s.Do(apptest.Request{Method: "POST", Path: "/oauth/register", Body: map[string]any{"redirect_uris": uris, "client_name": "Native"}})
		var reg struct {
			ClientID string `json:"client_id"`
		}
		if res.Status == 201 {
			res.JSON(t, &reg)
		}
		return res.Status, reg.ClientID
	}
	for _, bad := range []string{"javascript:alert(1)", "data:text/html,hi", "http://example.com/callback", "file:///etc/passwd", "https://example.com/cb#frag"} {
		if status, _ := register(bad); status != 400 {
			t.Errorf("register %q: %d, want 400", bad, status)
		}
	}
	status, client := register("cursor://anysphere.cursor-mcp/oauth/callback", "http://127.0.0.1/callback")
	if status != 201 {
		t.Fatalf("register cursor:// and loopback: %d", status)
	}

	f := &flow{t: t, s: s, browser: s.SignIn(ann), clientID: client, verifier: strings.Repeat("v", 50)}
	authURL := func(redirect string, extra url.Values) string {
		q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect},
			"code_challenge": {challenge(f.verifier)}, "code_challenge_method": {"S256"}, "state": {"s"}}
		for k, v := range extra {
			q[k] = v
		}
		return s.URL + "/oauth/authorize?" + q.Encode()
	}
	consent := func(u string) *goquery.Document {
		res, err := f.browser.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("consent page for %s: %d", u, res.StatusCode)
		}
		d, err := goquery.NewDocumentFromReader(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}

	// Loopback on the port the app happens to listen on today.
	onPort := "http://127.0.0.1:54321/callback"
	loc := approve(t, s, f.browser, authURL(onPort, nil), "approve")
	if loc.Host != "127.0.0.1:54321" || loc.Query().Get("code") == "" {
		t.Fatalf("loopback redirect on another port: %s", loc)
	}
	if status, tr := f.token(url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")}, "redirect_uri": {onPort}, "code_verifier": {f.verifier}}); status != 200 || tr.AccessToken == "" {
		t.Fatalf("exchange for the loopback port: %d %+v", status, tr)
	}
	// Another path on loopback is still refused.
	res, err := f.browser.Get(authURL("http://127.0.0.1:54321/elsewhere", nil))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("unregistered loopback path: %d", res.StatusCode)
	}

	// The app's own scheme: the page names it, and the code goes there.
	cursor := "cursor://anysphere.cursor-mcp/oauth/callback"
	if got := consent(authURL(cursor, nil)).Find(`[data-testid="redirect-host"]`).Text(); got != "cursor://anysphere.cursor-mcp" {
		t.Fatalf("consent page names %q", got)
	}
	loc = approve(t, s, f.browser, authURL(cursor, nil), "approve")
	if loc.Scheme != "cursor" || loc.Query().Get("code") == "" {
		t.Fatalf("redirect to the app's scheme: %s", loc)
	}

	// A token for the whole server says so on the consent page; one for the MCP endpoint not.
	if consent(authURL(cursor, url.Values{"resource": {s.URL}})).Find(`[data-testid="whole-server"]`).Length() != 1 {
		t.Fatal("consent for the whole server does not say it covers the REST API")
	}
	if consent(authURL(cursor, url.Values{"resource": {s.URL + "/api/mcp"}})).Find(`[data-testid="whole-server"]`).Length() != 0 {
		t.Fatal("consent for the MCP endpoint speaks of the whole server")
	}
}

// Before sign-in, a faulty authorization request is not redirected to the client: anyone may
// register a client, so that would make this server a redirector to anywhere. After sign-in,
// a request for a response type other than code is not redirected either.
func TestNoRedirectBeforeSignIn(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	res := s.Do(apptest.Request{Method: "POST", Path: "/oauth/register", Body: map[string]any{"redirect_uris": []string{"https://evil.example/phish"}}})
	var reg struct {
		ClientID string `json:"client_id"`
	}
	s.Must(res, http.StatusCreated).JSON(t, &reg)
	bad := "/oauth/authorize?" + url.Values{"client_id": {reg.ClientID}, "redirect_uri": {"https://evil.example/phish"}, "response_type": {"token"}}.Encode()

	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	out := s.Do(apptest.Request{Method: "GET", Path: bad, Client: noRedirect})
	if loc := out.Header.Get("Location"); strings.HasPrefix(loc, "https://evil.example") || !strings.HasPrefix(loc, "/login") {
		t.Fatalf("signed out: %d to %q, want the sign-in page", out.Status, loc)
	}
	// Signed in, a response type other than code is not redirected either (RFC 9700
	// §4.11.2): the user sees an error page, and the client's address is never visited.
	browser := s.SignIn(ann)
	browser.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	in := s.Do(apptest.Request{Method: "GET", Path: bad, Client: browser})
	if loc := in.Header.Get("Location"); in.Status != http.StatusBadRequest || loc != "" || !strings.Contains(string(in.Body), "response_type=code") {
		t.Fatalf("signed in: %d to %q: %s", in.Status, loc, in.Body)
	}
}
