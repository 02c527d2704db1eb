package mcp_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/loreweave/loreweave/app/apptest"
)

const redirectURI = "http://127.0.0.1:53682/callback"

// approve plays the user in the browser: open the authorization URL signed in, and press
// Allow (or Deny) on the consent page. It returns the redirect the server answered with.
func approve(t *testing.T, s *apptest.Server, browser *http.Client, authURL string, decision string) *url.URL {
	t.Helper()
	res, err := browser.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("consent page: %d (Location %s)", res.StatusCode, res.Header.Get("Location"))
	}
	doc, err := goquery.NewDocumentFromReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"decision": {decision}}
	doc.Find(`[data-testid="consent-form"] input[type="hidden"]`).Each(func(_ int, sel *goquery.Selection) {
		name, _ := sel.Attr("name")
		value, _ := sel.Attr("value")
		form.Set(name, value)
	})
	post := s.PostForm(browser, "/oauth/authorize", form)
	if post.Status != http.StatusFound {
		t.Fatalf("consent decision: %d %s", post.Status, post.Body)
	}
	loc, err := url.Parse(post.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestOAuthWithTheSDKClient connects the go-sdk's own client with its OAuth handler: it
// discovers the server, registers, gets the user's consent, exchanges the code and calls
// tools, with no key and no special setup.
func TestOAuthWithTheSDKClient(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	browser := s.SignIn(ann)

	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirectURI}, ClientName: "Test Assistant", TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		RedirectURL: redirectURI,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			loc := approve(t, s, browser, args.URL, "approve")
			q := loc.Query()
			if q.Get("error") != "" {
				return nil, fmt.Errorf("authorization failed: %s", q.Get("error_description"))
			}
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "assistant", Version: "1"}, nil)
	session, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.URL + "/api/mcp", OAuthHandler: handler}, nil)
	if err != nil {
		t.Fatalf("connect with OAuth: %v", err)
	}
	defer session.Close()

	tools, err := session.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != len(strings.Fields(allTools)) {
		t.Fatalf("tools/list: %v %d", err, len(tools.Tools))
	}
	var me struct{ ID, Credential string }
	call(t, session, "whoami", nil, &me)
	if me.ID != ann.ID || me.Credential != "oauth" {
		t.Fatalf("whoami %+v", me)
	}
	var applied struct{ Version int }
	if call(t, session, "apply_content_ops", map[string]any{"worldId": w, "documentId": tl, "ops": []any{
		map[string]any{"op": "timeline.addEvent", "label": "Signed in by OAuth", "dateMs": 1},
	}}, &applied) || applied.Version != 1 {
		t.Fatalf("apply_content_ops %+v", applied)
	}
	var read struct{ Content struct{ Text string } }
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w+"/documents/"+tl), 200).JSON(t, &read)
	if read.Content.Text != "History Signed in by OAuth" {
		t.Fatalf("rest read %+v", read)
	}

	// The app shows under Settings → Connected apps; disconnecting it ends its access.
	res := s.Do(apptest.Request{Method: "GET", Path: "/settings/apps", Client: browser})
	d, _ := goquery.NewDocumentFromReader(bytes.NewReader(res.Body))
	row := d.Find(`[data-testid="app"]`)
	if row.Length() != 1 || !strings.Contains(row.Text(), "Test Assistant") {
		t.Fatalf("connected apps: %s", res.Body)
	}
	clientID, _ := row.Attr("data-client-id")
	s.PostForm(browser, "/settings/apps/"+clientID+"/revoke", url.Values{"csrf": {s.CSRFToken(browser, "/settings/apps")}})
	ts, _ := handler.TokenSource(ctx)
	tok, _ := ts.Token()
	if st := mcpStatus(t, s, tok.AccessToken); st != 401 {
		t.Fatalf("revoked app's token: %d", st)
	}
}

