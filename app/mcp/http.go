package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/loreweave/loreweave/app/apierr"
)

// verifiedKey holds the TokenInfo of a request whose bearer token authenticate verified.
type verifiedKey struct{}

// authenticate checks the request's bearer token and answers a 401 in the one error model
// when there is none or it is not valid: the JSON error object, and a WWW-Authenticate
// challenge that names the protected resource metadata (RFC 9728) and, for a token that was
// sent, error="invalid_token" (RFC 6750), so a client knows to sign in again.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	challenge := fmt.Sprintf("Bearer resource_metadata=%q", s.BaseURL+"/.well-known/oauth-protected-resource"+Path)
	fields := strings.Fields(r.Header.Get("Authorization"))
	if len(fields) != 2 || !strings.EqualFold(fields[0], "bearer") {
		e := apierr.Unauthenticated("this endpoint needs a bearer token: an API key (lw_live_…) or an OAuth access token")
		e.Header = http.Header{"WWW-Authenticate": {challenge}}
		apierr.Write(w, r, nil, e)
		return nil, false
	}
	ti, err := s.verify(r.Context(), fields[1], r)
	if err != nil {
		e := apierr.Unauthenticated("the bearer token is unknown, revoked or expired: sign in again or use another key")
		e.Header = http.Header{"WWW-Authenticate": {challenge + `, error="invalid_token", error_description="the token is unknown, revoked or expired"`}}
		apierr.Write(w, r, nil, e)
		return nil, false
	}
	return r.WithContext(context.WithValue(r.Context(), verifiedKey{}, ti)), true
}

// originAllowed reports whether a request may come from a web page at origin: one without
// an Origin header (not from a browser), from this server's own origin, or from one the
// operator allowed (AllowedOrigins; "*" allows any). A browser page elsewhere would
// otherwise be able to reach a server on the user's machine (DNS rebinding).
func (s *Server) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	if u, err := url.Parse(s.BaseURL); err == nil && strings.EqualFold(origin, u.Scheme+"://"+u.Host) {
		return true
	}
	return slices.ContainsFunc(s.AllowedOrigins, func(o string) bool {
		return o == "*" || strings.EqualFold(strings.TrimSuffix(o, "/"), origin)
	})
}

// rpcErrors turns the SDK's plain-text 400s and 413s into JSON-RPC errors a client can read:
// a request whose method the server does not know gets what JSON-RPC says (a response, code
// -32601); any other (a GET or DELETE without an Mcp-Session-Id, a malformed message) keeps
// its 400 with an Invalid Request error (-32600) saying what is wrong, and a body over maxBody
// its 413 with one whose data is the REST API's body_too_large.
type rpcErrors struct {
	http.ResponseWriter
	id     json.RawMessage // the request's id, when it is one request
	held   bool            // a plain-text error is being held back
	status int
	text   []byte
}

func (w *rpcErrors) WriteHeader(code int) {
	if code != http.StatusBadRequest && code != http.StatusRequestEntityTooLarge || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.held, w.status = true, code
}

func (w *rpcErrors) Write(b []byte) (int, error) {
	if w.held {
		w.text = append(w.text, b...)
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// finish sends a held-back error, once the SDK is done.
func (w *rpcErrors) finish() {
	if !w.held {
		return
	}
	msg := strings.TrimSpace(string(w.text))
	status, code, id := w.status, -32600, w.id
	rpcErr := map[string]any{}
	switch {
	case status == http.StatusRequestEntityTooLarge:
		msg = fmt.Sprintf("the request body is larger than %d bytes (2 MiB)", maxBody)
		rpcErr["data"] = map[string]any{"code": "body_too_large", "limit": maxBody}
		// The rest of the body is not read: the connection cannot carry another request.
		w.Header().Set("Connection", "close")
	case strings.Contains(msg, "not handled") && id != nil:
		status, code, msg = http.StatusOK, -32601, "method not found"
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	rpcErr["code"], rpcErr["message"] = code, msg
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": rpcErr}) // plain values: cannot fail
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("Content-Length")
	h.Del("X-Content-Type-Options")
	w.ResponseWriter.WriteHeader(status)
	_, _ = w.ResponseWriter.Write(body)
}

func (w *rpcErrors) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.held {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (write deadlines of streams).
func (w *rpcErrors) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// lostSession holds back the SDK's 404 for an Mcp-Session-Id it does not have, so that the
// request can be served without a session instead.
type lostSession struct {
	http.ResponseWriter
	lost bool
}

func (w *lostSession) WriteHeader(code int) {
	if code == http.StatusNotFound && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.lost = true
		w.Header().Del("Content-Type")
		w.Header().Del("X-Content-Type-Options")
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *lostSession) Write(b []byte) (int, error) {
	if w.lost {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *lostSession) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.lost {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *lostSession) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// bodyKey holds a POST's body, read once (readBody), for serving it again.
type bodyKey struct{}

// requestID is the id of a body that is one JSON-RPC request whose method the SDK may not
// know; nil otherwise (notifications, responses, batches).
func requestID(body []byte) json.RawMessage {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return nil
	}
	return m.ID
}

// readBody reads a POST's body (up to just over maxBody) and leaves the request reading it
// from the start; nil for other methods or a body over the limit (the SDK refuses those).
func readBody(r *http.Request) []byte {
	if r.Method != http.MethodPost || r.Body == nil {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(data) > maxBody {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(data), r.Body))
		return nil
	}
	// The whole body, read: what comes next reads it again from here (PocketBase's body
	// reader would start over at its end, so it is not chained after the copy).
	r.Body = io.NopCloser(bytes.NewReader(data))
	return data
}
