package apptest

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Event is one Server-Sent Event as a client sees it.
type Event struct {
	ID    string
	Event string
	Data  string
	Retry string
}

// Stream is an open event stream.
type Stream struct {
	Status int
	Header http.Header
	events chan Event
	errc   chan error
	cancel context.CancelFunc
}

// StreamRequest opens an event stream; the header may carry Authorization, Last-Event-ID or
// cookies via the client.
func (s *Server) StreamRequest(path string, header http.Header, client *http.Client) *Stream {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "text/event-stream")
	if client == nil {
		client = &http.Client{}
	}
	res, err := client.Do(req)
	if err != nil {
		cancel()
		s.t.Fatalf("apptest: stream %s: %v", path, err)
	}
	st := &Stream{Status: res.StatusCode, Header: res.Header, events: make(chan Event, 10000), errc: make(chan error, 1), cancel: cancel}
	s.t.Cleanup(st.Close)
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return st
	}
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
		var ev Event
		var data []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if len(data) > 0 || ev.Retry != "" {
					ev.Data = strings.Join(data, "\n")
					st.events <- ev
				}
				ev, data = Event{}, nil
			case strings.HasPrefix(line, ":"):
			case strings.HasPrefix(line, "id: "):
				ev.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.Event = line[7:]
			case strings.HasPrefix(line, "data: "):
				data = append(data, line[6:])
			case strings.HasPrefix(line, "retry: "):
				ev.Retry = line[7:]
			}
		}
		err := sc.Err()
		if err == nil {
			err = fmt.Errorf("stream ended")
		}
		st.errc <- err
		close(st.events)
	}()
	return st
}

// Stream opens an event stream with an API key.
func (s *Server) Stream(key, path string) *Stream {
	s.t.Helper()
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return s.StreamRequest(path, h, nil)
}

// Next returns the next event, or an error if none arrives within timeout or the stream ends.
func (st *Stream) Next(timeout time.Duration) (Event, error) {
	select {
	case ev, ok := <-st.events:
		if !ok {
			return Event{}, fmt.Errorf("stream closed: %v", <-st.errc)
		}
		return ev, nil
	case <-time.After(timeout):
		return Event{}, fmt.Errorf("no event within %s", timeout)
	}
}

// NextOf returns the next event of the given kind, skipping others.
func (st *Stream) NextOf(kind string, timeout time.Duration) (Event, error) {
	deadline := time.Now().Add(timeout)
	for {
		ev, err := st.Next(time.Until(deadline))
		if err != nil || ev.Event == kind {
			return ev, err
		}
	}
}

// Closed waits for the server to end the stream.
func (st *Stream) Closed(timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		select {
		case _, ok := <-st.events:
			if !ok {
				return nil
			}
		case <-deadline:
			return fmt.Errorf("stream still open after %s", timeout)
		}
	}
}

// Close ends the stream from the client side.
func (st *Stream) Close() { st.cancel() }

// Expect returns the next event (of kind, when kind is not empty) within 5 seconds, failing
// the test otherwise.
func (st *Stream) Expect(t testing.TB, kind string) Event {
	t.Helper()
	var ev Event
	var err error
	if kind == "" {
		ev, err = st.Next(5 * time.Second)
	} else {
		ev, err = st.NextOf(kind, 5*time.Second)
	}
	if err != nil {
		t.Fatalf("waiting for %q event: %v", kind, err)
	}
	return ev
}