// mcpStatus sends an initialize request with a bearer token and returns the status.
func mcpStatus(t *testing.T, s *apptest.Server, token string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", s.URL+"/api/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// flow drives the authorization server by hand.
type flow struct {
	t        *testing.T
	s        *apptest.Server
	browser  *http.Client
	clientID string
	verifier string
}

func newFlow(t *testing.T, s *apptest.Server, u apptest.User) *flow {
	f := &flow{t: t, s: s, browser: s.SignIn(u), verifier: strings.Repeat("v", 20) + fmt.Sprint(time.Now().UnixNano()) + strings.Repeat("x", 30)}
	res := s.Do(apptest.Request{Method: "POST", Path: "/oauth/register", Body: map[string]any{"redirect_uris": []string{redirectURI}, "client_name": "Raw client"}})
	if res.Status != 201 {
		t.Fatalf("register: %d %s", res.Status, res.Body)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	res.JSON(t, &reg)
	f.clientID = reg.ClientID
	return f
}

func challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func (f *flow) authURL(extra url.Values) string {
	q := url.Values{"response_type": {"code"}, "client_id": {f.clientID}, "redirect_uri": {redirectURI},
		"code_challenge": {challenge(f.verifier)}, "code_challenge_method": {"S256"}, "state": {"st4te"}, "resource": {f.s.URL + "/api/mcp"}}
	for k, v := range extra {
		q[k] = v
	}
	return f.s.URL + "/oauth/authorize?" + q.Encode()
}

func (f *flow) code() string {
	loc := approve(f.t, f.s, f.browser, f.authURL(nil), "approve")
	if loc.Query().Get("state") != "st4te" || loc.Query().Get("iss") != f.s.URL || loc.Query().Get("code") == "" {
		f.t.Fatalf("redirect %s", loc)
	}
	return loc.Query().Get("code")
}

type tokenResp struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	Error        string `json:"error"`
}

func (f *flow) token(form url.Values) (int, tokenResp) {
	form.Set("client_id", f.clientID)
	res := f.s.Do(apptest.Request{Method: "POST", Path: "/oauth/token", Body: form.Encode(), Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}})
	var tr tokenResp
	_ = json.Unmarshal(res.Body, &tr)
	if res.Header.Get("Cache-Control") != "no-store" {
		f.t.Errorf("token response is cacheable")
	}
	return res.Status, tr
}

func (f *flow) exchange(code string, overrides url.Values) (int, tokenResp) {
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI}, "code_verifier": {f.verifier}, "resource": {f.s.URL + "/api/mcp"}}
	for k, v := range overrides {
		form[k] = v
	}
	return f.token(form)
}

