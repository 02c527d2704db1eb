package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// Prompts a worldbuilder picks from a client's menu. Each checks the caller may read what it
// names and embeds those documents, so the model starts from what is there.

// promptDocuments bounds the documents summarise_world lists.
const promptDocuments = 200

func (s *Server) addPrompts(srv *sdk.Server) {
	world := &sdk.PromptArgument{Name: "worldId", Title: "World", Description: "the world's id (list_worlds)", Required: true}
	srv.AddPrompt(&sdk.Prompt{Name: "summarise_world", Title: "Summarise this world",
		Description: "A summary of a world: its premise, people, places, conflicts and open threads, from its documents.",
		Arguments:   []*sdk.PromptArgument{world}}, s.summariseWorld)
	srv.AddPrompt(&sdk.Prompt{Name: "add_timeline_events", Title: "Add these events to a timeline",
		Description: "Turn events written in your own words into dated events on a timeline.",
		Arguments: []*sdk.PromptArgument{world,
			{Name: "timelineId", Title: "Timeline", Description: "the timeline document's id", Required: true},
			{Name: "events", Title: "Events", Description: "the events, in your own words, with their dates", Required: true}}}, s.addTimelineEvents)
	srv.AddPrompt(&sdk.Prompt{Name: "check_card_against_timeline", Title: "Check this card against the timeline",
		Description: "Find where a character's (or a place's) card contradicts a timeline, and propose fixes.",
		Arguments: []*sdk.PromptArgument{world,
			{Name: "cardId", Title: "Card", Description: "the card document's id", Required: true},
			{Name: "timelineId", Title: "Timeline", Description: "the timeline document's id", Required: true}}}, s.checkCard)
}

// promptArg returns a required argument, or an invalid-params error naming it.
func promptArg(req *sdk.GetPromptRequest, name string) (string, error) {
	v := strings.TrimSpace(req.Params.Arguments[name])
	if v == "" {
		return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("the prompt needs the argument %q", name)}
	}
	return v, nil
}

// promptDocument resolves a document of a type for a prompt, as an embedded resource.
func (s *Server) promptDocument(req *sdk.GetPromptRequest, worldID, docID, docType string) (store.Document, *sdk.EmbeddedResource, error) {
	uri := documentURI(worldID, docID)
	d, _, err := s.resourceDocument(req, uri)
	if err != nil {
		return store.Document{}, nil, err
	}
	if d.DocumentType != docType {
		return store.Document{}, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is a %s, not a %s", d.Name, d.DocumentType, docType)}
	}
	read, err := s.readResource(context.Background(), &sdk.ReadResourceRequest{Session: req.Session, Extra: req.Extra, Params: &sdk.ReadResourceParams{URI: uri}})
	if err != nil {
		return store.Document{}, nil, err
	}
	return d, &sdk.EmbeddedResource{Resource: read.Contents[0]}, nil
}

func userText(text string) *sdk.PromptMessage {
	return &sdk.PromptMessage{Role: "user", Content: &sdk.TextContent{Text: text}}
}

func (s *Server) summariseWorld(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	worldID, err := promptArg(req, "worldId")
	if err != nil {
		return nil, err
	}
	w, _, err := s.world(req, worldID, auth.ReadMeta)
	if err != nil {
		return nil, resourceError("loreweave://worlds/"+worldID, err)
	}
	docs, total, err := s.Store.Documents(w.ID, store.DocumentFilter{}, store.Page{Page: 1, PerPage: promptDocuments})
	if err != nil {
		return nil, err
	}
	var list strings.Builder
	for _, d := range docs {
		fmt.Fprintf(&list, "- %s (%s): %s\n", d.Name, d.DocumentType, documentURI(w.ID, d.ID))
	}
	if total > len(docs) {
		fmt.Fprintf(&list, "- … and %d more (list_documents pages through them)\n", total-len(docs))
	}
	return &sdk.GetPromptResult{Description: "Summarise " + w.Name, Messages: []*sdk.PromptMessage{userText(fmt.Sprintf(
		"Summarise the world %q (id %s, genre %q) for someone about to write in it: its premise, its main people and places, "+
			"its history in order, its conflicts and its open threads. Its documents are below; read them with get_document "+
			"(or as resources) and use search for names you meet. Quote names as they are written. Say what is missing or contradictory.\n\n%s",
		w.Name, w.ID, w.Genre, list.String()))}}, nil
}

func (s *Server) addTimelineEvents(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	worldID, err := promptArg(req, "worldId")
	if err != nil {
		return nil, err
	}
	timelineID, err := promptArg(req, "timelineId")
	if err != nil {
		return nil, err
	}
	events, err := promptArg(req, "events")
	if err != nil {
		return nil, err
	}
	d, timeline, err := s.promptDocument(req, worldID, timelineID, "timeline")
	if err != nil {
		return nil, err
	}
	return &sdk.GetPromptResult{Description: "Add events to " + d.Name, Messages: []*sdk.PromptMessage{
		userText(fmt.Sprintf("Add these events to the timeline %q (world %s, document %s):\n\n%s\n\n"+
			"Call apply_content_ops once with one timeline.addEvent per event: label (short), dateMs (milliseconds from 1970-01-01 UTC; negative before), "+
			"precision (year, month, day… as precise as the text says) and description. Skip events the timeline already has (below); "+
			"if a date is unclear, ask before adding it.", d.Name, worldID, d.ID, events)),
		{Role: "user", Content: timeline},
	}}, nil
}

func (s *Server) checkCard(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	worldID, err := promptArg(req, "worldId")
	if err != nil {
		return nil, err
	}
	cardID, err := promptArg(req, "cardId")
	if err != nil {
		return nil, err
	}
	timelineID, err := promptArg(req, "timelineId")
	if err != nil {
		return nil, err
	}
	card, cardRes, err := s.promptDocument(req, worldID, cardID, "card")
	if err != nil {
		return nil, err
	}
	tl, tlRes, err := s.promptDocument(req, worldID, timelineID, "timeline")
	if err != nil {
		return nil, err
	}
	return &sdk.GetPromptResult{Description: "Check " + card.Name + " against " + tl.Name, Messages: []*sdk.PromptMessage{
		userText(fmt.Sprintf("Check the card %q against the timeline %q (both below). List every contradiction: dates, ages, "+
			"places, who was where when, events the card mentions that the timeline lacks or places differently. For each, quote both sides and "+
			"propose a fix as the apply_content_ops call that would make it (card.editSectionText, card.setProperty, timeline.updateEvent…), "+
			"but do not apply anything until asked.", card.Name, tl.Name)),
		{Role: "user", Content: cardRes},
		{Role: "user", Content: tlRes},
	}}, nil
}
