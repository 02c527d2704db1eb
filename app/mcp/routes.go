package mcp

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

// Register mounts the MCP endpoint, the discovery documents and the authorization server's
// machine endpoints. The whole surface:
//
//	/api/mcp                                       MCP, Streamable HTTP (bearer: API key or access token)
//	/.well-known/oauth-protected-resource/api/mcp  RFC 9728, resource = <base>/api/mcp
//	/.well-known/oauth-protected-resource          RFC 9728, resource = <base>
//	/.well-known/oauth-authorization-server        RFC 8414
//	/oauth/register                                RFC 7591 (JSON)
//	/oauth/token                                   RFC 6749 (form)
//	/oauth/revoke                                  RFC 7009 (form)
//	/oauth/authorize                               consent page: app/web
func (s *Server) Register(r *router.Router[*core.RequestEvent]) {
	serve := func(e *core.RequestEvent) error {
		s.ServeHTTP(e.Response, e.Request.WithContext(context.WithValue(e.Request.Context(), clientIPKey{}, e.RealIP())))
		return nil
	}
	// A body over maxBody is refused by the endpoint itself (PocketBase's own 32 MiB limit
	// would answer a larger one in PocketBase's error shape).
	r.Any(Path, serve).Unbind(apis.DefaultBodyLimitMiddlewareId)
	r.Any(Path+"/{$}", serve).Unbind(apis.DefaultBodyLimitMiddlewareId) // /api/mcp/ is the same endpoint
	r.GET("/.well-known/oauth-protected-resource"+Path, std(auth.ProtectedResourceMetadataHandler(s.ProtectedResource(s.Resource()))))
	r.GET("/.well-known/oauth-protected-resource", std(auth.ProtectedResourceMetadataHandler(s.ProtectedResource(s.BaseURL))))
	r.GET("/.well-known/oauth-authorization-server", std(http.HandlerFunc(s.serveAuthServerMetadata)))
	r.POST("/oauth/register", func(e *core.RequestEvent) error {
		s.register(e.Response, e.Request, e.RealIP())
		return nil
	})
	r.POST("/oauth/token", std(http.HandlerFunc(s.token)))
	r.POST("/oauth/revoke", std(http.HandlerFunc(s.revoke)))
}

func std(h http.Handler) func(e *core.RequestEvent) error {
	return func(e *core.RequestEvent) error {
		h.ServeHTTP(e.Response, e.Request)
		return nil
	}
}