func TestTokenEndpointRules(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	f := newFlow(t, s, ann)

	cases := []struct {
		name      string
		overrides url.Values
		code      string
	}{
		{"PKCE mismatch", url.Values{"code_verifier": {strings.Repeat("w", 50)}}, "invalid_grant"},
		{"redirect mismatch", url.Values{"redirect_uri": {"http://127.0.0.1:53682/other"}}, "invalid_grant"},
		{"wrong resource", url.Values{"resource": {"https://elsewhere.example/mcp"}}, "invalid_target"},
		{"no verifier", url.Values{"code_verifier": {""}}, "invalid_grant"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, tr := f.exchange(f.code(), tc.overrides)
			if status != 400 || tr.Error != tc.code || tr.AccessToken != "" {
				t.Fatalf("%d %+v", status, tr)
			}
		})
	}

	t.Run("expired code", func(t *testing.T) {
		code := f.code()
		if _, err := s.PB.DB().NewQuery("UPDATE oauth_codes SET expiresAt = '2000-01-01 00:00:00.000Z'").Execute(); err != nil {
			t.Fatal(err)
		}
		if status, tr := f.exchange(code, nil); status != 400 || tr.Error != "invalid_grant" {
			t.Fatalf("%d %+v", status, tr)
		}
	})

	t.Run("code is single use and reuse revokes its tokens", func(t *testing.T) {
		code := f.code()
		status, tr := f.exchange(code, nil)
		if status != 200 || tr.TokenType != "Bearer" || tr.ExpiresIn <= 0 || !strings.HasPrefix(tr.AccessToken, "lw_at_") || tr.RefreshToken == "" {
			t.Fatalf("exchange %d %+v", status, tr)
		}
		if st := mcpStatus(t, s, tr.AccessToken); st != 200 {
			t.Fatalf("fresh token: %d", st)
		}
		if status, again := f.exchange(code, nil); status != 400 || again.Error != "invalid_grant" {
			t.Fatalf("second exchange %d %+v", status, again)
		}
		if st := mcpStatus(t, s, tr.AccessToken); st != 401 {
			t.Fatalf("token of a replayed code still works: %d", st)
		}
	})

	t.Run("refresh rotates and reuse revokes the family", func(t *testing.T) {
		_, first := f.exchange(f.code(), nil)
		status, second := f.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {first.RefreshToken}})
		if status != 200 || second.RefreshToken == first.RefreshToken || second.AccessToken == first.AccessToken {
			t.Fatalf("refresh %d %+v", status, second)
		}
		if st := mcpStatus(t, s, second.AccessToken); st != 200 {
			t.Fatalf("rotated token: %d", st)
		}
		// The old refresh token again at once (a client refreshing for several calls in
		// parallel): a pair of its own, and the others keep working.
		status, sibling := f.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {first.RefreshToken}})
		if status != 200 || sibling.AccessToken == second.AccessToken || sibling.RefreshToken == second.RefreshToken {
			t.Fatalf("refresh again within the grace period: %d %+v", status, sibling)
		}
		for _, tok := range []string{second.AccessToken, sibling.AccessToken} {
			if st := mcpStatus(t, s, tok); st != 200 {
				t.Fatalf("a token of the grace period: %d", st)
			}
		}
		// The old refresh token again after the grace period: theft assumed, the whole family dies.
		if _, err := s.PB.DB().NewQuery("UPDATE oauth_tokens SET usedAt = '2000-01-01 00:00:00.000Z' WHERE usedAt != ''").Execute(); err != nil {
			t.Fatal(err)
		}
		if status, tr := f.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {first.RefreshToken}}); status != 400 || tr.Error != "invalid_grant" {
			t.Fatalf("reuse %d %+v", status, tr)
		}
		for _, tok := range []string{first.AccessToken, second.AccessToken, sibling.AccessToken} {
			if st := mcpStatus(t, s, tok); st != 401 {
				t.Fatalf("family token still works after reuse: %d", st)
			}
		}
		if status, _ := f.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {second.RefreshToken}}); status != 400 {
			t.Fatalf("newest refresh token survived reuse detection: %d", status)
		}
	})

	t.Run("revoke", func(t *testing.T) {
		_, tr := f.exchange(f.code(), nil)
		res := s.Do(apptest.Request{Method: "POST", Path: "/oauth/revoke", Body: url.Values{"token": {tr.AccessToken}, "client_id": {f.clientID}}.Encode(),
			Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}})
		if res.Status != 200 {
			t.Fatalf("revoke %d", res.Status)
		}
		if st := mcpStatus(t, s, tr.AccessToken); st != 401 {
			t.Fatalf("revoked token: %d", st)
		}
		// Its refresh token still works (only the access token was revoked).
		if status, _ := f.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tr.RefreshToken}}); status != 200 {
			t.Fatalf("refresh after access revoke: %d", status)
		}
	})

	t.Run("unsupported grant and unknown client", func(t *testing.T) {
		if status, tr := f.token(url.Values{"grant_type": {"password"}}); status != 400 || tr.Error != "unsupported_grant_type" {
			t.Fatalf("%d %+v", status, tr)
		}
		res := s.Do(apptest.Request{Method: "POST", Path: "/oauth/token", Body: "grant_type=authorization_code&client_id=nope", Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}})
		if res.Status != 401 || !strings.Contains(string(res.Body), "invalid_client") {
			t.Fatalf("unknown client %d %s", res.Status, res.Body)
		}
	})
}

