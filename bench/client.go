package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// client sends the bench's HTTP requests over keep-alive connections.
type client struct {
	base string
	http *http.Client
}

func newClient(base string) *client {
	tr := &http.Transport{
		MaxIdleConns:        4096,
		MaxIdleConnsPerHost: 4096,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	return &client{base: base, http: &http.Client{Transport: tr, Timeout: 60 * time.Second}}
}

func (c *client) close() { c.http.CloseIdleConnections() }

// do sends one request with a prepared JSON body and fails unless the status is want. out,
// when not nil, receives the decoded JSON response.
func (c *client) do(method, path, auth string, body []byte, want int, out any) error {
	h := http.Header{}
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	if auth != "" {
		h.Set("Authorization", auth)
	}
	return c.send(method, path, h, body, want, out)
}

// send is do with the request's headers given whole, for bodies that are not JSON and
// requests signed in by cookie.
func (c *client) send(method, path string, h http.Header, body []byte, want int, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header = h.Clone() // h may be shared by concurrent clients
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != want || out != nil {
		data, err := io.ReadAll(res.Body)
		if err != nil {
			return err
		}
		if res.StatusCode != want {
			return fmt.Errorf("%s %s: status %d, want %d: %.300s", method, path, res.StatusCode, want, data)
		}
		return json.Unmarshal(data, out)
	}
	_, err = io.Copy(io.Discard, res.Body)
	return err
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func bearer(key string) string { return "Bearer " + key }
