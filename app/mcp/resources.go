package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// Documents are resources: loreweave://worlds/{worldId}/documents/{documentId} is a document
// on its world's main line, as JSON (the document, its version, data and text). resources/list
// lists the caller's documents world by world, resources/read reads one with the caller's
// rights (a viewer gets a card without its secret sections), and resources/subscribe sends
// notifications/resources/updated whenever the document changes.
const documentTemplate = "loreweave://worlds/{worldId}/documents/{documentId}"

// resourcesPerPage is how many documents one resources/list page holds at most.
const resourcesPerPage = 100

func documentURI(worldID, docID string) string {
	return "loreweave://worlds/" + worldID + "/documents/" + docID
}

// parseDocumentURI reads a document resource's URI.
func parseDocumentURI(uri string) (worldID, docID string, ok bool) {
	rest, ok := strings.CutPrefix(uri, "loreweave://worlds/")
	if !ok {
		return "", "", false
	}
	worldID, docID, ok = strings.Cut(rest, "/documents/")
	if !ok || worldID == "" || docID == "" || strings.ContainsAny(worldID+docID, "/?#") {
		return "", "", false
	}
	return worldID, docID, true
}

// resourceLink points a tool's result at the document resource it touched.
func resourceLink(d store.Document) *sdk.ResourceLink {
	return &sdk.ResourceLink{URI: documentURI(d.WorldID, d.ID), Name: d.Name, Description: "the " + d.DocumentType + " as a resource (read it, or subscribe to its changes)", MIMEType: "application/json"}
}

// linked is a tool result whose text content is out as JSON, followed by links to the
// resources it touched.
func linked(out any, docs ...store.Document) (*sdk.CallToolResult, error) {
	data, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(data)}}}
	for _, d := range docs {
		res.Content = append(res.Content, resourceLink(d))
	}
	return res, nil
}

func (s *Server) addResources(srv *sdk.Server) {
	srv.AddResourceTemplate(&sdk.ResourceTemplate{Name: "document", Title: "A document", URITemplate: documentTemplate, MIMEType: "application/json",
		Description: "A document on its world's main line: {document, version, source, data, text}. Subscribe to hear when it changes."},
		s.readResource)
}

// DocumentResource is what reading a document resource gives.
type DocumentResource struct {
	Document Document       `json:"document"`
	WorldID  string         `json:"worldId"`
	Version  int64          `json:"version"`
	Source   string         `json:"source"`
	Data     map[string]any `json:"data"`
	Text     string         `json:"text"`
}

func (s *Server) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	d, role, err := s.resourceDocument(req, uri)
	if err != nil {
		return nil, err
	}
	c, err := s.Store.Content(d, "")
	if err != nil {
		return nil, resourceError(uri, err)
	}
	if !store.CanEdit(role) {
		c = c.Public(d) // viewers never see secret sections
	}
	body, err := json.Marshal(DocumentResource{Document: documentOut(d), WorldID: d.WorldID, Version: c.Version, Source: c.Source, Data: objects(c.Data)[0], Text: c.Text})
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(body)}}}, nil
}

// resourceDocument resolves a document resource for the caller, who must be able to read
// its content.
func (s *Server) resourceDocument(req sdk.Request, uri string) (store.Document, string, error) {
	worldID, docID, ok := parseDocumentURI(uri)
	if !ok {
		return store.Document{}, "", sdk.ResourceNotFoundError(uri)
	}
	d, role, err := s.document(req, worldID, docID, "", auth.ReadContent)
	if err != nil {
		return store.Document{}, "", resourceError(uri, err)
	}
	return d, role, nil
}

// resourceError is a JSON-RPC error for a resource request: not found as MCP says (-32002),
// anything else with Loreweave's error object as its data.
func resourceError(uri string, err error) error {
	e := apierr.From(err)
	if e.Status == http.StatusNotFound {
		return sdk.ResourceNotFoundError(uri)
	}
	data, _ := json.Marshal(e.Body()) // strings and numbers: cannot fail
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: e.Message, Data: data}
}

// listResources answers resources/list with the caller's documents: one world's page at a
// time, the worlds in the order list_worlds gives them (those whose content they may read).
// The cursor is the world's id and the page.
func (s *Server) listResources(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method != "resources/list" {
			return next(ctx, method, req)
		}
		p, err := principal(req)
		if err != nil {
			return nil, err
		}
		var cursor string
		if params, ok := req.GetParams().(*sdk.ListResourcesParams); ok && params != nil {
			cursor = params.Cursor
		}
		startWorld, page := "", 1
		if cursor != "" {
			raw, err := base64.RawURLEncoding.DecodeString(cursor)
			w, n, ok := strings.Cut(string(raw), "/")
			page, _ = strconv.Atoi(n)
			if err != nil || !ok || page < 1 {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor: pass the nextCursor of the previous page"}
			}
			startWorld = w
		}
		worlds, err := s.readableWorlds(p)
		if err != nil {
			return nil, err
		}
		res := &sdk.ListResourcesResult{Resources: []*sdk.Resource{}}
		started := startWorld == ""
		for i, w := range worlds {
			if !started {
				if w.ID != startWorld {
					continue
				}
				started = true
			} else {
				page = 1
			}
			docs, total, err := s.Store.Documents(w.ID, store.DocumentFilter{}, store.Page{Page: page, PerPage: resourcesPerPage})
			if err != nil {
				return nil, err
			}
			for _, d := range docs {
				res.Resources = append(res.Resources, &sdk.Resource{URI: documentURI(w.ID, d.ID), Name: d.Name, Title: d.Name,
					Description: "a " + d.DocumentType + " in " + w.Name, MIMEType: "application/json"})
			}
			switch {
			case page*resourcesPerPage < total:
				res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(w.ID + "/" + strconv.Itoa(page+1)))
			case i+1 < len(worlds):
				res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(worlds[i+1].ID + "/1"))
			}
			if len(res.Resources) > 0 || res.NextCursor == "" {
				return res, nil
			}
		}
		return res, nil
	}
}

// readableWorlds are the caller's worlds whose content they may read (the content plans).
func (s *Server) readableWorlds(p auth.Principal) ([]store.World, error) {
	var out []store.World
	for page := 1; ; page++ {
		ws, total, err := s.Store.WorldsOf(p.UserID, store.Page{Page: page, PerPage: 100})
		if err != nil {
			return nil, err
		}
		for _, w := range ws {
			if _, _, err := s.Access.World(p, w.ID, auth.ReadContent); err == nil {
				out = append(out, w.World)
			}
		}
		if page*100 >= total {
			return out, nil
		}
	}
}

// subscribe lets a client hear about a document it may read.
func (s *Server) subscribe(ctx context.Context, req *sdk.SubscribeRequest) error {
	_, _, err := s.resourceDocument(req, req.Params.URI)
	return err
}

func (s *Server) unsubscribe(context.Context, *sdk.UnsubscribeRequest) error { return nil }

// resourcesChanged tells subscribers of main-line documents that changed.
func (s *Server) resourcesChanged(rows []store.OutboxRow) {
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Document == "" || r.Era != "" || !strings.HasPrefix(r.Kind, "document.") {
			continue
		}
		uri := documentURI(r.World, r.Document)
		if !seen[uri] {
			seen[uri] = true
			_ = s.mcp.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
}
