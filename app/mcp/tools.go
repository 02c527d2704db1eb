package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/search"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// toolError is a tool failure in Loreweave's one error model: its text is the same JSON
// error object the REST API answers ({"error": {"code", "message", ...details}}).
type toolError struct{ e *apierr.Error }

func (t toolError) Error() string {
	b, _ := json.Marshal(t.e.Body())
	return string(b)
}

// Unwrap lets apierr.From (and errors.As) see the error a tool failure carries.
func (t toolError) Unwrap() error { return t.e }

func fail(err error) error { return toolError{apierr.From(err)} }

// principal is the caller the bearer middleware authenticated.
func principal(req sdk.Request) (auth.Principal, error) {
	if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil {
		ti := ex.TokenInfo
		if p, ok := ti.Extra["principal"].(auth.Principal); ok {
			return p, nil
		}
	}
	return auth.Principal{}, fail(apierr.Unauthenticated("no credential"))
}

// Inputs and outputs. Descriptions become the tools' JSON Schemas.

// PageIn selects a page of a list.
type PageIn struct {
	// Pointers, so that a page or perPage of 0 is refused (as on REST), not taken as absent.
	Page    *int `json:"page,omitempty" jsonschema:"page number from 1 (default 1)"`
	PerPage *int `json:"perPage,omitempty" jsonschema:"items per page, 1 to 100 (default 50)"`
}

func (p PageIn) page() (store.Page, error) {
	pg := store.Page{Page: 1, PerPage: 50}
	if p.Page != nil {
		pg.Page = *p.Page
	}
	if p.PerPage != nil {
		pg.PerPage = *p.PerPage
	}
	if pg.Page < 1 {
		return pg, apierr.Field("page", "page must be a whole number from 1")
	}
	if pg.PerPage < 1 || pg.PerPage > 100 {
		return pg, apierr.Field("perPage", "perPage must be a whole number from 1 to 100")
	}
	return pg, nil
}

// Me is the calling account.
type Me struct {
	ID         string `json:"id"`
	Email      string `json:"email"`
	Name       string `json:"name"`
	Credential string `json:"credential" jsonschema:"api_key or oauth"`
}

// World is a world as its member sees it.
type World struct {
	ID    string `json:"id"`
	Slug  string `json:"slug"`
	Name  string `json:"name"`
	Genre string `json:"genre"`
	Theme string `json:"theme"`
	Plan  string `json:"plan" jsonschema:"free, pro or studio; content tools need pro or studio"`
	Role  string `json:"role" jsonschema:"the caller's role: owner, admin, editor or viewer"`
}

func worldOut(w store.World, role string) World {
	return World{ID: w.ID, Slug: w.Slug, Name: w.Name, Genre: w.Genre, Theme: w.Theme, Plan: w.Plan, Role: role}
}

// Worlds is a page of worlds.
type Worlds struct {
	Items      []World `json:"items"`
	TotalItems int     `json:"totalItems"`
	HasMore    bool    `json:"hasMore" jsonschema:"more items on later pages"`
}

// WorldIn names a world.
type WorldIn struct {
	WorldID string `json:"worldId" jsonschema:"the world's id (from list_worlds)"`
}

// WorldPageIn selects a page of one of a world's lists.
type WorldPageIn struct {
	WorldIn
	PageIn
}

// Document is a document's metadata.
type Document struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	DocumentType string `json:"documentType"`
	ParentID     string `json:"parentId" jsonschema:"the folder it is in, empty at the top level"`
	EraID        string `json:"eraId" jsonschema:"the era it was created in, empty for the main line"`
}

func documentOut(d store.Document) Document {
	return Document{ID: d.ID, Name: d.Name, DocumentType: d.DocumentType, ParentID: d.ParentID, EraID: d.EraID}
}

// Documents is a page of documents.
type Documents struct {
	Items      []Document `json:"items"`
	TotalItems int        `json:"totalItems"`
	HasMore    bool       `json:"hasMore" jsonschema:"more items on later pages"`
}

