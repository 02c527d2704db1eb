package mcp_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// Audience (RFC 8707): a token issued for the MCP endpoint works there only; a token issued
// for the whole server works on the MCP endpoint and the REST API.
func TestTokensServeTheResourceTheyWereIssuedFor(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	f := newFlow(t, s, ann)
	restStatus := func(token string) int {
		return s.Do(apptest.Request{Method: "GET", Path: "/api/v1/me", Key: token}).Status
	}

	status, mcpToken := f.exchange(f.code(), nil)
	if status != 200 || mcpToken.AccessToken == "" {
		t.Fatalf("token for the MCP endpoint: %d %+v", status, mcpToken)
	}
	if st := mcpStatus(t, s, mcpToken.AccessToken); st != http.StatusOK {
		t.Fatalf("MCP endpoint with its own token: %d", st)
	}
	if st := restStatus(mcpToken.AccessToken); st != http.StatusUnauthorized {
		t.Fatalf("REST API with a token for the MCP endpoint: %d, want 401", st)
	}

	origin := url.Values{"resource": {s.URL}}
	loc := approve(t, s, f.browser, f.authURL(origin), "approve")
	status, serverToken := f.exchange(loc.Query().Get("code"), origin)
	if status != 200 || serverToken.AccessToken == "" {
		t.Fatalf("token for the whole server: %d %+v", status, serverToken)
	}
	if st := mcpStatus(t, s, serverToken.AccessToken); st != http.StatusOK {
		t.Fatalf("MCP endpoint with a token for the whole server: %d", st)
	}
	if st := restStatus(serverToken.AccessToken); st != http.StatusOK {
		t.Fatalf("REST API with a token for the whole server: %d", st)
	}
}
