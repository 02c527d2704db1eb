package mcp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestSessionsSurviveARestart: a client connected before the server restarts calls tools
// after it with the same session, without reconnecting (the Go SDK; the TypeScript SDK's test
// does the same).
func TestSessionsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	s := apptest.StartIn(t, dir)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "restart-test", Version: "1"}, nil)
	session, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.URL + "/api/mcp",
		HTTPClient: &http.Client{Transport: bearer{ann.Key, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	var before struct{ ID string }
	if call(t, session, "get_world", map[string]any{"worldId": w}, &before) || before.ID != w {
		t.Fatalf("before the restart: %+v", before)
	}

	s.Stop()
	s2 := apptest.StartIn(t, dir, apptest.WithBaseURL(s.URL))

	var after struct{ ID, Name string }
	if call(t, session, "get_world", map[string]any{"worldId": w}, &after) || after.ID != w || after.Name != "Eldoria" {
		t.Fatalf("after the restart: %+v", after)
	}
	var doc struct{ ID string }
	if call(t, session, "create_document", map[string]any{"worldId": w, "name": "After", "documentType": "card"}, &doc) || doc.ID == "" {
		t.Fatalf("a write after the restart: %+v", doc)
	}
	s2.Must(s2.Get(ann.Key, "/api/v1/worlds/"+w+"/documents/"+doc.ID), http.StatusOK)
}
