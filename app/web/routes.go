package web

import (
	"io/fs"
	"net/http"
	"strings"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/pocketbase/pocketbase/tools/router"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/config"
	"github.com/loreweave/loreweave/app/ratelimit"
	"github.com/loreweave/loreweave/static"
)

// Register mounts every page route. The whole web surface is this table.
func (w *Web) Register(r *router.Router[*core.RequestEvent]) {
	w.crossOrigin = http.NewCrossOriginProtection()
	w.signIns = newSignInLimits(w.Config)
	w.signups = ratelimit.NewWindow(w.Config.SignupRateLimit, config.SignupWindow)
	// PocketBase's own password sign-in for users counts against the sign-in form's limits.
	w.App.OnRecordAuthWithPasswordRequest("users", core.CollectionNameSuperusers).BindFunc(w.limitPasswordAuth)
	// So do its anonymous requests that send mail (password reset, verification, OTP).
	w.mailRequests = newSignInLimits(w.Config)
	r.BindFunc(w.limitMailRequests)
	w.useBaseURLInMails()

	// A signed-out session's token opens nothing on PocketBase's own API either.
	r.Bind(&hook.Handler[*core.RequestEvent]{Id: "lwEndedSessions", Priority: apis.DefaultLoadAuthTokenMiddlewarePriority + 1, Func: dropEndedSession})

	r.GET("/static/{path...}", serveStatic)
	r.GET("/favicon.ico", serveFavicon)
	// Published JSON Schemas (the tool manifest's), at addresses that do not change.
	r.GET("/schemas/{name}", serveSchema)

	g := r.Group("")
	g.BindFunc(w.middleware)
	g.GET("/{$}", w.home)
	g.GET("/signup", w.signupForm)
	g.POST("/signup", w.signup)
	g.GET("/login", w.loginForm)
	g.POST("/login", w.login)
	g.POST("/logout", w.logout)
	g.POST("/worlds", w.createWorld)
	g.GET("/w/{slug}", w.worldPage)
	g.GET("/w/{slug}/search", w.searchWorld)
	// The world's archive (a zip download; owners and admins).
	g.GET("/w/{slug}/export", w.exportWorld)
	g.GET("/w/{slug}/d/{id}", w.documentPage)
	g.GET("/w/{slug}/d/{id}/body", w.documentBody)
	g.GET("/w/{slug}/d/{id}/backlinks", w.documentBacklinks)
	// A link's preview: the start of the linked document, shown beside links (HTML fragment).
	g.GET("/w/{slug}/d/{id}/preview", w.documentPreview)
	// The card editor's writes: JSON, with the X-CSRF-Token header.
	g.POST("/w/{slug}/d/{id}/content", w.applyContentOps)
	g.POST("/w/{slug}/d/{id}/cursor", w.publishCursor)
	// A document's history: its versions, one version as it was, and restoring one (editors).
	g.GET("/w/{slug}/d/{id}/history", w.documentHistory)
	g.GET("/w/{slug}/d/{id}/v/{version}", w.documentVersion)
	g.POST("/w/{slug}/d/{id}/restore", w.restoreVersion)
	// Uploads from the map and animator editors (multipart, with the X-CSRF-Token header).
	g.POST("/w/{slug}/assets", w.uploadAsset)
	// Reads a date as written, for the timeline editor's preview (JSON).
	g.GET("/dates", w.readDate)
	// Organising a world (editors; every POST passes the CSRF check in middleware). Each
	// takes ?era= like the REST API: the change is made in the era shown.
	g.POST("/w/{slug}/documents", w.createDocument)
	g.GET("/w/{slug}/d/{id}/rename", w.renameDocumentForm)
	g.POST("/w/{slug}/d/{id}/rename", w.renameDocument)
	g.GET("/w/{slug}/d/{id}/move", w.moveDocumentForm)
	g.POST("/w/{slug}/d/{id}/move", w.moveDocument)
	g.GET("/w/{slug}/d/{id}/delete", w.deleteDocumentForm)
	g.POST("/w/{slug}/d/{id}/delete", w.deleteDocument)
	g.POST("/w/{slug}/eras", w.createEra)
	g.POST("/w/{slug}/projects", w.createProject)
	g.GET("/w/{slug}/p/{id}", w.appProject)
	g.GET("/w/{slug}/projects/{id}", w.projectSettings)
	g.POST("/w/{slug}/projects/{id}", w.saveProject)
	g.POST("/w/{slug}/projects/{id}/delete", w.deleteProject)
	// World settings (owner and admins): name and genre, eras; the owner deletes the world
	// to the trash, restored from the worlds page.
	g.GET("/w/{slug}/settings", w.worldSettings)
	g.POST("/w/{slug}/settings", w.saveWorldSettings)
	g.POST("/w/{slug}/settings/eras/{id}", w.renameEra)
	g.POST("/w/{slug}/settings/eras/{id}/delete", w.deleteEra)
	g.POST("/w/{slug}/settings/delete", w.deleteWorld)
	g.POST("/trash/{id}/restore", w.restoreWorld)
	// Members (members.go): anyone reads the list and may leave; managers invite, change
	// roles, remove and revoke; the owner passes ownership on. Invitations are answered from
	// the worlds page.
	g.GET("/w/{slug}/members", w.membersPage)
	g.POST("/w/{slug}/members", w.inviteMember)
	g.POST("/w/{slug}/members/transfer", w.transferOwnership)
	g.POST("/w/{slug}/members/{userId}/role", w.changeMemberRole)
	g.POST("/w/{slug}/members/{userId}/remove", w.removeMember)
	g.POST("/w/{slug}/invitations/{id}/revoke", w.revokeInvitation)
	g.POST("/invitations/{id}/accept", w.answerInvitation(true))
	g.POST("/invitations/{id}/decline", w.answerInvitation(false))
	// A world's webhooks (owner or admin; webhooks.go).
	g.GET("/w/{slug}/webhooks", w.webhooksPage)
	g.POST("/w/{slug}/webhooks", w.createWebhook)
	g.POST("/w/{slug}/webhooks/{id}", w.saveWebhook)
	g.POST("/w/{slug}/webhooks/{id}/enabled", w.setWebhookEnabled)
	g.POST("/w/{slug}/webhooks/{id}/rotate", w.rotateWebhookSecret)
	g.POST("/w/{slug}/webhooks/{id}/test", w.testWebhook)
	g.POST("/w/{slug}/webhooks/{id}/delete", w.deleteWebhook)
	g.GET("/settings/api-keys", w.apiKeys)
	g.POST("/settings/api-keys", w.createAPIKey)
	g.POST("/settings/api-keys/{id}/revoke", w.revokeAPIKey)
	// The account: name, email, password, deleting it (account_settings.go); the links of
	// its mails, and a forgotten password (password_reset.go).
	g.GET("/settings/account", w.accountPage)
	g.POST("/settings/account/name", w.saveAccountName)
	g.POST("/settings/account/email", w.changeEmail)
	g.POST("/settings/account/password", w.changePassword)
	g.POST("/settings/account/delete", w.deleteAccount)
	g.GET("/confirm-email", w.confirmEmailForm)
	g.POST("/confirm-email", w.confirmEmail)
	g.GET("/forgot-password", w.forgotPasswordForm)
	g.POST("/forgot-password", w.forgotPassword)
	g.GET("/reset-password", w.resetPasswordForm)
	g.POST("/reset-password", w.resetPassword)
	g.GET("/settings/apps", w.appsPage)
	g.POST("/settings/apps/{clientId}/revoke", w.revokeApp)
	g.GET("/oauth/authorize", w.authorizeForm)
	g.POST("/oauth/authorize", w.authorizeDecision)

	// Wikis: a world's published, read-only site (wiki.go). Their own middleware: no CSRF
	// cookie, so that a public page is one response for everyone.
	wk := r.Group("")
	wk.BindFunc(w.wikiMiddleware)
	wk.GET("/wiki/{slug}", w.wikiSlash)
	wk.GET("/wiki/{slug}/{$}", w.wikiHome)
	wk.GET("/wiki/{slug}/d/{id}", w.wikiDocument)
	wk.GET("/wiki/{slug}/search", w.wikiSearch)
	wk.GET("/wiki/{slug}/files/{assetId}", w.wikiFile)

	// Any other address. The most specific pattern wins, so PocketBase's /api/ and /_/ routes
	// still answer what they know; this replaces PocketBase's own catch-all.
	r.Route("", "/", w.unknownAddress).BindFunc(w.unknownAddressMiddleware)
}

