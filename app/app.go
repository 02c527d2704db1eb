// Package app wires Loreweave into a PocketBase app: the store, authentication, the REST API,
// the web pages and their background work. main.go and the test harness both call Setup, so
// tests run exactly what users run.
package app

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/config"
	"github.com/loreweave/loreweave/app/live"
	"github.com/loreweave/loreweave/app/mcp"
	"github.com/loreweave/loreweave/app/ratelimit"
	"github.com/loreweave/loreweave/app/search"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/app/web"
	"github.com/loreweave/loreweave/app/webhooks"
	"github.com/loreweave/loreweave/ops"

	_ "github.com/loreweave/loreweave/pb_migrations" // collections
)

// Loreweave is one wired instance.
type Loreweave struct {
	PB     core.App
	Config config.Config
	Store  *store.Store
	Keys   *auth.Keys
	Auth   *auth.Authenticator
	Live   *live.Hub
	OAuth  *auth.OAuth
	MCP    *mcp.Server
	// Search keeps the search index in step with the database while the server runs, and
	// rebuilds it should it fail.
	Search *search.Indexer
	// Webhooks registers webhooks and delivers the outbox to them.
	Webhooks *webhooks.Service
}

// Setup installs Loreweave into pb. Routes and workers start when pb serves.
func Setup(pb core.App, cfg config.Config) *Loreweave {
	lw := &Loreweave{PB: pb, Config: cfg, Store: store.New(pb), Keys: auth.NewKeys(pb)}
	lw.Store.DefaultPlan = cfg.DefaultPlan
	lw.Keys.Watch(lw.Store)
	lw.MCP = &mcp.Server{Store: lw.Store, Keys: lw.Keys}
	lw.OAuth = &auth.OAuth{App: pb, Resources: lw.MCP.Resources}
	lw.Auth = &auth.Authenticator{App: pb, Keys: lw.Keys, Tokens: lw.OAuth}
	access := auth.Access{Store: lw.Store}
	lw.MCP.Access, lw.MCP.OAuth = access, lw.OAuth
	lw.Live = live.New(lw.Store, access, lw.Keys)
	lw.Live.MaxStreamsPerAddress = cfg.StreamIPLimit
	lw.Webhooks = webhooks.New(lw.Store, cfg)
	lw.MCP.Streams = lw.Live

	// The search index is derived data: backups leave it out (a copy taken mid-write could be
	// torn), and a failed one set aside, and the server rebuilds it from the database when it
	// starts without one.
	pb.OnBackupCreate().BindFunc(func(e *core.BackupEvent) error {
		e.Exclude = append(e.Exclude, searchDir)
		aside, _ := filepath.Glob(SearchPath(pb) + ".broken-*")
		for _, p := range aside {
			e.Exclude = append(e.Exclude, filepath.Base(p))
		}
		return e.Next()
	})

	var requestLog *api.RequestLog
	pb.OnServe().BindFunc(func(se *core.ServeEvent) error {
		if lw.Config.BaseURL == "" {
			lw.Config.BaseURL = baseURL(se.Server.Addr)
		}
		// Slow clients may not hold connections open for free: headers must arrive within
		// 10 s and idle keep-alive connections close after 2 minutes. Event streams are in
		// flight, not idle, and clear their own write deadlines.
		se.Server.ReadHeaderTimeout = 10 * time.Second
		se.Server.IdleTimeout = 2 * time.Minute
		applyMemoryLimit(lw.Config.MemoryLimit, pb.Logger())
		if err := lw.Store.Start(); err != nil {
			return err
		}
		if err := lw.Live.Start(); err != nil {
			return err
		}
		lw.Webhooks.Start()
		// PocketBase's realtime stream stays (the dashboard signs superusers in with OAuth2
		// through it) but counts against the per-address cap like every stream.
		se.Router.BindFunc(lw.Live.LimitRealtime)
		lw.Search = &search.Indexer{Path: SearchPath(pb), Store: lw.Store}
		if err := lw.Search.Start(); err != nil {
			return err
		}
		searcher := search.Searcher{Indexer: lw.Search, Store: lw.Store}
		keyLimit, ipLimit := ratelimit.New(lw.Config.KeyRateLimit), ratelimit.New(lw.Config.IPRateLimit)
		a := &api.API{Store: lw.Store, Access: access, Auth: lw.Auth, Config: lw.Config, Search: searcher, Live: lw.Live, KeyLimit: keyLimit, IPLimit: ipLimit, Webhooks: lw.Webhooks}
		if !pb.IsDev() { // --dev keeps PocketBase's logger, which also prints each request
			a.Log = api.NewRequestLog(pb)
			requestLog = a.Log
		}
		a.Register(se.Router)
		lw.MCP.BaseURL, lw.MCP.Search, lw.MCP.KeyLimit, lw.MCP.IPLimit = lw.Config.BaseURL, searcher, keyLimit, ipLimit
		lw.MCP.AllowedOrigins, lw.MCP.DefaultPlan = lw.Config.MCPAllowedOrigins, lw.Config.DefaultPlan
		if err := lw.MCP.Start(); err != nil {
			return err
		}
		lw.MCP.LimitRegistrations(ratelimit.NewWindow(lw.Config.SignupRateLimit, config.SignupWindow))
		lw.MCP.Register(se.Router)
		w := &web.Web{App: pb, Store: lw.Store, Keys: lw.Keys, Access: access, Config: lw.Config, OAuth: lw.OAuth, Search: searcher, Live: lw.Live, Webhooks: lw.Webhooks}
		w.Register(se.Router)
		if err := se.Next(); err != nil { // builds the handler; the server starts serving after
			return err
		}
		se.Server.Handler = oddSegments(se.Server.Handler)
		return nil
	})
	// Stream clients are told to reconnect before PocketBase's graceful shutdown (priority
	// -9999) closes their connections; the store stops after in-flight writes finished.
	pb.OnTerminate().Bind(&hook.Handler[*core.TerminateEvent]{Priority: -10000, Func: func(te *core.TerminateEvent) error {
		lw.Live.Stop()
		lw.MCP.Stop()
		return te.Next()
	}})
	pb.OnTerminate().BindFunc(func(te *core.TerminateEvent) error {
		if requestLog != nil {
			requestLog.Stop()
		}
		if lw.Search != nil {
			lw.Search.Stop()
		}
		lw.Webhooks.Stop()
		lw.Store.Stop()
		return te.Next()
	})
	return lw
}

