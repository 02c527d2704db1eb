package mcp

import (
	"context"
	"strconv"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// CreateWorldIn creates a world.
type CreateWorldIn struct {
	Name  string `json:"name" jsonschema:"1 to 200 characters"`
	Genre string `json:"genre,omitempty" jsonschema:"for example fantasy, science fiction, horror; it picks the world's theme"`
}

// UpdateDocumentIn renames and/or moves a document.
type UpdateDocumentIn struct {
	DocumentIn
	Name     *string `json:"name,omitempty" jsonschema:"the new name, 1 to 200 characters"`
	ParentID *string `json:"parentId,omitempty" jsonschema:"the folder to move it into; empty moves it to the top level"`
}

// Deleted says what a delete removed.
type Deleted struct {
	DocumentID string `json:"documentId"`
	Era        string `json:"era" jsonschema:"the era it was hidden in; empty: deleted on the main line"`
}

// HistoryIn asks for a page of a document's op log.
type HistoryIn struct {
	DocumentIn
	Since int64 `json:"since,omitempty" jsonschema:"the version after which to start (default 0: from the oldest kept)"`
	Limit *int  `json:"limit,omitempty" jsonschema:"at most this many versions, 1 to 1000 (default 100)"`
}

// addWorldTools adds the tools that create worlds and organise documents: the REST routes
// POST /worlds, PATCH and DELETE …/documents/{id} and GET …/ops, on the same store calls.
func (s *Server) addWorldTools(srv *sdk.Server) {
	sdk.AddTool(srv, &sdk.Tool{Name: "create_world", Title: "Create a world", Annotations: adds(),
		Description: "Create a world that you own, on the server's default plan. Any signed-in account may."},
		func(ctx context.Context, req *sdk.CallToolRequest, in CreateWorldIn) (*sdk.CallToolResult, *World, error) {
			p, err := principal(req)
			if err != nil {
				return nil, nil, err
			}
			if in.Name == "" {
				return nil, nil, fail(apierr.Field("name", "\"name\" is required"))
			}
			w, err := s.Store.CreateWorld(p.UserID, in.Name, in.Genre, s.DefaultPlan)
			if err != nil {
				return nil, nil, fail(err)
			}
			out := worldOut(w, "owner")
			return nil, &out, nil
		})

	sdk.AddTool(srv, &sdk.Tool{Name: "update_document", Title: "Rename or move a document", Annotations: organises(),
		Description: "Rename a document (name) and/or move it into a folder (parentId; empty for the top level). A document's name and place are the same in every era. Editors only."},
		func(ctx context.Context, req *sdk.CallToolRequest, in UpdateDocumentIn) (*sdk.CallToolResult, *Document, error) {
			d, _, err := s.document(req, in.WorldID, in.DocumentID, in.Era, auth.Edit)
			if err != nil {
				return nil, nil, err
			}
			if in.Name == nil && in.ParentID == nil {
				return nil, nil, fail(apierr.NothingToChange("name", "parentId"))
			}
			p, _ := principal(req)
			d, err = s.Store.UpdateDocument(d, in.Era, store.MetaChange{Name: in.Name, ParentID: in.ParentID}, p.Actor())
			if err != nil {
				return nil, nil, fail(err)
			}
			out := documentOut(d)
			res, err := linked(out, d)
			return res, &out, err
		})

	sdk.AddTool(srv, &sdk.Tool{Name: "delete_document", Title: "Delete a document", Annotations: deletes(),
		Description: "Delete a document. On the main line it is deleted with its history (a folder must be empty first); in an era it is hidden there and in the era's descendants only. Editors only."},
		func(ctx context.Context, req *sdk.CallToolRequest, in DocumentIn) (*sdk.CallToolResult, *Deleted, error) {
			d, _, err := s.document(req, in.WorldID, in.DocumentID, in.Era, auth.Edit)
			if err != nil {
				return nil, nil, err
			}
			p, _ := principal(req)
			if err := s.Store.DeleteDocument(d, in.Era, p.Actor()); err != nil {
				return nil, nil, fail(err)
			}
			return nil, &Deleted{DocumentID: d.ID, Era: in.Era}, nil
		})

	sdk.AddTool(srv, &sdk.Tool{Name: "get_history", Title: "A document's history", Annotations: reads(),
		Description: "A page of a document's op log: each accepted write (version, the ops as applied, who, when), oldest first, after `since`. " +
			"The log keeps the newest " + strconv.Itoa(store.OpLogKeepVersions) + " versions; older ones are gone (truncated says so). Cards' logs are for owners, admins and editors (they can hold secret sections). Needs the world on Pro or Studio."},
		func(ctx context.Context, req *sdk.CallToolRequest, in HistoryIn) (*sdk.CallToolResult, *api.OpLogJSON, error) {
			d, role, err := s.document(req, in.WorldID, in.DocumentID, in.Era, auth.ReadContent)
			if err != nil {
				return nil, nil, err
			}
			limit := 100
			if in.Limit != nil {
				limit = *in.Limit
			}
			out, err := api.OpLogPage(s.Store, d, in.Era, role, in.Since, limit)
			if err != nil {
				return nil, nil, fail(err)
			}
			return nil, &out, nil
		})
}

// organises: renames and moves change what is there without destroying it, and doing one
// twice is doing it once.
func organises() *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(false)}
}

// deletes: gone is gone (a main-line delete takes the history with it); deleting again finds
// nothing to delete.
func deletes() *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: new(false)}
}