// ListDocumentsIn filters a document list.
type ListDocumentsIn struct {
	WorldID      string `json:"worldId"`
	Era          string `json:"era,omitempty" jsonschema:"an era id; empty for the main line"`
	DocumentType string `json:"documentType,omitempty" jsonschema:"only documents of this type"`
	PageIn
}

// DocumentIn names a document in an era.
type DocumentIn struct {
	WorldID    string `json:"worldId"`
	DocumentID string `json:"documentId"`
	Era        string `json:"era,omitempty" jsonschema:"an era id; empty for the main line"`
}

// DocumentPageIn names a document in an era and a page of one of its lists.
type DocumentPageIn struct {
	DocumentIn
	PageIn
}

// OpsResult is what an accepted apply_content_ops call did.
type OpsResult struct {
	DocumentType string           `json:"documentType"`
	Applied      int              `json:"applied" jsonschema:"number of operations applied"`
	Created      []ops.Created    `json:"created" jsonschema:"ids the service assigned (evt-, sec-, pin-…) with their labels"`
	Version      int64            `json:"version" jsonschema:"the document's new version"`
	Ops          []map[string]any `json:"ops" jsonschema:"the operations as applied, assigned ids filled in"`
}

// Types is every document type a world accepts (REST: GET /api/v1/worlds/{worldId}/types).
type Types struct {
	Types []Type `json:"types"`
}

// Type is one document type with its ops.
type Type struct {
	Name        string         `json:"name" jsonschema:"the documentType of its documents and the prefix of its ops"`
	Title       string         `json:"title"`
	Builtin     bool           `json:"builtin" jsonschema:"a built-in type (card, timeline, map, folder, animator)"`
	Tool        string         `json:"tool" jsonschema:"the installed tool that adds the type; empty for a built-in"`
	ToolVersion string         `json:"toolVersion"`
	Schema      map[string]any `json:"schema,omitempty" jsonschema:"a tool type's data schema (JSON Schema)"`
	Ops         []TypeOp       `json:"ops"`
}

// TypeOp is one op of a type.
type TypeOp struct {
	Op      string         `json:"op" jsonschema:"the op's op value, for example faction.setMotto"`
	Kind    string         `json:"kind,omitempty" jsonschema:"a tool op's kind: set, append, update, remove, move or text"`
	Path    string         `json:"path,omitempty" jsonschema:"the property a tool op acts on"`
	Summary string         `json:"summary"`
	Params  map[string]any `json:"params" jsonschema:"the JSON Schema of the op object"`
}

// typesOut is the world's types for a typed output.
func typesOut(l api.TypeList) (*Types, error) {
	data, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	var out Types
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// objects decodes JSON objects for a typed output.
func objects(raw ...json.RawMessage) []map[string]any {
	out := make([]map[string]any, 0, len(raw))
	for _, r := range raw {
		var m map[string]any
		_ = json.Unmarshal(r, &m)
		out = append(out, m)
	}
	return out
}

// CreateDocumentIn creates a document.
type CreateDocumentIn struct {
	WorldID      string `json:"worldId"`
	Name         string `json:"name" jsonschema:"1 to 200 characters"`
	DocumentType string `json:"documentType" jsonschema:"card, timeline, map, folder, animator, or an installed tool's type"`
	ParentID     string `json:"parentId,omitempty" jsonschema:"a folder to create it in"`
	Era          string `json:"era,omitempty" jsonschema:"create it in this era only; empty for the main line"`
}

// ApplyOpsIn applies content operations.
type ApplyOpsIn struct {
	WorldID    string            `json:"worldId"`
	DocumentID string            `json:"documentId"`
	Era        string            `json:"era,omitempty" jsonschema:"apply in this era; empty for the main line"`
	Ops        []json.RawMessage `json:"ops" jsonschema:"operations applied in order, all or none; each has \"op\" (e.g. timeline.addEvent) and its parameters"`
}

// SearchIn is a search query.
type SearchIn struct {
	WorldID      string `json:"worldId"`
	Q            string `json:"q" jsonschema:"words to find; the last word also matches as a prefix; \"quoted phrases\" match in order"`
	Era          string `json:"era,omitempty"`
	DocumentType string `json:"documentType,omitempty"`
	PageIn
}

// SearchOut is a page of hits.
type SearchOut struct {
	Items      []search.Hit `json:"items"`
	TotalItems int          `json:"totalItems"`
	HasMore    bool         `json:"hasMore" jsonschema:"more items on later pages"`
}

// Era is an era of a world.
type Era struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	ParentID string `json:"parentId" jsonschema:"the era it was forked from, empty for the main line"`
}

