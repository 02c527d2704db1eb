package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/config"
)

// unlimited is the per-minute rate limit, and the cap of streams per address, of the bench's
// servers: high enough never to trip.
const unlimited = 1 << 30

// server is a real Loreweave instance running in this process, wired exactly as
// `loreweave serve` wires it (the same approach as app/apptest, which needs a testing.TB).
type server struct {
	URL  string
	PB   core.App
	LW   *app.Loreweave
	Dir  string
	done chan error
	// keepDir leaves Dir in place on stop (a cached instance, not a temp one).
	keepDir bool
}

// serverOptions change how a server starts.
type serverOptions struct {
	// requestLog keeps PocketBase's request log on (Logs.MaxDays = 5, its default) or off
	// (MaxDays = 0). It is one app setting, so it applies to /api/v1 (written by
	// api.RequestLog) and to PocketBase's own /api/collections routes (its activity logger)
	// alike.
	requestLog bool
	// memoryLimit is the server's config.Config.MemoryLimit (0: the default).
	memoryLimit int64
	// beforeServe runs after migrations and app.Setup, before the server (and with it the
	// search indexer's start-up reconcile) starts: the place to seed data the reconcile must see.
	beforeServe func(s *server) error
	// addr is the address to listen on (default a free loopback port).
	addr string
}

// startServer boots a fresh app in a new temp data dir and serves it on a loopback port.
func startServer(opts serverOptions) (s *server, err error) {
	dir, err := os.MkdirTemp("", "lwbench-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	return serveDir(dir, opts)
}

// serveDir boots the app on the data dir dir (new or existing) and serves it.
func serveDir(dir string, opts serverOptions) (s *server, err error) {
	pb := core.NewBaseApp(core.BaseAppConfig{DataDir: dir})
	if err := pb.Bootstrap(); err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	// apis.Serve would run them too; seeding before serve needs the tables now.
	if err := pb.RunAllMigrations(); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	if opts.addr == "" {
		opts.addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return nil, err
	}
	cfg := config.Default()
	cfg.BaseURL = "http://" + ln.Addr().String()
	// The limiters stay on, so their cost is measured, with limits no bench reaches.
	cfg.KeyRateLimit, cfg.IPRateLimit, cfg.StreamIPLimit = unlimited, unlimited, unlimited
	cfg.MemoryLimit = opts.memoryLimit
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	lw := app.Setup(pb, cfg)
	pb.OnServe().BindFunc(func(se *core.ServeEvent) error {
		se.Listener = ln
		se.InstallerFunc = nil
		return se.Next()
	})
	if opts.requestLog {
		pb.Settings().Logs.MaxDays = 5
	} else {
		pb.Settings().Logs.MaxDays = 0
	}
	s = &server{URL: cfg.BaseURL, PB: pb, LW: lw, Dir: dir, done: make(chan error, 1)}
	if opts.beforeServe != nil {
		if err := opts.beforeServe(s); err != nil {
			return nil, err
		}
	}
	go func() { s.done <- apis.Serve(pb, apis.ServeConfig{HttpAddr: ln.Addr().String()}) }()

	deadline := time.Now().Add(5 * time.Minute)
	for {
		res, err := http.Get(s.URL + "/api/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case err := <-s.done:
			return nil, fmt.Errorf("server stopped: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("server did not start: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop terminates the server as SIGTERM would and removes its data dir.
func (s *server) stop() {
	if s == nil || !s.PB.IsBootstrapped() {
		return
	}
	ev := &core.TerminateEvent{App: s.PB}
	_ = s.PB.OnTerminate().Trigger(ev, func(e *core.TerminateEvent) error { return e.App.ResetBootstrapState() })
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		logf("warning: server did not stop within 15s")
	}
	if !s.keepDir {
		_ = os.RemoveAll(s.Dir)
	}
}

// benchUser is the account the bench acts as: an API key for /api/v1 and a PocketBase auth
// token for PocketBase's own records API.
type benchUser struct {
	ID      string
	Key     string
	PBToken string
}

func (s *server) newUser(name string) (benchUser, error) {
	u, err := auth.CreateUser(s.PB, name+"@bench.test", "correct horse battery", name)
	if err != nil {
		return benchUser{}, fmt.Errorf("create user: %w", err)
	}
	key, _, err := s.LW.Keys.Create(u.Id, "bench")
	if err != nil {
		return benchUser{}, fmt.Errorf("create key: %w", err)
	}
	tok, err := u.NewAuthToken()
	if err != nil {
		return benchUser{}, fmt.Errorf("auth token: %w", err)
	}
	return benchUser{ID: u.Id, Key: key, PBToken: tok}, nil
}

// benchCollection is the PocketBase collection the baselines use: a name and a JSON field,
// every rule "signed in" (a non-empty rule, so PocketBase evaluates it on every request).
const benchCollection = "bench_records"

func (s *server) createBenchCollection() error {
	c := core.NewBaseCollection(benchCollection)
	rule := `@request.auth.id != ""`
	c.ListRule, c.ViewRule, c.CreateRule, c.UpdateRule, c.DeleteRule = &rule, &rule, &rule, &rule, &rule
	c.Fields.Add(
		&core.TextField{Name: "name", Max: 200},
		&core.JSONField{Name: "data"},
		&core.AutodateField{Name: "created", OnCreate: true},
		&core.AutodateField{Name: "updated", OnCreate: true, OnUpdate: true},
	)
	return s.PB.Save(c)
}

// createBenchRecords makes n records of the bench collection and returns their ids.
func (s *server) createBenchRecords(n int, data any) ([]string, error) {
	c, err := s.PB.FindCollectionByNameOrId(benchCollection)
	if err != nil {
		return nil, err
	}
	ids := make([]string, n)
	for i := range ids {
		r := core.NewRecord(c)
		r.Set("name", fmt.Sprintf("Record %d", i))
		r.Set("data", data)
		if err := s.PB.Save(r); err != nil {
			return nil, err
		}
		ids[i] = r.Id
	}
	return ids, nil
}

// createDocs makes n documents of docType in a world through the store and returns their ids.
func (s *server) createDocs(worldID, docType string, n int) ([]string, error) {
	ids := make([]string, n)
	for i := range ids {
		d, err := s.LW.Store.CreateDocument(worldID, "", fmt.Sprintf("Doc %d", i), docType, "", benchActor)
		if err != nil {
			return nil, err
		}
		ids[i] = d.ID
	}
	return ids, nil
}
