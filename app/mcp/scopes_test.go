package mcp_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/apptest"
)

// TestReadOnlyGrant: a client that asks for the read scope is shown so on the consent page,
// gets a token scoped read, reads through every read tool, and is refused every other tool
// and every REST route but reads, with insufficient_scope.
func TestReadOnlyGrant(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	doc := s.Document(ann, w, "Aria", "card")

	var meta struct {
		Scopes []string `json:"scopes_supported"`
	}
	s.Must(s.Do(apptest.Request{Method: "GET", Path: "/.well-known/oauth-authorization-server"}), 200).JSON(t, &meta)
	if strings.Join(meta.Scopes, " ") != "read write" {
		t.Errorf("scopes_supported %v", meta.Scopes)
	}

	f := newFlow(t, s, ann)
	page, err := f.browser.Get(f.authURL(url.Values{"scope": {"read"}, "resource": {s.URL}}))
	if err != nil {
		t.Fatal(err)
	}
	html, _ := goquery.NewDocumentFromReader(page.Body)
	page.Body.Close()
	if html.Find(`[data-testid="read-only"]`).Length() != 1 {
		t.Error("the consent page does not say the app asks to read only")
	}
	loc := approve(t, s, f.browser, f.authURL(url.Values{"scope": {"read"}, "resource": {s.URL}}), "approve")
	status, tr := f.exchange(loc.Query().Get("code"), url.Values{"resource": {s.URL}})
	if status != 200 || tr.AccessToken == "" {
		t.Fatalf("token: %d %+v", status, tr)
	}
	token := tr.AccessToken

	// REST: reads work, nothing else does, whatever the route.
	s.Must(s.Get(token, "/api/v1/worlds/"+w+"/documents/"+doc), http.StatusOK)
	for _, r := range api.Routes {
		if r.Method == http.MethodGet {
			continue
		}
		path := strings.NewReplacer("{worldId}", w, "{documentId}", doc).Replace(r.Path)
		for _, param := range []string{"{eraId}", "{projectId}", "{assetId}", "{toolId}", "{userId}", "{invitationId}", "{webhookId}"} {
			path = strings.ReplaceAll(path, param, "x")
		}
		res := s.Do(apptest.Request{Method: r.Method, Path: path, Key: token, Body: map[string]any{}})
		if res.Status != http.StatusForbidden || res.ErrorCode() != "insufficient_scope" || !strings.Contains(res.Header.Get("WWW-Authenticate"), `error="insufficient_scope"`) {
			t.Errorf("%s %s with a read-only token: %d %s", r.Method, r.Path, res.Status, res.Body)
		}
	}

	// MCP: every read tool reads, every other tool is refused.
	s2 := connect(t, s, token)
	tools, err := s2.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		res, err := s2.CallTool(context.Background(), &sdk.CallToolParams{Name: tool.Name, Arguments: map[string]any{"worldId": w, "documentId": doc}})
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		text := res.Content[0].(*sdk.TextContent).Text
		refused := res.IsError && strings.Contains(text, `"insufficient_scope"`)
		if refused == tool.Annotations.ReadOnlyHint {
			t.Errorf("%s (readOnlyHint %v) with a read-only token: %s", tool.Name, tool.Annotations.ReadOnlyHint, text)
		}
	}
	if _, err := s2.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "loreweave://worlds/" + w + "/documents/" + doc}); err != nil {
		t.Errorf("a read-only token reads a resource: %v", err)
	}

	// A client that asks for no scope (or write) may write, as before.
	f2 := newFlow(t, s, ann)
	status, full := f2.exchange(f2.code(), nil)
	if status != 200 {
		t.Fatalf("token: %d", status)
	}
	s3 := connect(t, s, full.AccessToken)
	if call(t, s3, "create_document", map[string]any{"worldId": w, "name": "Vale", "documentType": "card"}, nil) {
		t.Error("a read-write token could not write")
	}
}
