package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/apptest"
)

// connectWith connects like connect, with client options.
func connectWith(t *testing.T, s *apptest.Server, token string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	c := sdk.NewClient(&sdk.Implementation{Name: "loreweave-test", Version: "1"}, opts)
	session, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.URL + "/api/mcp", HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// TestDocumentsAsResources: documents are listed, read and subscribed to as resources; tool
// results link them; the server advertises exactly what it serves.
func TestDocumentsAsResources(t *testing.T) {
	s := apptest.Start(t)
	ann, bob := s.NewUser("Ann"), s.NewUser("Bob")
	w1, w2 := s.World(ann, "Eldoria"), s.World(ann, "Vharn")
	card := s.Document(ann, w1, "Aria", "card")
	tl := s.Document(ann, w1, "Ages", "timeline")
	far := s.Document(ann, w2, "Far", "folder")

	updated := make(chan string, 10)
	ctx := context.Background()
	session := connectWith(t, s, ann.Key, &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
		updated <- req.Params.URI
	}})
	caps := session.InitializeResult().Capabilities
	if caps.Resources == nil || !caps.Resources.Subscribe || caps.Prompts == nil || caps.Tools == nil || caps.Logging != nil ||
		caps.Tools.ListChanged || caps.Resources.ListChanged || caps.Prompts.ListChanged {
		t.Errorf("capabilities %+v", caps)
	}

	// Listed world by world, one world's page at a time.
	var uris []string
	cursor := ""
	for range 5 {
		page, err := session.ListResources(ctx, &sdk.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Resources {
			uris = append(uris, r.URI)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	uri := func(w, d string) string { return "loreweave://worlds/" + w + "/documents/" + d }
	if got := strings.Join(uris, " "); !strings.Contains(got, uri(w1, card)) || !strings.Contains(got, uri(w1, tl)) || !strings.Contains(got, uri(w2, far)) || len(uris) != 3 {
		t.Fatalf("resources %v", uris)
	}
	if _, err := session.ListResources(ctx, &sdk.ListResourcesParams{Cursor: "nonsense"}); err == nil {
		t.Error("a bad cursor was accepted")
	}
	templates, err := session.ListResourceTemplates(ctx, nil)
	if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "loreweave://worlds/{worldId}/documents/{documentId}" {
		t.Fatalf("templates %+v %v", templates, err)
	}

	// Read.
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w1+"/documents/"+card+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.addSection", "title": "Youth", "body": "Born in a storm."},
	}}), http.StatusOK)
	read, err := session.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri(w1, card)})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Document struct{ ID, Name string }
		Version  int
		Text     string
	}
	if json.Unmarshal([]byte(read.Contents[0].Text), &doc) != nil || doc.Document.ID != card || doc.Version != 1 || !strings.Contains(doc.Text, "Born in a storm") ||
		read.Contents[0].MIMEType != "application/json" {
		t.Fatalf("read %+v", read.Contents[0])
	}
	var werr *jsonrpc.Error
	for _, bad := range []string{uri(w1, "nope"), "loreweave://elsewhere", uri(w2+"x", far)} {
		if _, err := session.ReadResource(ctx, &sdk.ReadResourceParams{URI: bad}); !errors.As(err, &werr) || werr.Code != sdk.CodeResourceNotFound {
			t.Errorf("read %s: %v", bad, err)
		}
	}
	// Not a member: not found either, and no subscription.
	bobs := connect(t, s, bob.Key)
	if _, err := bobs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri(w1, card)}); !errors.As(err, &werr) || werr.Code != sdk.CodeResourceNotFound {
		t.Errorf("a non-member reads: %v", err)
	}
	if err := bobs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri(w1, card)}); err == nil {
		t.Error("a non-member subscribed")
	}

	// Subscribed: a write anywhere (here REST) is a notification.
	if err := session.Subscribe(ctx, &sdk.SubscribeParams{URI: uri(w1, card)}); err != nil {
		t.Fatal(err)
	}
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w1+"/documents/"+card+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.setProperty", "key": "Born", "value": "Year 12"},
	}}), http.StatusOK)
	select {
	case got := <-updated:
		if got != uri(w1, card) {
			t.Errorf("updated %s", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/resources/updated after a write")
	}

	// Tool results link the resource they touch.
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "create_document", Arguments: map[string]any{"worldId": w1, "name": "Vale", "documentType": "card"}})
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("create_document: %v %+v", err, res)
	}
	if link, ok := res.Content[1].(*sdk.ResourceLink); !ok || !strings.HasPrefix(link.URI, "loreweave://worlds/"+w1+"/documents/") || link.Name != "Vale" {
		t.Errorf("create_document's link: %#v", res.Content[1])
	}
}

// TestPrompts: the prompts a worldbuilder picks from a menu, with the documents they name.
func TestPrompts(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	card := s.Document(ann, w, "Aria", "card")
	tl := s.Document(ann, w, "Ages", "timeline")
	session := connect(t, s, ann.Key)
	ctx := context.Background()
	list, err := session.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
	}
	if strings.Join(names, " ") != "add_timeline_events check_card_against_timeline summarise_world" {
		t.Fatalf("prompts %v", names)
	}
	got, err := session.GetPrompt(ctx, &sdk.GetPromptParams{Name: "check_card_against_timeline", Arguments: map[string]string{"worldId": w, "cardId": card, "timelineId": tl}})
	if err != nil || len(got.Messages) != 3 {
		t.Fatalf("check_card_against_timeline: %v %+v", err, got)
	}
	if e, ok := got.Messages[1].Content.(*sdk.EmbeddedResource); !ok || !strings.HasSuffix(e.Resource.URI, card) || !strings.Contains(e.Resource.Text, `"Aria"`) {
		t.Errorf("the card is not embedded: %#v", got.Messages[1].Content)
	}
	got, err = session.GetPrompt(ctx, &sdk.GetPromptParams{Name: "summarise_world", Arguments: map[string]string{"worldId": w}})
	if err != nil || !strings.Contains(got.Messages[0].Content.(*sdk.TextContent).Text, "Aria (card)") {
		t.Fatalf("summarise_world: %v %+v", err, got)
	}
	got, err = session.GetPrompt(ctx, &sdk.GetPromptParams{Name: "add_timeline_events", Arguments: map[string]string{"worldId": w, "timelineId": tl, "events": "The Sundering, year 12"}})
	if err != nil || len(got.Messages) != 2 {
		t.Fatalf("add_timeline_events: %v %+v", err, got)
	}
	for _, args := range []map[string]string{
		{"worldId": w, "timelineId": tl},                     // no events
		{"worldId": w, "timelineId": card, "events": "x"},    // not a timeline
		{"worldId": "nope", "timelineId": tl, "events": "x"}, // no such world
	} {
		if _, err := session.GetPrompt(ctx, &sdk.GetPromptParams{Name: "add_timeline_events", Arguments: args}); err == nil {
			t.Errorf("add_timeline_events %v: no error", args)
		}
	}
}
