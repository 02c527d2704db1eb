package live_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/live"
)

// admitted waits (generously: releases are asynchronous) until a new stream on path is let
// in, and returns it.
func admitted(t *testing.T, s *apptest.Server, key, path string) *apptest.Stream {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := s.Stream(key, path)
		if st.Status == http.StatusOK {
			return st
		}
		if st.Status != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("stream %s: status %d, want 200 once a stream was released", path, st.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// overCap asks for one stream more than the cap allows; the timeout fails the test instead of
// hanging it if the stream is let in.
func overCap(t *testing.T, s *apptest.Server, key, path string) *apptest.Response {
	t.Helper()
	return s.Do(apptest.Request{Method: http.MethodGet, Path: path, Key: key, Client: &http.Client{Timeout: 10 * time.Second}})
}

func TestStreamsPerUserAreCapped(t *testing.T) {
	f := setup(t)
	worldEvents := "/api/v1/worlds/" + f.w + "/events"
	docEvents := f.docPath(f.tl) + "/events"
	second, rec, err := f.s.LW.Keys.Create(f.ann.ID, "second key")
	if err != nil {
		t.Fatal(err)
	}

	// The cap is shared by both of Ann's keys and by both kinds of stream.
	var first []*apptest.Stream
	for i := range live.MaxStreamsPerUser {
		key, path := f.ann.Key, worldEvents
		if i%2 == 1 {
			key, path = second, docEvents
		}
		st := f.s.Stream(key, path)
		if st.Status != http.StatusOK {
			t.Fatalf("stream %d of %d: status %d", i+1, live.MaxStreamsPerUser, st.Status)
		}
		if key == f.ann.Key {
			first = append(first, st)
		}
	}

	for _, key := range []string{f.ann.Key, second} {
		res := overCap(t, f.s, key, docEvents)
		if res.Status != http.StatusTooManyRequests || res.ErrorCode() != "rate_limited" || res.Header.Get("Retry-After") == "" {
			t.Fatalf("stream over the cap: %d %v %s", res.Status, res.Header, res.Body)
		}
		msg := res.Map(t)["error"].(map[string]any)["message"].(string)
		limit := fmt.Sprint(live.MaxStreamsPerUser)
		if strings.Count(msg, limit) < 2 {
			t.Fatalf("message should say how many streams are open and the limit (%s): %q", limit, msg)
		}
	}

	// Someone else is not affected.
	bob := f.s.NewUser("Bob")
	bw := f.s.World(bob, "Bobland")
	if st := f.s.Stream(bob.Key, "/api/v1/worlds/"+bw+"/events"); st.Status != http.StatusOK {
		t.Fatalf("another user's stream: status %d", st.Status)
	}

	// Closing one stream makes room for one more, and only one.
	first[0].Close()
	admitted(t, f.s, f.ann.Key, worldEvents)
	if res := overCap(t, f.s, f.ann.Key, worldEvents); res.Status != http.StatusTooManyRequests {
		t.Fatalf("stream over the cap again: status %d", res.Status)
	}

	// Streams the server ends give their place back too: revoking the second key closes half.
	if err := f.s.LW.Keys.Revoke(f.ann.ID, rec.ID); err != nil {
		t.Fatal(err)
	}
	admitted(t, f.s, f.ann.Key, docEvents)
}