func TestAuthorizeRules(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	f := newFlow(t, s, ann)

	// A token for another resource is refused by the MCP endpoint (and none is issued).
	loc := approveErr(t, f, url.Values{"resource": {"https://elsewhere.example/mcp"}})
	if loc.Query().Get("error") != "invalid_target" || loc.Query().Get("state") != "st4te" {
		t.Fatalf("foreign resource: %s", loc)
	}
	foreign := "lw_at_" + strings.Repeat("f", 43)
	sum := sha256.Sum256([]byte(foreign))
	if _, err := s.PB.DB().NewQuery(`INSERT INTO oauth_tokens (id, hash, kind, family, codeHash, clientId, user, resource, scope, expiresAt, usedAt, revokedAt, lastUsedAt, created)
		VALUES ('tokforeign00001', {:h}, 'access', 'fam', '', {:c}, {:u}, 'https://elsewhere.example/mcp', '', '2100-01-01 00:00:00.000Z', '', '', '', '')`).
		Bind(map[string]any{"h": fmt.Sprintf("%x", sum), "c": f.clientID, "u": ann.ID}).Execute(); err != nil {
		t.Fatal(err)
	}
	if st := mcpStatus(t, s, foreign); st != 401 {
		t.Fatalf("token for another resource: %d", st)
	}
	// PKCE is required, S256 only.
	for _, q := range []url.Values{{"code_challenge": {""}}, {"code_challenge_method": {"plain"}}} {
		if loc := approveErr(t, f, q); loc.Query().Get("error") != "invalid_request" {
			t.Fatalf("no PKCE: %s", loc)
		}
	}
	// An unregistered redirect URI is never redirected to.
	res, _ := f.browser.Get(f.authURL(url.Values{"redirect_uri": {"https://evil.example/cb"}}))
	if res.StatusCode != 400 || res.Header.Get("Location") != "" {
		t.Fatalf("unregistered redirect: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	res.Body.Close()
	// Deny sends access_denied back.
	if loc := approve(t, s, f.browser, f.authURL(nil), "deny"); loc.Query().Get("error") != "access_denied" {
		t.Fatalf("deny: %s", loc)
	}
	// Signed out, the consent page sends you to sign in first, then back.
	res, _ = s.Browser().Get(f.authURL(nil))
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login?next=%2Foauth%2Fauthorize") {
		t.Fatalf("signed out: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	res.Body.Close()
	// Registration refuses non-loopback http redirect URIs.
	reg := s.Do(apptest.Request{Method: "POST", Path: "/oauth/register", Body: map[string]any{"redirect_uris": []string{"http://example.com/cb"}}})
	if reg.Status != 400 || !strings.Contains(string(reg.Body), "invalid_redirect_uri") {
		t.Fatalf("http redirect registered: %d %s", reg.Status, reg.Body)
	}
}

// approveErr requests authorization and returns the error redirect the server answers with
// before any consent.
func approveErr(t *testing.T, f *flow, extra url.Values) *url.URL {
	t.Helper()
	res, err := f.browser.Get(f.authURL(extra))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("want an error redirect, got %d", res.StatusCode)
	}
	loc, _ := url.Parse(res.Header.Get("Location"))
	return loc
}

func TestDiscovery(t *testing.T) {
	s := apptest.Start(t)
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	s.Must(s.Get("", "/.well-known/oauth-protected-resource/api/mcp"), 200).JSON(t, &prm)
	if prm.Resource != s.URL+"/api/mcp" || prm.AuthorizationServers[0] != s.URL {
		t.Fatalf("path PRM %+v", prm)
	}
	s.Must(s.Get("", "/.well-known/oauth-protected-resource"), 200).JSON(t, &prm)
	if prm.Resource != s.URL {
		t.Fatalf("root PRM %+v", prm)
	}
	res := s.Must(s.Get("", "/.well-known/oauth-authorization-server"), 200)
	m := res.Map(t)
	if m["issuer"] != s.URL || m["token_endpoint"] != s.URL+"/oauth/token" || m["registration_endpoint"] != s.URL+"/oauth/register" ||
		fmt.Sprint(m["code_challenge_methods_supported"]) != "[S256]" || m["authorization_response_iss_parameter_supported"] != true {
		t.Fatalf("AS metadata %v", m)
	}
	if _, ok := m["jwks_uri"]; ok {
		t.Fatal("an empty jwks_uri breaks strict clients")
	}
	// Browser-based clients may call discovery, registration and token with MCP headers.
	for _, path := range []string{"/.well-known/oauth-authorization-server", "/oauth/register", "/oauth/token", "/api/mcp"} {
		req, _ := http.NewRequest("OPTIONS", s.URL+path, nil)
		req.Header.Set("Origin", "https://inspector.example")
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type, mcp-protocol-version, authorization")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		allowed := strings.ToLower(res.Header.Get("Access-Control-Allow-Headers"))
		if res.Header.Get("Access-Control-Allow-Origin") == "" || !strings.Contains(allowed, "mcp-protocol-version") {
			t.Errorf("CORS preflight %s: %d %v", path, res.StatusCode, res.Header)
		}
	}
}

// TestRegistrationIsRateLimited: one address cannot register clients without end.
func TestRegistrationIsRateLimited(t *testing.T) {
	s := apptest.Start(t)
	limited := false
	for i := 0; i < 25 && !limited; i++ {
		res := s.Do(apptest.Request{Method: "POST", Path: "/oauth/register", Body: map[string]any{"redirect_uris": []string{redirectURI}, "client_name": fmt.Sprint("c", i)}})
		switch res.Status {
		case 201:
		case 429:
			limited = true
			if res.Header.Get("Retry-After") == "" || !strings.Contains(string(res.Body), "rate_limited") {
				t.Fatalf("429 without Retry-After or code: %v %s", res.Header, res.Body)
			}
			if i < 20 {
				t.Fatalf("limited after only %d registrations", i)
			}
		default:
			t.Fatalf("registration %d: %d %s", i, res.Status, res.Body)
		}
	}
	if !limited {
		t.Fatal("25 registrations from one address were all accepted")
	}
}
