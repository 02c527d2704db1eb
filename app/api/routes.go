// Package api serves Loreweave's public REST API under /api/v1: JSON in and out, bearer API
// keys (or the web session cookie for reads), one error shape, and an OpenAPI 3.1 document
// at /api/v1/openapi.json that tests hold every route to.
package api

import (
	"net/http"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/config"
	"github.com/loreweave/loreweave/app/live"
	"github.com/loreweave/loreweave/app/ratelimit"
	"github.com/loreweave/loreweave/app/search"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/app/webhooks"
	"github.com/loreweave/loreweave/ops"
)

// API holds what the handlers need.
type API struct {
	Store  *store.Store
	Access auth.Access
	Auth   *auth.Authenticator
	Config config.Config
	Search search.Searcher
	Live   *live.Hub
	// Webhooks registers and tests webhooks.
	Webhooks *webhooks.Service
	// KeyLimit and IPLimit bound requests per credential and per client address.
	KeyLimit, IPLimit *ratelimit.Limiter
	// Log, when set, logs the API's requests instead of PocketBase's activity logger.
	Log *RequestLog

	running runningKeys // idempotency keys whose first request is running
	turns   turns       // of turnRoutes (see admission.go)
}

// Route is one /api/v1 route: the whole URL surface is the Routes table below.
type Route struct {
	Method  string
	Path    string
	handler func(a *API, e *core.RequestEvent) error
}

// Routes lists every authenticated /api/v1 route. Tests walk it (OpenAPI coverage, the
// authorization matrix), so a route cannot be added without them noticing.
var Routes = []Route{
	{"GET", "/api/v1/me", (*API).me},
	{"GET", "/api/v1/worlds", (*API).listWorlds},
	{"POST", "/api/v1/worlds", (*API).createWorld},
	{"POST", "/api/v1/worlds/import", (*API).importWorld},
	{"GET", "/api/v1/worlds/{worldId}", (*API).getWorld},
	{"PATCH", "/api/v1/worlds/{worldId}", (*API).updateWorld},
	{"DELETE", "/api/v1/worlds/{worldId}", (*API).deleteWorld},
	{"POST", "/api/v1/worlds/{worldId}/restore", (*API).restoreWorld},
	{"GET", "/api/v1/trash", (*API).listTrash},
	{"GET", "/api/v1/worlds/{worldId}/export", (*API).exportWorld},
	{"GET", "/api/v1/worlds/{worldId}/members", (*API).listMembers},
	{"POST", "/api/v1/worlds/{worldId}/members", (*API).invite},
	{"PATCH", "/api/v1/worlds/{worldId}/members/{userId}", (*API).changeMember},
	{"DELETE", "/api/v1/worlds/{worldId}/members/{userId}", (*API).removeMember},
	{"GET", "/api/v1/worlds/{worldId}/invitations", (*API).listWorldInvitations},
	{"DELETE", "/api/v1/worlds/{worldId}/invitations/{invitationId}", (*API).revokeInvitation},
	{"GET", "/api/v1/invitations", (*API).myInvitations},
	{"POST", "/api/v1/invitations/{invitationId}/accept", (*API).acceptInvitation},
	{"POST", "/api/v1/invitations/{invitationId}/decline", (*API).declineInvitation},
	{"GET", "/api/v1/worlds/{worldId}/documents", (*API).listDocuments},
	{"POST", "/api/v1/worlds/{worldId}/documents", (*API).createDocument},
	{"GET", "/api/v1/worlds/{worldId}/documents/{documentId}", (*API).getDocument},
	{"PATCH", "/api/v1/worlds/{worldId}/documents/{documentId}", (*API).updateDocument},
	{"DELETE", "/api/v1/worlds/{worldId}/documents/{documentId}", (*API).deleteDocument},
	{"GET", "/api/v1/worlds/{worldId}/documents/{documentId}/ops", (*API).opLog},
	{"GET", "/api/v1/worlds/{worldId}/documents/{documentId}/links", (*API).documentLinks},
	{"POST", "/api/v1/worlds/{worldId}/documents/{documentId}/content", (*API).applyContentOps},
	{"POST", "/api/v1/worlds/{worldId}/documents/{documentId}/restore", (*API).restoreDocument},
	{"GET", "/api/v1/worlds/{worldId}/eras", (*API).listEras},
	{"POST", "/api/v1/worlds/{worldId}/eras", (*API).createEra},
	{"PATCH", "/api/v1/worlds/{worldId}/eras/{eraId}", (*API).renameEra},
	{"DELETE", "/api/v1/worlds/{worldId}/eras/{eraId}", (*API).deleteEra},
	{"GET", "/api/v1/worlds/{worldId}/projects", (*API).listProjects},
	{"POST", "/api/v1/worlds/{worldId}/projects", (*API).createProject},
	{"GET", "/api/v1/worlds/{worldId}/projects/{projectId}", (*API).getProject},
	{"PATCH", "/api/v1/worlds/{worldId}/projects/{projectId}", (*API).updateProject},
	{"DELETE", "/api/v1/worlds/{worldId}/projects/{projectId}", (*API).deleteProject},
	{"GET", "/api/v1/worlds/{worldId}/assets", (*API).listAssets},
	{"POST", "/api/v1/worlds/{worldId}/assets", (*API).uploadAsset},
	{"GET", "/api/v1/worlds/{worldId}/assets/{assetId}", (*API).getAsset},
	{"DELETE", "/api/v1/worlds/{worldId}/assets/{assetId}", (*API).deleteAsset},
	{"GET", "/api/v1/worlds/{worldId}/assets/{assetId}/file", (*API).assetFile},
	{"GET", "/api/v1/worlds/{worldId}/tools", (*API).listTools},
	{"POST", "/api/v1/worlds/{worldId}/tools", (*API).installTool},
	{"GET", "/api/v1/worlds/{worldId}/tools/{toolId}", (*API).getTool},
	{"DELETE", "/api/v1/worlds/{worldId}/tools/{toolId}", (*API).uninstallTool},
	{"GET", "/api/v1/worlds/{worldId}/types", (*API).listTypes},
	{"GET", "/api/v1/worlds/{worldId}/search", (*API).search},
	{"GET", "/api/v1/worlds/{worldId}/events", (*API).worldEvents},
	{"GET", "/api/v1/worlds/{worldId}/webhooks", (*API).listWebhooks},
	{"POST", "/api/v1/worlds/{worldId}/webhooks", (*API).createWebhook},
	{"GET", "/api/v1/worlds/{worldId}/webhooks/{webhookId}", (*API).getWebhook},
	{"PATCH", "/api/v1/worlds/{worldId}/webhooks/{webhookId}", (*API).updateWebhook},
	{"DELETE", "/api/v1/worlds/{worldId}/webhooks/{webhookId}", (*API).deleteWebhook},
	{"GET", "/api/v1/worlds/{worldId}/webhooks/{webhookId}/deliveries", (*API).listDeliveries},
	{"POST", "/api/v1/worlds/{worldId}/webhooks/{webhookId}/test", (*API).testWebhook},
	{"GET", "/api/v1/worlds/{worldId}/documents/{documentId}/events", (*API).documentEvents},
}

