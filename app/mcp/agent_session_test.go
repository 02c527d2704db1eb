package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/ops"
)

// agentSession is testdata/agent_session.json, which the TypeScript client runs too.
type agentSession struct {
	Documents []struct {
		Type, Name string
		Batches    [][]map[string]any
	}
}

func loadAgentSession(t *testing.T) agentSession {
	t.Helper()
	data, err := os.ReadFile("testdata/agent_session.json")
	if err != nil {
		t.Fatal(err)
	}
	var a agentSession
	if err := json.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// fill replaces "$N" with the Nth created id and "$version" with the version.
func fill(v any, created []string, version int) any {
	switch v := v.(type) {
	case string:
		if v == "$version" {
			return version
		}
		if n, err := strconv.Atoi(strings.TrimPrefix(v, "$")); err == nil && strings.HasPrefix(v, "$") && n < len(created) {
			return created[n]
		}
		return v
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = fill(x, created, version)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = fill(x, created, version)
		}
		return out
	}
	return v
}

// TestAgentSession is an agent's whole session with the Go SDK and an API key: a world, one
// document of every type and every op, rename, move, history, a resource read and a
// subscription, a prompt, a delete; then the server restarts and the same session goes on.
func TestAgentSession(t *testing.T) {
	a := loadAgentSession(t)
	seen := map[string]bool{}
	for _, d := range a.Documents {
		for _, b := range d.Batches {
			for _, op := range b {
				seen[op["op"].(string)] = true
			}
		}
	}
	for _, spec := range ops.Catalog() {
		if !seen[spec.Name] {
			t.Errorf("testdata/agent_session.json never runs %s", spec.Name)
		}
	}

	dir := t.TempDir()
	s := apptest.StartIn(t, dir)
	ann := s.NewUser("Ann")
	updated := make(chan string, 10)
	session := connectWith(t, s, ann.Key, &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
		updated <- req.Params.URI
	}})
	var w struct{ ID string }
	if call(t, session, "create_world", map[string]any{"name": "Eldoria", "genre": "fantasy"}, &w) {
		t.Fatal("create_world failed")
	}
	ids := map[string]string{}
	for _, d := range a.Documents {
		var doc struct{ ID string }
		if call(t, session, "create_document", map[string]any{"worldId": w.ID, "name": d.Name, "documentType": d.Type}, &doc) {
			t.Fatalf("create_document %s", d.Type)
		}
		ids[d.Type] = doc.ID
		var created []string
		version := 0
		for i, b := range d.Batches {
			var res struct {
				Version int
				Created []struct{ ID string }
			}
			var te toolErr
			if call(t, session, "apply_content_ops", map[string]any{"worldId": w.ID, "documentId": doc.ID, "ops": fill(toAny(b), created, version)}, &res) {
				call(t, session, "apply_content_ops", map[string]any{"worldId": w.ID, "documentId": doc.ID, "ops": fill(toAny(b), created, version)}, &te)
				t.Fatalf("%s batch %d: %+v", d.Type, i, te)
			}
			for _, c := range res.Created {
				created = append(created, c.ID)
			}
			version = res.Version
		}
		if version != len(d.Batches) {
			t.Errorf("%s ends at version %d, want %d", d.Type, version, len(d.Batches))
		}
	}

	card := ids["card"]
	var moved struct{ Name, ParentID string }
	if call(t, session, "update_document", map[string]any{"worldId": w.ID, "documentId": card, "name": "Aria of the North", "parentId": ids["folder"]}, &moved) ||
		moved.Name != "Aria of the North" || moved.ParentID != ids["folder"] {
		t.Fatalf("update_document: %+v", moved)
	}
	var h struct{ Items []struct{ Version int } }
	if call(t, session, "get_history", map[string]any{"worldId": w.ID, "documentId": card}, &h) || len(h.Items) != 3 {
		t.Fatalf("get_history: %+v", h)
	}
	uri := "loreweave://worlds/" + w.ID + "/documents/" + card
	read, err := session.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	if err != nil || !strings.Contains(read.Contents[0].Text, "Raised in a storm") {
		t.Fatalf("read the card: %v %+v", err, read)
	}
	if err := session.Subscribe(context.Background(), &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.setProperty", "key": "Home", "value": "Vharn"}}}), http.StatusOK)
	select {
	case got := <-updated:
		if got != uri {
			t.Errorf("updated %s", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notification after a write")
	}
	prompt, err := session.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: "check_card_against_timeline",
		Arguments: map[string]string{"worldId": w.ID, "cardId": card, "timelineId": ids["timeline"]}})
	if err != nil || len(prompt.Messages) != 3 {
		t.Fatalf("prompt: %v %+v", err, prompt)
	}
	if call(t, session, "delete_document", map[string]any{"worldId": w.ID, "documentId": ids["animator"]}, nil) {
		t.Fatal("delete_document failed")
	}

	// The server restarts; the session goes on.
	s.Stop()
	s = apptest.StartIn(t, dir, apptest.WithBaseURL(s.URL))
	var list struct{ TotalItems int }
	if call(t, session, "list_documents", map[string]any{"worldId": w.ID}, &list) || list.TotalItems != len(a.Documents)-1 {
		t.Fatalf("after the restart: %+v", list)
	}
}

// toAny turns a batch into plain JSON values.
func toAny(b []map[string]any) []any {
	out := make([]any, len(b))
	for i, op := range b {
		out[i] = op
	}
	return out
}
