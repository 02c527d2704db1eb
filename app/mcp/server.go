// Package mcp is Loreweave's MCP connector: an MCP server (the official go-sdk, Streamable
// HTTP at /api/mcp) whose tools use the same store, rules and write path as the REST API,
// and the small OAuth 2.1 authorization server that lets MCP clients sign in without a key.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/ratelimit"
	"github.com/loreweave/loreweave/app/search"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// Path is where the MCP endpoint is mounted.
const Path = "/api/mcp"

// Server is the MCP connector.
type Server struct {
	Store  *store.Store
	Access auth.Access
	Keys   *auth.Keys
	OAuth  *auth.OAuth
	Search search.Searcher
	// BaseURL is this instance's public URL, without a trailing slash.
	BaseURL string
	// Version is reported to clients.
	Version string
	// AllowedOrigins are the web origins, besides this server's own, whose pages may call
	// the endpoint from a browser (LOREWEAVE_MCP_ALLOWED_ORIGINS); "*" allows any.
	AllowedOrigins []string
	// DefaultPlan is the plan of the worlds create_world makes (the server's setting).
	DefaultPlan string
	// KeyLimit and IPLimit bound requests per credential and per client address (shared
	// with the REST API).
	KeyLimit, IPLimit *ratelimit.Limiter
	// Streams admits every request, held open for as long as it lasts, under the caps of
	// streams per user and per client address shared with the event streams (live.Hub).
	Streams interface {
		Admit(userID, ip string) (release func(), err error)
	}

	mcp     *sdk.Server
	handler http.Handler
	limiter registrationLimiter

	mu     sync.Mutex
	active map[string]map[*activeRequest]struct{} // credential id -> requests in flight
}

type activeRequest struct{ cancel context.CancelFunc }

// Resource is the MCP endpoint's resource identifier (RFC 8707): tokens are bound to it.
func (s *Server) Resource() string { return s.BaseURL + Path }

// Resources are the resource indicators this server accepts on tokens: the MCP endpoint and
// the whole server (its origin).
func (s *Server) Resources() []string { return []string{s.Resource(), s.BaseURL} }