// Register mounts the API on the router.
func (a *API) Register(r *router.Router[*core.RequestEvent]) {
	r.GET("/api/v1/openapi.json", a.openAPI)

	g := r.Group("")
	if a.Log != nil {
		// The log wraps everything after it, refusals included (see RequestLog).
		g.Unbind(apis.DefaultActivityLoggerMiddlewareId)
		g.BindFunc(a.Log.middleware)
	}
	// Bodies are bounded by the API's own limits, which answer in its error shape: JSON bodies
	// by apierr.MaxBody, uploads by the upload limits (uploadAsset), archives by the import
	// limit (importWorld); PocketBase's 32 MiB limit answered a larger body in its own shape.
	g.Unbind(apis.DefaultBodyLimitMiddlewareId)
	g.BindFunc(a.limitIP, a.Auth.APIMiddleware, readOnlyGrants, a.limitKey, a.idempotency)
	a.turns = newTurns()
	for _, rt := range Routes {
		h := rt.handler
		takesTurn := turnRoutes[rt.Method+" "+rt.Path]
		g.Route(rt.Method, rt.Path, handle(func(e *core.RequestEvent) error {
			if err := checkEra(e); err != nil {
				return err
			}
			if takesTurn {
				return a.turns.run(e, func(e *core.RequestEvent) error { return h(a, e) })
			}
			return h(a, e)
		}))
	}
	// Anything else under /api/v1 answers in the API's own error shape.
	r.Any("/api/v1/{path...}", handle(func(e *core.RequestEvent) error {
		return apierr.New(http.StatusNotFound, "not_found", "no such endpoint: %s %s (see /api/v1/openapi.json)", ops.Echo(e.Request.Method), ops.Echo(e.Request.URL.Path))
	}))
}

// readOnlyGrants refuses every request but a read (GET, HEAD) to an OAuth token granted the
// read scope only.
func readOnlyGrants(e *core.RequestEvent) error {
	if m := e.Request.Method; m != http.MethodGet && m != http.MethodHead && auth.PrincipalOf(e).ReadOnly {
		apierr.Write(e.Response, e.Request, e.App.Logger(), auth.ErrReadOnly())
		return nil
	}
	return e.Next()
}

// checkEra refuses ?era= with no value: the main line is asked for by leaving the parameter
// out. A script whose era variable is unset would otherwise read, write or delete on the main
// line when it meant an era.
func checkEra(e *core.RequestEvent) error {
	if v, ok := e.Request.URL.Query()["era"]; ok && (len(v) != 1 || v[0] == "") {
		return apierr.Field("era", "era must be one era id; leave it out for the main line")
	}
	return nil
}

// limitIP refuses clients that send too many requests, before any credential is checked (so
// guessing keys is slow too).
func (a *API) limitIP(e *core.RequestEvent) error {
	if ok, wait := a.IPLimit.Allow(e.RealIP()); !ok {
		apierr.Write(e.Response, e.Request, e.App.Logger(), ratelimit.Error(wait))
		return nil
	}
	return e.Next()
}

// limitKey refuses a credential that sends too many requests.
func (a *API) limitKey(e *core.RequestEvent) error {
	p := auth.PrincipalOf(e)
	if ok, wait := a.KeyLimit.Allow(p.Kind + ":" + p.CredentialID + ":" + p.UserID); !ok {
		apierr.Write(e.Response, e.Request, e.App.Logger(), ratelimit.Error(wait))
		return nil
	}
	return e.Next()
}
