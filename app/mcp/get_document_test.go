package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestGetDocumentSized: get_document sends the content once (structured; the text result is
// one line), says its size, and returns only the part asked for.
func TestGetDocumentSized(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	session := connect(t, s, ann.Key)
	w := s.World(ann, "Eldoria")
	var card, tl struct{ ID string }
	call(t, session, "create_document", map[string]any{"worldId": w, "name": "Aria", "documentType": "card"}, &card)
	call(t, session, "create_document", map[string]any{"worldId": w, "name": "Ages", "documentType": "timeline"}, &tl)
	long := strings.Repeat("The storm remembers her name. ", 1500)
	var added struct{ Created []struct{ ID string } }
	if call(t, session, "apply_content_ops", map[string]any{"worldId": w, "documentId": card.ID, "ops": []any{
		map[string]any{"op": "card.addSection", "title": "Youth", "body": long},
		map[string]any{"op": "card.addSection", "title": "War", "body": "She fought."},
	}}, &added) {
		t.Fatalf("apply_content_ops: %+v", added)
	}
	var events []any
	for i := range 5 {
		events = append(events, map[string]any{"op": "timeline.addEvent", "label": "Event " + string(rune('A'+i)), "dateMs": i * 1000})
	}
	call(t, session, "apply_content_ops", map[string]any{"worldId": w, "documentId": tl.ID, "ops": events}, nil)

	res, err := session.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_document", Arguments: map[string]any{"worldId": w, "documentId": card.ID}})
	if err != nil || res.IsError {
		t.Fatalf("get_document: %v %+v", err, res)
	}
	line := res.Content[0].(*sdk.TextContent).Text
	if len(line) > 600 || !strings.Contains(line, "Aria (card, version 1") || strings.Count(line, "storm") > 20 {
		t.Errorf("the text result is not one short line: %d bytes: %.200s", len(line), line)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	var whole struct {
		Size int
		Data struct {
			Sections []struct{ ID, Title, Body string }
		}
		Text *string
	}
	json.Unmarshal(structured, &whole)
	if len(whole.Data.Sections) != 2 || whole.Data.Sections[0].Body != long || whole.Text != nil || whole.Size < len(long) {
		t.Fatalf("get_document by default: size %d, %d sections, text %v", whole.Size, len(whole.Data.Sections), whole.Text != nil)
	}
	if n := strings.Count(string(structured), "storm remembers"); n != 1500 {
		t.Errorf("the structured result holds the section %d times, want once", n/1500)
	}

	var part struct {
		Size    int
		Data    map[string]any
		Text    *string
		Section struct{ ID, Title, Body string }
	}
	if call(t, session, "get_document", map[string]any{"worldId": w, "documentId": card.ID, "section": added.Created[1].ID, "fields": []string{"text"}}, &part) ||
		part.Section.Title != "War" || part.Data != nil || part.Text == nil || !strings.Contains(*part.Text, "She fought") || part.Size != whole.Size {
		t.Fatalf("one section and the text: %+v", part)
	}
	var te toolErr
	for _, args := range []map[string]any{
		{"section": "sec-nope"},
		{"fields": []string{"html"}},
		{"eventsPage": 1},
	} {
		args["worldId"], args["documentId"] = w, card.ID
		if !call(t, session, "get_document", args, &te) || te.Error.Code == "" {
			t.Errorf("get_document %v: %+v", args, te)
		}
	}

	var page struct {
		Data   struct{ Events []struct{ Label string } }
		Events struct {
			Page, PerPage, TotalItems int
			HasMore                   bool
		}
	}
	if call(t, session, "get_document", map[string]any{"worldId": w, "documentId": tl.ID, "eventsPage": 2, "eventsPerPage": 2}, &page) ||
		len(page.Data.Events) != 2 || page.Data.Events[0].Label != "Event C" || page.Events.TotalItems != 5 || !page.Events.HasMore {
		t.Fatalf("events page 2: %+v", page)
	}
	if call(t, session, "get_document", map[string]any{"worldId": w, "documentId": tl.ID, "eventsPage": 3, "eventsPerPage": 2}, &page) ||
		len(page.Data.Events) != 1 || page.Events.HasMore {
		t.Fatalf("events page 3: %+v", page)
	}
}
