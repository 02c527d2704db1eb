package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// sseEvent is one Server-Sent Event as a watcher sees it (data cut at 4 KiB).
type sseEvent struct {
	event string
	id    string
	data  []byte
}

// sseReader parses an event stream with as little work as a real client would do.
type sseReader struct{ br *bufio.Reader }

func newSSEReader(r io.Reader) *sseReader { return &sseReader{br: bufio.NewReaderSize(r, 16<<10)} }

// next returns the next complete event; comments (heartbeats) are skipped.
func (r *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	seen := false
	for {
		line, err := r.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A very long data line: keep its head, skip the rest.
			head := bytes.Clone(line)
			for err == bufio.ErrBufferFull {
				_, err = r.br.ReadSlice('\n')
			}
			line = head
		}
		if err != nil {
			return ev, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if seen {
				return ev, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		seen = true
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.event = string(value)
		case "id":
			ev.id = string(value)
		case "data":
			if len(ev.data) < 4096 {
				if len(ev.data) > 0 {
					ev.data = append(ev.data, '\n')
				}
				ev.data = append(ev.data, value...)
			}
		}
	}
}

// watch is one open event stream.
type watch struct {
	body io.Closer
	rd   *sseReader
}

func (w watch) close() { _ = w.body.Close() }

// streamClient returns a client for event streams: no overall timeout (a stream lasts), its
// own connection per stream.
func streamClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
}

// openOurs opens GET .../documents/{d}/events and returns once the snapshot arrived: the
// watcher is then registered and sees every later write.
func openOurs(c *http.Client, base, key, path string) (watch, error) {
	w, err := openStream(c, base, key, path)
	if err != nil {
		return watch{}, err
	}
	if err := w.until("snapshot"); err != nil {
		w.close()
		return watch{}, err
	}
	return w, nil
}

// openStream opens one of our event streams and returns before reading any event.
func openStream(c *http.Client, base, key, path string) (watch, error) {
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		return watch{}, err
	}
	req.Header.Set("Authorization", bearer(key))
	req.Header.Set("Accept", "text/event-stream")
	res, err := c.Do(req)
	if err != nil {
		return watch{}, err
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return watch{}, fmt.Errorf("events: status %d", res.StatusCode)
	}
	return watch{body: res.Body, rd: newSSEReader(res.Body)}, nil
}

// openPB opens PocketBase's realtime stream and subscribes it to topic (a record) with the
// user's auth token, as the PocketBase JS SDK does.
func openPB(c *http.Client, base, token, topic string) (watch, error) {
	req, err := http.NewRequest(http.MethodGet, base+"/api/realtime", nil)
	if err != nil {
		return watch{}, err
	}
	req.Header.Set("Accept", "text/event-stream")
	res, err := c.Do(req)
	if err != nil {
		return watch{}, err
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return watch{}, fmt.Errorf("realtime: status %d", res.StatusCode)
	}
	w := watch{body: res.Body, rd: newSSEReader(res.Body)}
	ev, err := w.rd.next()
	if err != nil || ev.event != "PB_CONNECT" {
		w.close()
		return watch{}, fmt.Errorf("realtime: no PB_CONNECT (%q): %v", ev.event, err)
	}
	var connect struct{ ClientID string }
	if err := json.Unmarshal(ev.data, &connect); err != nil {
		w.close()
		return watch{}, err
	}
	body := mustJSON(map[string]any{"clientId": connect.ClientID, "subscriptions": []string{topic}})
	sub, err := http.NewRequest(http.MethodPost, base+"/api/realtime", bytes.NewReader(body))
	if err != nil {
		w.close()
		return watch{}, err
	}
	sub.Header.Set("Content-Type", "application/json")
	sub.Header.Set("Authorization", token)
	sres, err := c.Do(sub)
	if err != nil {
		w.close()
		return watch{}, err
	}
	_, _ = io.Copy(io.Discard, sres.Body)
	sres.Body.Close()
	if sres.StatusCode != http.StatusNoContent {
		w.close()
		return watch{}, fmt.Errorf("realtime subscribe: status %d", sres.StatusCode)
	}
	return w, nil
}

// until reads events until one named name (within 30 s).
func (w watch) until(name string) error {
	t := time.AfterFunc(30*time.Second, func() { w.close() })
	defer t.Stop()
	for {
		ev, err := w.rd.next()
		if err != nil {
			return fmt.Errorf("waiting for %q: %w", name, err)
		}
		if ev.event == name {
			return nil
		}
	}
}

// openMany opens n streams with a few at a time and closes all on failure.
func openMany(n int, open func(i int) (watch, error)) ([]watch, error) {
	out := make([]watch, n)
	errs := make(chan error, n)
	sem := make(chan struct{}, 16)
	for i := range out {
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem }()
			w, err := open(i)
			out[i] = w
			errs <- err
		}(i)
	}
	var first error
	for range out {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		for _, w := range out {
			if w.body != nil {
				w.close()
			}
		}
		return nil, first
	}
	return out, nil
}