// CreateEraIn forks an era.
type CreateEraIn struct {
	WorldID  string `json:"worldId"`
	Name     string `json:"name"`
	ParentID string `json:"parentId,omitempty" jsonschema:"fork from this era instead of the main line"`
}

// Project is an app instance in a world.
type Project struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// CreateProjectIn creates a project.
type CreateProjectIn struct {
	WorldID string `json:"worldId"`
	Kind    string `json:"kind" jsonschema:"the app kind, e.g. wiki"`
	Name    string `json:"name"`
}

// opsCatalogue describes every content operation for the apply_content_ops description.
func opsCatalogue() string {
	byType := map[string][]string{}
	for _, s := range ops.Catalog() {
		var params []string
		for _, p := range s.Params {
			n := p.Name
			if !p.Required {
				n += "?"
			}
			params = append(params, n)
		}
		byType[s.DocumentType] = append(byType[s.DocumentType], fmt.Sprintf("%s(%s)", s.Name, strings.Join(params, ", ")))
	}
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	sort.Strings(types)
	var b strings.Builder
	for _, t := range types {
		fmt.Fprintf(&b, "\n- %s: %s", t, strings.Join(byType[t], "; "))
	}
	return b.String()
}

// addTools registers every tool on srv.
func (s *Server) addTools(srv *sdk.Server) {
	// An explicit empty "properties": some clients' function-calling APIs refuse an object
	// schema without it, which is what the SDK infers from struct{}.
	sdk.AddTool(srv, &sdk.Tool{Name: "whoami", Title: "Who am I", Annotations: reads(), Description: "The account this connection acts as.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)},
		func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, *Me, error) {
			p, err := principal(req)
			if err != nil {
				return nil, nil, err
			}
			return nil, &Me{ID: p.UserID, Email: p.Email, Name: p.Name, Credential: p.Kind}, nil
		})

	sdk.AddTool(srv, &sdk.Tool{Name: "list_worlds", Title: "List my worlds", Annotations: reads(), Description: "The worlds you are a member of, with your role and each world's plan."},
		func(ctx context.Context, req *sdk.CallToolRequest, in PageIn) (*sdk.CallToolResult, *Worlds, error) {
			p, err := principal(req)
			if err != nil {
				return nil, nil, err
			}
			pg, err := in.page()
			if err != nil {
				return nil, nil, fail(err)
			}
			ws, total, err := s.Store.WorldsOf(p.UserID, pg)
			if err != nil {
				return nil, nil, fail(err)
			}
			out := &Worlds{Items: []World{}, TotalItems: total, HasMore: pg.Page*pg.PerPage < total}
			for _, w := range ws {
				out.Items = append(out.Items, worldOut(w.World, w.Role))
			}
			return nil, out, nil
		})

	sdk.AddTool(srv, &sdk.Tool{Name: "get_world", Title: "Get a world", Annotations: reads(), Description: "One world."},
		func(ctx context.Context, req *sdk.CallToolRequest, in WorldIn) (*sdk.CallToolResult, *World, error) {
			w, role, err := s.world(req, in.WorldID, auth.ReadMeta)
			if err != nil {
				return nil, nil, err
			}
			out := worldOut(w, role)
			return nil, &out, nil
		})

	sdk.AddTool(srv, &sdk.Tool{Name: "list_documents", Title: "List documents", Annotations: reads(),
		InputSchema: inputSchema[ListDocumentsIn](map[string]*jsonschema.Schema{"documentType": openEnum("only documents of this type", ops.Types())}), Description: "The documents of a world visible in an era (metadata only): characters, places and things (card), timelines, maps, folders, animators."},
		func(ctx context.Context, req *sdk.CallToolRequest, in ListDocumentsIn) (*sdk.CallToolResult, *Documents, error) {
			w, _, err := s.world(req, in.WorldID, auth.ReadMeta)
			if err != nil {
				return nil, nil, err
			}
			pg, err := in.page()
			if err != nil {
				return nil, nil, fail(err)
			}
			ds, total, err := s.Store.Documents(w.ID, store.DocumentFilter{EraID: in.Era, DocumentType: in.DocumentType}, pg)
			if err != nil {
				return nil, nil, fail(err)
			}
			out := &Documents{Items: []Document{}, TotalItems: total, HasMore: pg.Page*pg.PerPage < total}
			for _, d := range ds {
				out.Items = append(out.Items, documentOut(d))
			}
			return nil, out, nil
		})

	sdk.AddTool(srv, &sdk.Tool{Name: "get_document", Title: "Read a document", Annotations: reads(),
		Description: "One document with its content, in the structured result (the text result is one line about it). By default the content is data, as the type stores it; fields [\"text\"] (or [\"data\",\"text\"]) adds its plain-text projection. " +
			"For a large document ask for a part: section (a card's section by id) or eventsPage/eventsPerPage (a page of a timeline's events); size is the whole content's size in bytes. " +
			"A viewer of the world gets a card without its secret sections; owners, admins and editors see them, marked secret. Needs the world on Pro or Studio."},
		s.getDocument)

	sdk.AddTool(srv, &sdk.Tool{Name: "get_links", Title: "Links and backlinks", Annotations: reads(), Description: "A document's links in an era: outgoing, the documents its text links to with [[…]] (status ok, broken when the target was deleted or is not in the era, unresolved when written by a name no single document has), " +
		"and incoming, the documents that link to it; each with the sentence around the link. The page selects a page of both lists. Links only secret sections hold are shown to owners, admins and editors only. " +
		"To link documents, write [[Name]] or [[Name|shown text]] in a section body, folder description or event description: a name exactly one document has is stored by id. Needs the world on Pro or Studio."},
		func(ctx context.Context, req *sdk.CallToolRequest, in DocumentPageIn) (*sdk.CallToolResult, *store.LinksJSON, error) {
			pg, err := in.page()
			if err != nil {
				return nil, nil, err
			}
			d, role, err := s.document(req, in.WorldID, in.DocumentID, in.Era, auth.ReadContent)
			if err != nil {
				return nil, nil, err
			}
			out, err := s.Store.LinksJSON(d, in.Era, store.CanEdit(role), pg)
			if err != nil {
				return nil, nil, fail(err)
			}
			return nil, &out, nil
		})

	sdk.AddTool(srv, &sdk.Tool{Name: "list_types", Title: "Document types and their operations", Annotations: reads(), Description: "Every document type a world accepts: the built-in ones, then those of the tools installed in it (the world's own types: each with its data schema), " +
		"each with its operations and their parameters as JSON Schema. Call it before apply_content_ops on a document whose type is not built in. Any member, every plan."},
		func(ctx context.Context, req *sdk.CallToolRequest, in WorldIn) (*sdk.CallToolResult, *Types, error) {
			w, _, err := s.world(req, in.WorldID, auth.ReadMeta)
			if err != nil {
				return nil, nil, err
			}
			l, err := api.WorldTypes(s.Store, w.ID)
			if err != nil {
				return nil, nil, fail(err)
			}
			out, err := typesOut(l)
			if err != nil {
				return nil, nil, fail(err)
			}
			return nil, out, nil
		})

	sdk.AddTool(srv, &sdk.Tool{Name: "create_document", Title: "Create a document", Annotations: adds(),
		InputSchema: inputSchema[CreateDocumentIn](map[string]*jsonschema.Schema{"documentType": openEnum("the document's type: a built-in one or an installed tool's", ops.Types())}), Description: "Create a document (its content starts empty; fill it with apply_content_ops). Editors only."},
		func(ctx context.Context, req *sdk.CallToolRequest, in CreateDocumentIn) (*sdk.CallToolResult, *Document, error) {
			w, _, err := s.world(req, in.WorldID, auth.Edit)
			if err != nil {
				return nil, nil, err
			}
			p, _ := principal(req)
			d, err := s.Store.CreateDocument(w.ID, in.Era, in.Name, in.DocumentType, in.ParentID, p.Actor())
			if err != nil {
				return nil, nil, fail(err)
			}
			out := documentOut(d)
			res, err := linked(out, d)
			return res, &out, err
		})

	// apply_content_ops publishes every op's own schema (ops.items is a oneOf keyed by "op")
	// but checks its arguments itself: the ops decoder names the bad value
	// (ops[0].clips[0].id) where a oneOf validator could only say that no branch matched, and
	// reads numbers exactly (a date beyond 2^53 ms survives).
	srv.AddTool(&sdk.Tool{Name: "apply_content_ops", Title: "Change a document's content", Annotations: changes(),
		Description: "Change a document's content with typed operations, applied in order, all or none; every accepted call is one new version that people watching see at once. " +
			"An operation the document's type does not support fails with unsupported_operation and the list of supported ones; a document whose tool was uninstalled fails with tool_not_installed. Needs the world on Pro or Studio; editors only. " +
			"A world may have more types than the built-in ones below, added by its installed tools: call list_types for their operations and parameters. Built-in operations by document type:" + opsCatalogue(),
		InputSchema: applyOpsSchema(), OutputSchema: outputSchema[OpsResult]()},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			out, d, err := s.applyOps(req)
			if err != nil {
				var res sdk.CallToolResult
				res.SetError(fail(err))
				return &res, nil
			}
			text, err := json.Marshal(out)
			if err != nil {
				return nil, err
			}
			return &sdk.CallToolResult{StructuredContent: out, Content: []sdk.Content{&sdk.TextContent{Text: string(text)}, resourceLink(d)}}, nil
		})

	sdk.AddTool(srv, &sdk.Tool{Name: "search", Title: "Search a world", Annotations: reads(),
		InputSchema: inputSchema[SearchIn](map[string]*jsonschema.Schema{"documentType": openEnum("only documents of this type", ops.Types())}), Description: "Full-text search over the names and content of one world's documents, best first, with highlighted snippets. The text of secret card sections is searched, and shown, only for the world's owners, admins and editors. Needs the world on Pro or Studio. While the search index is rebuilt after a failure, it fails with search_rebuilding: retry after retryAfter seconds."},
		func(ctx context.Context, req *sdk.CallToolRequest, in SearchIn) (*sdk.CallToolResult, *SearchOut, error) {
			w, role, err := s.world(req, in.WorldID, auth.ReadContent)
			if err != nil {
				return nil, nil, err
			}
			pg, err := in.page()
			if err != nil {
				return nil, nil, fail(err)
			}
			if _, err := s.Store.EraChain(w.ID, in.Era); err != nil {
				return nil, nil, fail(err)
			}
			res, err := s.Search.Search(search.Query{WorldID: w.ID, EraID: in.Era, Text: in.Q, DocumentType: in.DocumentType, Page: pg, Secrets: store.CanEdit(role)})
			if err != nil {
				return nil, nil, fail(err)
			}
			if res.Hits == nil {
				res.Hits = []search.Hit{}
			}
			return nil, &SearchOut{Items: res.Hits, TotalItems: res.Total, HasMore: pg.Page*pg.PerPage < res.Total}, nil
		})

	sdk.AddTool(srv, &sdk.Tool{Name: "list_eras", Title: "List eras", Annotations: reads(), Description: "The eras (versions) of a world."},
		worldList(s, s.Store.Eras, func(e store.Era) Era { return Era{ID: e.ID, Name: e.Name, ParentID: e.ParentID} }))

	sdk.AddTool(srv, &sdk.Tool{Name: "create_era", Title: "Create an era", Annotations: adds(), Description: "Fork an era: a version of the world that inherits everything by reference (copies nothing) and changes separately. Editors only."},
		func(ctx context.Context, req *sdk.CallToolRequest, in CreateEraIn) (*sdk.CallToolResult, *Era, error) {
			w, _, err := s.world(req, in.WorldID, auth.Edit)
			if err != nil {
				return nil, nil, err
			}
			e, err := s.Store.CreateEra(w.ID, in.Name, in.ParentID)
			if err != nil {
				return nil, nil, fail(err)
			}
			return nil, &Era{ID: e.ID, Name: e.Name, ParentID: e.ParentID}, nil
		})

	sdk.AddTool(srv, &sdk.Tool{Name: "list_projects", Title: "List projects", Annotations: reads(), Description: "The projects (app instances) of a world."},
		worldList(s, s.Store.Projects, func(p store.Project) Project { return Project{ID: p.ID, Kind: p.Kind, Name: p.Name} }))

	sdk.AddTool(srv, &sdk.Tool{Name: "create_project", Title: "Create a project", Annotations: adds(),
		InputSchema: inputSchema[CreateProjectIn](map[string]*jsonschema.Schema{"kind": openEnum("the app kind: a built-in one or an installed tool's", store.BuiltinAppKinds)}), Description: "Create a project (an app instance) of a known kind, e.g. wiki. Editors only."},
		func(ctx context.Context, req *sdk.CallToolRequest, in CreateProjectIn) (*sdk.CallToolResult, *Project, error) {
			w, _, err := s.world(req, in.WorldID, auth.Edit)
			if err != nil {
				return nil, nil, err
			}
			p, err := s.Store.CreateProject(w.ID, in.Kind, in.Name)
			if err != nil {
				return nil, nil, fail(err)
			}
			return nil, &Project{ID: p.ID, Kind: p.Kind, Name: p.Name}, nil
		})
}