// oddSegments answers an API path with an empty segment ("/api/v1/worlds//export", a
// script's unset variable) or a dot segment ("/api/v1/./worlds", "/api/v1/x/../worlds") 404
// in the API's error shape, with the headers of the API's other answers; Go's router would
// redirect it to another endpoint ("/api/v1/worlds/export"), and a client that follows
// redirects would take that endpoint's answer for the one it asked for.
func oddSegments(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if !strings.HasPrefix(p, "/api/") || !strings.Contains(p, "//") && !hasDotSegment(p) {
			next.ServeHTTP(w, r)
			return
		}
		// What PocketBase's security headers and CORS middlewares (its defaults, which the
		// API keeps) add to every answer; this one is written before they run.
		h := w.Header()
		h.Set("X-XSS-Protection", "1; mode=block")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "SAMEORIGIN")
		h.Add("Vary", "Origin")
		if r.Header.Get("Origin") != "" {
			h.Set("Access-Control-Allow-Origin", "*")
		}
		apierr.Write(w, r, nil, apierr.New(http.StatusNotFound, "not_found",
			"no such endpoint: %s %s has an empty or dot path segment (an unset variable?)", ops.Echo(r.Method), ops.Echo(p)))
	})
}

// hasDotSegment reports whether path has a "." or ".." segment.
func hasDotSegment(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

const searchDir = "search.bleve"

// SearchPath is where the search index lives: search.bleve in the data directory.
func SearchPath(pb core.App) string { return filepath.Join(pb.DataDir(), searchDir) }

// baseURL derives the public URL from a listen address ("0.0.0.0:8090" -> localhost).
func baseURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://127.0.0.1:8090"
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// Announce tells a first-time operator how to create the first account.
func (lw *Loreweave) Announce() {
	if msg := lw.Announcement(); msg != "" {
		fmt.Printf("\n%s\n\n", msg)
	}
}

// Announcement is what Announce prints: where to sign up, or, with sign-up closed, the
// command that creates an account. It is empty once an account exists.
func (lw *Loreweave) Announcement() string {
	n, err := lw.PB.CountRecords("users")
	if err != nil || n > 0 {
		return ""
	}
	if !lw.Config.SignupOpen() {
		return fmt.Sprintf("No accounts yet, and sign-up is closed. Create yours with:\n  loreweave users create --dir %q --email you@example.com --name You   (it asks for the password)",
			lw.PB.DataDir())
	}
	return fmt.Sprintf("No accounts yet. Create yours at %s/signup", strings.TrimRight(lw.Config.BaseURL, "/"))
}
