package mcp_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/live"
)

// initialize is the first request of an MCP session.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// mcpStream opens an MCP session with key and then its standalone event stream (a GET that
// stays open), by hand, so that the test knows when it is held.
func mcpStream(t *testing.T, s *apptest.Server, key string) *apptest.Stream {
	t.Helper()
	accept := http.Header{"Accept": {"application/json, text/event-stream"}}
	init := s.Do(apptest.Request{Method: http.MethodPost, Path: "/api/mcp", Key: key, Header: accept,
		Body: initialize})
	session := init.Header.Get("Mcp-Session-Id")
	if init.Status != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %s", init.Status, init.Body)
	}
	h := http.Header{"Accept": {"application/json, text/event-stream"}, "Mcp-Session-Id": {session}, "Mcp-Protocol-Version": {"2025-06-18"}}
	s.Must(s.Do(apptest.Request{Method: http.MethodPost, Path: "/api/mcp", Key: key, Header: h,
		Body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`}), http.StatusAccepted)
	h.Set("Authorization", "Bearer "+key)
	return s.StreamRequest("/api/mcp", h, nil)
}

// wantRefused checks a 429 rate_limited whose message names what it counts.
func wantRefused(t *testing.T, res *apptest.Response, what string) {
	t.Helper()
	if res.Status != http.StatusTooManyRequests || res.ErrorCode() != "rate_limited" || res.Header.Get("Retry-After") == "" || !strings.Contains(string(res.Body), what) {
		t.Fatalf("want 429 rate_limited naming %q: %d %s", what, res.Status, res.Body)
	}
}

// TestMCPCountsInTheStreamCap: MCP requests and streams were not counted in the cap of 50
// streams per user, so a user could hold any number of connections open through MCP.
func TestMCPCountsInTheStreamCap(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	events := "/api/v1/worlds/" + s.World(ann, "Eldoria") + "/events"

	held := mcpStream(t, s, ann.Key)
	if held.Status != http.StatusOK {
		t.Fatalf("MCP stream: %d", held.Status)
	}
	for i := 1; i < live.MaxStreamsPerUser; i++ {
		if st := s.Stream(ann.Key, events); st.Status != http.StatusOK {
			t.Fatalf("event stream %d: %d", i+1, st.Status)
		}
	}
	// The MCP stream took the 50th place: no event stream fits, and no MCP request either.
	over := s.Do(apptest.Request{Method: http.MethodGet, Path: events, Key: ann.Key, Client: &http.Client{Timeout: 10 * time.Second}})
	wantRefused(t, over, "for this user")
	call := s.Do(apptest.Request{Method: http.MethodPost, Path: "/api/mcp", Key: ann.Key, Header: http.Header{"Accept": {"application/json, text/event-stream"}}, Body: initialize})
	wantRefused(t, call, "for this user")

	// Closing the MCP stream gives its place back.
	held.Close()
	waitAdmitted(t, func() *apptest.Stream { return s.Stream(ann.Key, events) })
}

// TestStreamsPerAddressAreCapped: anyone could hold any number of streams open from one
// address (19,990 idle connections to PocketBase's /api/realtime took every file
// descriptor). One address now holds at most LOREWEAVE_MAX_STREAMS_IP streams of every kind
// together, whoever is signed in, and PocketBase's realtime stream, open to anyone, counts.
func TestStreamsPerAddressAreCapped(t *testing.T) {
	const limit = 4
	s := apptest.Start(t, apptest.WithStreamIPLimit(limit))
	ann, bob := s.NewUser("Ann"), s.NewUser("Bob")
	annEvents := "/api/v1/worlds/" + s.World(ann, "Eldoria") + "/events"
	bobEvents := "/api/v1/worlds/" + s.World(bob, "Bobland") + "/events"

	realtime := s.StreamRequest("/api/realtime", nil, nil)
	if realtime.Status != http.StatusOK {
		t.Fatalf("realtime: %d", realtime.Status)
	}
	if st := mcpStream(t, s, ann.Key); st.Status != http.StatusOK {
		t.Fatalf("MCP stream: %d", st.Status)
	}
	for _, st := range []*apptest.Stream{s.Stream(ann.Key, annEvents), s.Stream(bob.Key, bobEvents)} {
		if st.Status != http.StatusOK {
			t.Fatalf("event stream: %d", st.Status)
		}
	}
	// Four streams from 127.0.0.1: nothing more from it, of any kind, for anyone.
	short := &http.Client{Timeout: 10 * time.Second}
	for _, r := range []apptest.Request{
		{Method: http.MethodGet, Path: bobEvents, Key: bob.Key, Client: short},
		{Method: http.MethodGet, Path: "/api/realtime", Client: short},
		{Method: http.MethodPost, Path: "/api/mcp", Key: ann.Key, Header: http.Header{"Accept": {"application/json, text/event-stream"}}, Client: short, Body: initialize},
	} {
		res := s.Do(r)
		wantRefused(t, res, "from this client address")
	}

	// Closing one makes room for one.
	realtime.Close()
	waitAdmitted(t, func() *apptest.Stream { return s.StreamRequest("/api/realtime", nil, nil) })
}

// waitAdmitted opens streams until one is let in (generously: places are given back
// asynchronously).
func waitAdmitted(t *testing.T, open func() *apptest.Stream) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := open()
		if st.Status == http.StatusOK {
			return
		}
		if st.Status != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("stream: %d, want 200 once a place was given back", st.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