// world checks access for a tool call.
func (s *Server) world(req sdk.Request, worldID string, need auth.Need) (store.World, string, error) {
	p, err := principal(req)
	if err != nil {
		return store.World{}, "", err
	}
	w, role, err := s.Access.World(p, worldID, need)
	if err != nil {
		return store.World{}, "", fail(err)
	}
	return w, role, nil
}

// document checks access and resolves a document visible in era; role is the caller's role
// in the world.
func (s *Server) document(req sdk.Request, worldID, docID, era string, need auth.Need) (d store.Document, role string, err error) {
	w, role, err := s.world(req, worldID, need)
	if err != nil {
		return store.Document{}, "", err
	}
	if _, err := s.Store.EraChain(w.ID, era); err != nil {
		return store.Document{}, "", fail(err)
	}
	d, err = s.Store.Document(w.ID, docID, era)
	if err != nil {
		return store.Document{}, "", fail(apierr.NotFound("document"))
	}
	return d, role, nil
}

// The hints a tool gives clients (MCP tool annotations), so they need not ask a person before
// every call: reads change nothing; adds create something new and remove nothing; changes
// (content ops, which may remove items) may destroy. None reaches outside the server.
func reads() *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
}

func adds() *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(false)}
}

func changes() *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(false)}
}

// List is a page of a world's list.
type List[J any] struct {
	Items      []J  `json:"items"`
	TotalItems int  `json:"totalItems"`
	HasMore    bool `json:"hasMore" jsonschema:"more items on later pages"`
}

// worldList is the handler of a tool that pages one of a world's lists (any member may).
func worldList[T, J any](s *Server, fetch func(worldID string, p store.Page) ([]T, int, error), view func(T) J) sdk.ToolHandlerFor[WorldPageIn, *List[J]] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in WorldPageIn) (*sdk.CallToolResult, *List[J], error) {
		w, _, err := s.world(req, in.WorldID, auth.ReadMeta)
		if err != nil {
			return nil, nil, err
		}
		pg, err := in.page()
		if err != nil {
			return nil, nil, fail(err)
		}
		rows, total, err := fetch(w.ID, pg)
		if err != nil {
			return nil, nil, fail(err)
		}
		out := &List[J]{Items: make([]J, 0, len(rows)), TotalItems: total, HasMore: pg.Page*pg.PerPage < total}
		for _, r := range rows {
			out.Items = append(out.Items, view(r))
		}
		return nil, out, nil
	}
}
