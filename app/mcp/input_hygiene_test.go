package mcp_test

import (
	"context"
	"net/http"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestInputHygiene: MCP requests are held to the REST API's input rules: bodies with lone
// surrogates or duplicate members are refused before the SDK decodes them, and names with
// control characters are refused by the tools.
func TestInputHygiene(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	h := http.Header{"Accept": {"application/json, text/event-stream"}}
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"x\ud800"}}}`: "malformed_json",
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"initialize","params":{}}`:                         "invalid_field",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"a":1,"a":2}}`:                     "invalid_field",
	} {
		res := s.Do(apptest.Request{Method: http.MethodPost, Path: "/api/mcp", Key: ann.Key, Body: body, Header: h})
		if res.ErrorCode() != want {
			t.Errorf("%s: %d %s, want %s", body, res.Status, res.Body, want)
		}
	}

	var e toolErr
	session, w := connect(t, s, ann.Key), s.World(ann, "Eldoria")
	args := map[string]any{"worldId": w, "name": "Hist\x1b[2Jory", "documentType": "card"}
	if !call(t, session, "create_document", args, &e) || e.Error.Code != "invalid_field" {
		t.Fatalf("create_document with ESC in the name: %+v", e)
	}
	// Arguments are case-sensitive: the tools' input schemas allow no other members.
	args = map[string]any{"worldId": w, "name": "History", "DocumentType": "timeline", "documentType": "card"}
	res, err := session.CallTool(context.Background(), &sdk.CallToolParams{Name: "create_document", Arguments: args})
	if err == nil && !res.IsError {
		t.Fatal("create_document accepted DocumentType next to documentType")
	}
}