// Start builds the MCP server and begins watching for revocations.
func (s *Server) Start() error {
	if s.Version == "" {
		s.Version = "1"
	}
	s.active = map[string]map[*activeRequest]struct{}{}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "loreweave", Title: "Loreweave", Version: s.Version,
		Description: "A worldbuilding server: storytelling worlds of characters, places, timelines, maps and animated models, written together live.",
		WebsiteURL:  s.BaseURL,
		Icons:       []sdk.Icon{{Source: s.BaseURL + "/static/favicon.svg", MIMEType: "image/svg+xml", Sizes: []string{"any"}}},
	}, &sdk.ServerOptions{Instructions: instructions,
		SubscribeHandler: s.subscribe, UnsubscribeHandler: s.unsubscribe,
		// Exactly what is served: tools, document resources (subscribable), prompts. The
		// lists do not change while a client is connected, and the server sends no logs.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}, Resources: &sdk.ResourceCapabilities{Subscribe: true}, Prompts: &sdk.PromptCapabilities{}},
	})
	s.mcp.AddReceivingMiddleware(recoverPanics(s.Store.App().Logger()), uniformToolErrors, readOnlyGrants, s.listResources)
	s.addTools(s.mcp)
	s.addWorldTools(s.mcp)
	s.addMemberTools(s.mcp)
	s.addResources(s.mcp)
	s.addPrompts(s.mcp)
	host := ""
	if u, err := url.Parse(s.BaseURL); err == nil {
		host = u.Hostname()
	}
	streamable := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, &sdk.StreamableHTTPOptions{
		SessionTimeout: 30 * time.Minute,
		// The SDK refuses a non-loopback Host on a loopback listener (DNS rebinding). Behind a
		// reverse proxy the public name is configured as the base URL: allow it then.
		DisableLocalhostProtection: !isLoopback(host),
		MaxRequestBodyBytes:        maxBody,
	})
	// A session the server no longer has (it restarted, or the session idled out) is served
	// without one: the tools keep no session state, so a connected assistant carries on
	// instead of getting 404 and having to reconnect by hand (its subscriptions do not
	// survive: it subscribes again when it reconnects its stream).
	sessionless := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, &sdk.StreamableHTTPOptions{
		Stateless:                  true,
		DisableLocalhostProtection: !isLoopback(host),
		MaxRequestBodyBytes:        maxBody,
	})
	// authenticate (below) has verified the token by the time the SDK asks again.
	verified := func(ctx context.Context, token string, r *http.Request) (*sdkauth.TokenInfo, error) {
		if ti, ok := r.Context().Value(verifiedKey{}).(*sdkauth.TokenInfo); ok {
			return ti, nil
		}
		return s.verify(ctx, token, r)
	}
	bearer := sdkauth.RequireBearerToken(verified, &sdkauth.RequireBearerTokenOptions{
		ResourceMetadataURL:    s.BaseURL + "/.well-known/oauth-protected-resource" + Path,
		AllowMissingExpiration: true, // API keys never expire
	})
	limited := bearer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := sdkauth.TokenInfoFromContext(r.Context()).Extra["principal"].(auth.Principal)
		if ok, wait := s.KeyLimit.Allow(p.Kind + ":" + p.CredentialID + ":" + p.UserID); !ok {
			apierr.Write(w, r, nil, ratelimit.Error(wait))
			return
		}
		body, _ := r.Context().Value(bodyKey{}).([]byte)
		if err := checkBody(body); err != nil {
			apierr.Write(w, r, nil, err)
			return
		}
		release, err := s.Streams.Admit(p.UserID, clientIP(r))
		if err != nil {
			apierr.Write(w, r, nil, err)
			return
		}
		defer release()
		// Server-sent streams outlive PocketBase's 5-minute write timeout.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
		ctx, done := s.track(r)
		defer done()
		probe := &lostSession{ResponseWriter: w}
		streamable.ServeHTTP(probe, r.WithContext(ctx))
		if probe.lost && body != nil {
			again := r.WithContext(ctx)
			again.Body = io.NopCloser(bytes.NewReader(body))
			sessionless.ServeHTTP(w, again)
		}
	}))
	s.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Retry-After")
		if ok, wait := s.IPLimit.Allow(clientIP(r)); !ok {
			apierr.Write(w, r, nil, ratelimit.Error(wait))
			return
		}
		if origin := r.Header.Get("Origin"); !s.originAllowed(origin) {
			apierr.Write(w, r, nil, apierr.New(http.StatusForbidden, "origin_not_allowed",
				"requests from the web page at %s may not use this MCP endpoint; the operator can allow it with LOREWEAVE_MCP_ALLOWED_ORIGINS", origin))
			return
		}
		r, ok := s.authenticate(w, r)
		if !ok {
			return
		}
		body := readBody(r)
		r = r.WithContext(context.WithValue(r.Context(), bodyKey{}, body))
		rpc := &rpcErrors{ResponseWriter: w, id: requestID(body)}
		limited.ServeHTTP(rpc, r)
		rpc.finish()
	})

	s.Store.OnOutbox(s.onOutbox)
	return nil
}

// instructions tell an agent how to start.
const instructions = "Loreweave holds storytelling worlds. A world has documents of types: card (a character, place or thing: properties, aliases and titled Markdown sections, some secret), " +
	"timeline (dated events), map (an image with pins), folder (holds other documents), animator (a 3D model and its clips), and types its installed tools add. " +
	"Start with list_worlds (or create_world), then list_documents, search and get_document. Create documents with create_document and change their content only with apply_content_ops: " +
	"typed operations, all or none, each call one new version that people watching see at once; list_types gives every type's operations with their parameters as JSON Schema. " +
	"Rename, move and delete with update_document and delete_document; get_history reads a document's op log. " +
	"Eras (list_eras, create_era) are versions of a world that inherit everything and change separately: pass era to read or write in one; leave it out for the main line. " +
	"In Markdown text, link documents as [[doc:<documentId>]] or [[doc:<documentId>|shown text]] (or [[Name]], resolved when one document has that name); get_links lists a document's links and backlinks. " +
	"Errors are JSON objects with a stable code and a message that says what to do."