// dropEndedSession forgets the auth record PocketBase loaded from an Authorization header
// that carries a signed-out session token.
func dropEndedSession(e *core.RequestEvent) error {
	if e.Auth != nil {
		token := e.Request.Header.Get("Authorization")
		if len(token) > 7 && strings.EqualFold(token[:7], "Bearer ") {
			token = token[7:]
		}
		if auth.SessionEnded(e.App, token) {
			e.Auth = nil
		}
	}
	return e.Next()
}

// serveFavicon answers /favicon.ico, which browsers ask for on their own, with the pages'
// SVG icon.
func serveFavicon(e *core.RequestEvent) error {
	e.Request.SetPathValue("path", "favicon.svg")
	return serveStatic(e)
}

// serveSchema answers /schemas/NAME with static/schemas/NAME as application/schema+json
// (docs/TOOLS.md names /schemas/tool.schema.json as the manifest's schema).
func serveSchema(e *core.RequestEvent) error {
	name := e.Request.PathValue("name")
	data, err := static.Files.ReadFile("schemas/" + name)
	if err != nil || !strings.HasSuffix(name, ".schema.json") {
		return e.String(http.StatusNotFound, "not found")
	}
	h := e.Response.Header()
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Access-Control-Allow-Origin", "*")
	return e.Blob(http.StatusOK, "application/schema+json", data)
}

var staticFS = http.FileServerFS(static.Files)

// serveStatic serves embedded assets; URLs carry a content hash, so they cache for a year.
func serveStatic(e *core.RequestEvent) error {
	path := e.Request.PathValue("path")
	if _, err := fs.Stat(static.Files, path); err != nil || path == "" {
		return e.String(http.StatusNotFound, "not found")
	}
	h := e.Response.Header()
	if e.Request.URL.Query().Get("v") != "" {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=300")
	}
	h.Set("X-Content-Type-Options", "nosniff")
	r := e.Request.Clone(e.Request.Context())
	r.URL.Path = "/" + path
	staticFS.ServeHTTP(e.Response, r)
	return nil
}
