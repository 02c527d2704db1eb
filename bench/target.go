package main

import (
	"fmt"
	"net/http"
)

// target is where an API scenario runs: a fresh in-process server, with PocketBase's own
// records API on the same instance as the baseline, or a remote instance (--url, --key),
// where the baseline is the instance's cheapest request, GET /api/health.
type target struct {
	c   *client
	key string
	srv *server // nil for a remote instance or a child's
	// child is the server child process serving the target, if any.
	child *serverProc
	// pbAuth is the PocketBase auth token of the same user (local only).
	pbAuth string
}

// remote reports whether the target is an instance the bench did not start.
func (t *target) remote() bool { return t.srv == nil }

// newTarget starts a server (or connects to --url) with a user, a key and, locally, the
// bench collection.
func (b *bench) newTarget() (*target, error) {
	if b.url != "" {
		if b.key == "" {
			return nil, fmt.Errorf("--url needs --key (an API key of a user on that instance)")
		}
		return &target{c: newClient(b.url), key: b.key}, nil
	}
	srv, err := startServer(serverOptions{requestLog: b.requestLog})
	if err != nil {
		return nil, err
	}
	u, err := srv.newUser("bench")
	if err != nil {
		srv.stop()
		return nil, err
	}
	if err := srv.createBenchCollection(); err != nil {
		srv.stop()
		return nil, fmt.Errorf("bench collection: %w", err)
	}
	return &target{c: newClient(srv.URL), key: u.Key, srv: srv, pbAuth: u.PBToken}, nil
}

func (t *target) close() {
	t.c.close()
	if t.child != nil {
		t.child.stop()
	}
	t.srv.stop()
}

// world creates a world through the API and returns its id.
func (t *target) world(name string) (string, error) {
	var w struct{ ID string }
	err := t.c.do(http.MethodPost, "/api/v1/worlds", bearer(t.key), mustJSON(map[string]any{"name": name}), http.StatusCreated, &w)
	return w.ID, err
}

// documents creates n documents through the API and returns their ids.
func (t *target) documents(worldID, docType string, n int) ([]string, error) {
	ids := make([]string, n)
	for i := range ids {
		var d struct{ ID string }
		body := mustJSON(map[string]any{"name": fmt.Sprintf("Doc %d", i), "documentType": docType})
		if err := t.c.do(http.MethodPost, "/api/v1/worlds/"+worldID+"/documents", bearer(t.key), body, http.StatusCreated, &d); err != nil {
			return nil, err
		}
		ids[i] = d.ID
	}
	return ids, nil
}

// health is the remote baseline: PocketBase's own cheapest endpoint on the same instance.
func (t *target) health(int, int) error {
	return t.c.do(http.MethodGet, "/api/health", "", nil, http.StatusOK, nil)
}

const healthBaseline = "GET /api/health (remote)"