// maxBody is the largest MCP request body.
const maxBody = 2 << 20

// checkBody holds an MCP request's JSON (its body as readBody read it; nil for a request
// without one or over the limit, which the SDK answers as it does) to the rules of the REST
// API's bodies (apierr.DecodeJSON): UTF-8 without lone surrogate escapes, no duplicate
// members. The SDK decodes it with encoding/json, which would let both through.
func checkBody(data []byte) error {
	if data == nil {
		return nil
	}
	if problem := ops.CheckJSONText(data); problem != "" {
		return apierr.New(http.StatusBadRequest, "malformed_json", "%s", problem)
	}
	if !json.Valid(data) {
		return nil // the SDK answers these as it does
	}
	if field, problem := ops.CheckKeys(data, nil); problem != "" {
		return apierr.Field(field, "%s", problem)
	}
	return nil
}

// Stop ends every request in flight.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, reqs := range s.active {
		for r := range reqs {
			r.cancel()
		}
	}
}

type clientIPKey struct{}

// clientIP is the client address PocketBase resolved (it honours the trusted proxy headers
// configured in its settings), or the remote address without the port.
func clientIP(r *http.Request) string {
	if ip, ok := r.Context().Value(clientIPKey{}).(string); ok && ip != "" {
		return ip
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// verify accepts an API key or an OAuth access token bound to this server.
func (s *Server) verify(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	var p auth.Principal
	var exp time.Time
	var err error
	if strings.HasPrefix(token, auth.KeyPrefix) {
		p, err = s.Keys.Authenticate(token)
	} else {
		p, exp, err = s.OAuth.VerifyAccess(token, s.Resource())
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", sdkauth.ErrInvalidToken, err)
	}
	return &sdkauth.TokenInfo{UserID: p.UserID, Expiration: exp, Extra: map[string]any{"principal": p}}, nil
}

// track registers a request under its credential so that revoking the credential ends it.
func (s *Server) track(r *http.Request) (context.Context, func()) {
	ctx, cancel := context.WithCancel(r.Context())
	ti := sdkauth.TokenInfoFromContext(r.Context())
	p, _ := ti.Extra["principal"].(auth.Principal)
	a := &activeRequest{cancel: cancel}
	s.mu.Lock()
	if s.active[p.CredentialID] == nil {
		s.active[p.CredentialID] = map[*activeRequest]struct{}{}
	}
	s.active[p.CredentialID][a] = struct{}{}
	s.mu.Unlock()
	return ctx, func() {
		cancel()
		s.mu.Lock()
		delete(s.active[p.CredentialID], a)
		if len(s.active[p.CredentialID]) == 0 {
			delete(s.active, p.CredentialID)
		}
		s.mu.Unlock()
	}
}

// onOutbox ends the requests and streams of revoked keys and tokens; later requests with
// them are refused by the bearer check.
func (s *Server) onOutbox(rows []store.OutboxRow) {
	s.resourcesChanged(rows)
	for _, r := range rows {
		if r.Kind != "key.revoked" && r.Kind != "oauth.revoked" {
			continue
		}
		s.mu.Lock()
		for a := range s.active[r.Subject] {
			a.cancel()
		}
		s.mu.Unlock()
	}
}

// ServeHTTP serves the MCP endpoint.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// ProtectedResource returns the protected resource metadata (RFC 9728) for a resource.
func (s *Server) ProtectedResource(resource string) *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               resource,
		AuthorizationServers:   []string{s.BaseURL},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "Loreweave",
		ScopesSupported:        auth.Scopes,
		ResourceDocumentation:  s.BaseURL + "/api/v1/openapi.json",
	}
}
