package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// GetDocumentIn reads a document, whole or in part.
type GetDocumentIn struct {
	DocumentIn
	Fields []string `json:"fields,omitempty" jsonschema:"what to return: data (the content as its type stores it) and/or text (its plain-text projection); default [data]"`
	// Section and the events page narrow data to one part of a large document.
	Section       string `json:"section,omitempty" jsonschema:"a card section's id (sec-…): return only that section, as section, instead of data"`
	EventsPage    *int   `json:"eventsPage,omitempty" jsonschema:"a timeline: return this page of its events (from 1) in data.events, in date order"`
	EventsPerPage *int   `json:"eventsPerPage,omitempty" jsonschema:"events per page, 1 to 500 (default 100)"`
}

// DocumentRead is a document with what was asked of its content.
type DocumentRead struct {
	Document
	Version int64  `json:"version" jsonschema:"content version in this era; 0 before any write"`
	Source  string `json:"source" jsonschema:"live, stored or empty"`
	Size    int    `json:"size" jsonschema:"bytes of the whole content (data as JSON), whatever part is returned"`
	// Data is the content, or the asked page of a timeline's events; absent when not asked.
	Data map[string]any `json:"data,omitempty" jsonschema:"the document type's data"`
	Text *string        `json:"text,omitempty" jsonschema:"plain-text projection"`
	// Section is the one card section asked for.
	Section map[string]any `json:"section,omitempty"`
	// Events says where the page of events is among all of them.
	Events *EventsPage `json:"events,omitempty"`
}

// EventsPage places a page of a timeline's events.
type EventsPage struct {
	Page       int  `json:"page"`
	PerPage    int  `json:"perPage"`
	TotalItems int  `json:"totalItems"`
	HasMore    bool `json:"hasMore"`
}

// summaryChars bounds the text summary a read sends beside its structured content.
const summaryChars = 280

// getDocument answers get_document: the content once, as structured output, and in the text
// content only a line saying what it is.
func (s *Server) getDocument(ctx context.Context, req *sdk.CallToolRequest, in GetDocumentIn) (*sdk.CallToolResult, *DocumentRead, error) {
	d, role, err := s.document(req, in.WorldID, in.DocumentID, in.Era, auth.ReadContent)
	if err != nil {
		return nil, nil, err
	}
	fields := in.Fields
	if len(fields) == 0 {
		fields = []string{"data"}
	}
	for _, f := range fields {
		if f != "data" && f != "text" {
			return nil, nil, fail(apierr.Field("fields", "fields may hold data and text, not %q", ops.Echo(f)).With("allowed", []string{"data", "text"}))
		}
	}
	paged := in.EventsPage != nil || in.EventsPerPage != nil
	switch {
	case in.Section != "" && d.DocumentType != "card":
		return nil, nil, fail(apierr.Field("section", "section is for cards; this document is a %s", d.DocumentType))
	case paged && d.DocumentType != "timeline":
		return nil, nil, fail(apierr.Field("eventsPage", "an events page is for timelines; this document is a %s", d.DocumentType))
	case in.Section != "" && paged:
		return nil, nil, fail(apierr.Field("section", "ask for a section or an events page, not both"))
	}
	c, err := s.Store.Content(d, in.Era)
	if err != nil {
		return nil, nil, fail(err)
	}
	if !store.CanEdit(role) {
		c = c.Public(d) // viewers never see secret sections
	}
	out := &DocumentRead{Document: documentOut(d), Version: c.Version, Source: c.Source, Size: len(c.Data)}
	data := objects(c.Data)[0]
	if slices.Contains(fields, "text") {
		out.Text = &c.Text
	}
	switch {
	case in.Section != "":
		sections, _ := data["sections"].([]any)
		for _, sec := range sections {
			if m, ok := sec.(map[string]any); ok && m["id"] == in.Section {
				out.Section = m
			}
		}
		if out.Section == nil {
			return nil, nil, fail(apierr.New(404, "not_found_in_document", "the card has no section %q", ops.Echo(in.Section)).With("field", "section"))
		}
	case paged:
		page, perPage := 1, 100
		if in.EventsPage != nil {
			page = *in.EventsPage
		}
		if in.EventsPerPage != nil {
			perPage = *in.EventsPerPage
		}
		if page < 1 {
			return nil, nil, fail(apierr.Field("eventsPage", "eventsPage must be a whole number from 1"))
		}
		if perPage < 1 || perPage > 500 {
			return nil, nil, fail(apierr.Field("eventsPerPage", "eventsPerPage must be a whole number from 1 to 500"))
		}
		events, _ := data["events"].([]any)
		from := min((page-1)*perPage, len(events))
		to := min(from+perPage, len(events))
		data["events"] = events[from:to]
		out.Events = &EventsPage{Page: page, PerPage: perPage, TotalItems: len(events), HasMore: to < len(events)}
		if slices.Contains(fields, "data") {
			out.Data = data
		}
	default:
		if slices.Contains(fields, "data") {
			out.Data = data
		}
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: summary(d, c)}, resourceLink(d)}}, out, nil
}

// summary is one line on a document: its name, type, version and size, and how its text
// starts.
func summary(d store.Document, c store.Content) string {
	text := strings.Join(strings.Fields(c.Text), " ")
	if utf8.RuneCountInString(text) > summaryChars {
		text = string([]rune(text)[:summaryChars]) + "…"
	}
	return fmt.Sprintf("%s (%s, version %d, %s; the content is in the structured result): %s", d.Name, d.DocumentType, c.Version, byteSize(len(c.Data)), text)
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
