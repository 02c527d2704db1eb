// Package apptest starts the real Loreweave server for tests: a fresh PocketBase app in a
// temp data dir, wired by app.Setup exactly as `loreweave serve` wires it, serving HTTP on a
// loopback port. Tests talk to it over HTTP like any client.
package apptest

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/config"
)

// Server is a running Loreweave instance.
type Server struct {
	t   testing.TB
	URL string
	PB  core.App
	LW  *app.Loreweave
	Dir string
	// OnResponse, when set, sees every response Do receives (the OpenAPI check uses it).
	OnResponse func(t testing.TB, method, path string, res *Response)

	done chan error
}

// Option changes the configuration of a test server.
type Option func(*config.Config)

// WithRateLimits sets the per-credential and per-address limits (requests a minute; 0 = off).
func WithRateLimits(perKey, perIP int) Option {
	return func(c *config.Config) { c.KeyRateLimit, c.IPRateLimit = perKey, perIP }
}

// WithSignInLimits sets the failed sign-ins allowed per 15 minutes per address and email, and
// per address (0 = off).
func WithSignInLimits(perEmail, perAddress int) Option {
	return func(c *config.Config) { c.LoginRateLimit, c.LoginIPRateLimit = perEmail, perAddress }
}

// WithSignupLimit sets the sign-ups, and the OAuth client registrations, allowed an hour per
// address (0 = off).
func WithSignupLimit(perHour int) Option {
	return func(c *config.Config) { c.SignupRateLimit = perHour }
}

// WithStreamIPLimit sets the streams one client address may hold open at once (0 = off).
func WithStreamIPLimit(n int) Option { return func(c *config.Config) { c.StreamIPLimit = n } }

// WithUploadLimits sets the largest image and model a world may upload, in bytes.
func WithUploadLimits(image, model int) Option {
	return func(c *config.Config) { c.MaxImageBytes, c.MaxModelBytes = image, model }
}

// WithSignup sets who may sign up at /signup: "open" or "closed".
func WithSignup(mode string) Option { return func(c *config.Config) { c.Signup = mode } }

// WithDefaultPlan sets the plan of new worlds.
func WithDefaultPlan(plan string) Option { return func(c *config.Config) { c.DefaultPlan = plan } }

// WithBaseURL starts the server at the address of url (http://127.0.0.1:PORT), for example a
// stopped server's, so that clients of that one reach this one.
func WithBaseURL(url string) Option { return func(c *config.Config) { c.BaseURL = url } }

// WithMCPAllowedOrigins sets the web origins that may call the MCP endpoint from a browser.
func WithMCPAllowedOrigins(origins ...string) Option {
	return func(c *config.Config) { c.MCPAllowedOrigins = origins }
}

// Start starts a server on a fresh data dir; it stops when the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	return StartIn(t, t.TempDir(), opts...)
}

// StartIn starts a server on an existing data dir (to restart on the same data).
func StartIn(t testing.TB, dir string, opts ...Option) *Server {
	t.Helper()
	pb := core.NewBaseApp(core.BaseAppConfig{DataDir: dir})
	if err := pb.Bootstrap(); err != nil {
		t.Fatalf("apptest: bootstrap: %v", err)
	}
	cfg := config.Default()
	for _, o := range opts {
		o(&cfg)
	}
	addr := "127.0.0.1:0"
	if cfg.BaseURL != "" { // WithBaseURL: a restart where the server was
		addr = strings.TrimPrefix(cfg.BaseURL, "http://")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("apptest: listen: %v", err)
	}
	cfg.BaseURL = "http://" + ln.Addr().String()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("apptest: config: %v", err)
	}
	lw := app.Setup(pb, cfg)
	pb.OnServe().BindFunc(func(se *core.ServeEvent) error {
		se.Listener = ln
		se.InstallerFunc = nil
		return se.Next()
	})
	// Request logs are written by a background goroutine; keep them out of short-lived tests.
	pb.Settings().Logs.MaxDays = 0

	done := make(chan error, 1)
	go func() { done <- apis.Serve(pb, apis.ServeConfig{HttpAddr: ln.Addr().String()}) }()

	s := &Server{t: t, URL: cfg.BaseURL, PB: pb, LW: lw, Dir: dir, done: done}
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(s.URL + "/api/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-done:
			t.Fatalf("apptest: server stopped: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("apptest: server did not start: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(s.Stop)
	return s
}

// Stop terminates the server as SIGTERM would; later calls do nothing.
func (s *Server) Stop() {
	if !s.PB.IsBootstrapped() {
		return
	}
	ev := &core.TerminateEvent{App: s.PB}
	_ = s.PB.OnTerminate().Trigger(ev, func(e *core.TerminateEvent) error { return e.App.ResetBootstrapState() })
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.t.Errorf("apptest: server did not stop")
	}
}

// User is a test account with an API key.
type User struct {
	ID       string
	Email    string
	Name     string
	Password string
	Key      string
	KeyID    string
}

// NewUser creates an account (and an API key for it).
func (s *Server) NewUser(name string) User {
	s.t.Helper()
	email := strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "@example.test"
	u, err := auth.CreateUser(s.PB, email, "correct horse battery", name)
	if err != nil {
		s.t.Fatalf("apptest: create user: %v", err)
	}
	key, rec, err := s.LW.Keys.Create(u.Id, "test key")
	if err != nil {
		s.t.Fatalf("apptest: create key: %v", err)
	}
	return User{ID: u.Id, Email: email, Name: name, Password: "correct horse battery", Key: key, KeyID: rec.ID}
}

// Response is a finished HTTP response with its body read.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test on error.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Map decodes the body as a JSON object.
func (r *Response) Map(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.JSON(t, &m)
	return m
}

// ErrorCode returns the error code of an error response ("" if none).
func (r *Response) ErrorCode() string {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &e)
	return e.Error.Code
}

// Request is a request to send with Do.
type Request struct {
	Method string
	Path   string
	// Key is sent as "Authorization: Bearer Key" when not empty.
	Key string
	// Body is sent as JSON unless it is a string or []byte (sent as is).
	Body any
	// Header adds headers (Content-Type defaults to application/json when there is a body).
	Header http.Header
	// Client sends the request (with its cookies); nil uses a plain client.
	Client *http.Client
}

// Do sends a request and returns the response.
func (s *Server) Do(req Request) *Response {
	s.t.Helper()
	var body io.Reader
	switch b := req.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			s.t.Fatalf("apptest: encode body: %v", err)
		}
		body = bytes.NewReader(data)
	}
	r, err := http.NewRequest(req.Method, s.URL+req.Path, body)
	if err != nil {
		s.t.Fatalf("apptest: request: %v", err)
	}
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, vs := range req.Header {
		r.Header[k] = vs
	}
	if req.Key != "" {
		r.Header.Set("Authorization", "Bearer "+req.Key)
	}
	c := req.Client
	if c == nil {
		c = http.DefaultClient
	}
	res, err := c.Do(r)
	if err != nil {
		s.t.Fatalf("apptest: %s %s: %v", req.Method, req.Path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatalf("apptest: read %s %s: %v", req.Method, req.Path, err)
	}
	out := &Response{Status: res.StatusCode, Header: res.Header, Body: data}
	if s.OnResponse != nil {
		s.OnResponse(s.t, req.Method, strings.SplitN(req.Path, "?", 2)[0], out)
	}
	return out
}

// Get sends a GET with a key.
func (s *Server) Get(key, path string) *Response {
	s.t.Helper()
	return s.Do(Request{Method: http.MethodGet, Path: path, Key: key})
}

// Post sends a POST with a key and a JSON body.
func (s *Server) Post(key, path string, body any) *Response {
	s.t.Helper()
	return s.Do(Request{Method: http.MethodPost, Path: path, Key: key, Body: body})
}

// Must fails the test unless the response has the wanted status, and returns it.
func (s *Server) Must(res *Response, status int) *Response {
	s.t.Helper()
	if res.Status != status {
		s.t.Fatalf("status %d, want %d: %s", res.Status, status, res.Body)
	}
	return res
}

// World creates a world as u and returns its id.
func (s *Server) World(u User, name string) string {
	s.t.Helper()
	var w struct{ ID string }
	s.Must(s.Post(u.Key, "/api/v1/worlds", map[string]any{"name": name}), http.StatusCreated).JSON(s.t, &w)
	return w.ID
}

// Document creates a document and returns its id.
func (s *Server) Document(u User, worldID, name, docType string) string {
	s.t.Helper()
	var d struct{ ID string }
	s.Must(s.Post(u.Key, "/api/v1/worlds/"+worldID+"/documents", map[string]any{"name": name, "documentType": docType}), http.StatusCreated).JSON(s.t, &d)
	return d.ID
}

// AddMember adds member to the world with a role: owner invites their email, and member
// accepts.
func (s *Server) AddMember(owner User, worldID string, member User, role string) {
	s.t.Helper()
	var inv struct{ ID string }
	s.Must(s.Post(owner.Key, "/api/v1/worlds/"+worldID+"/members", map[string]any{"email": member.Email, "role": role}), http.StatusCreated).JSON(s.t, &inv)
	s.Must(s.Post(member.Key, "/api/v1/invitations/"+inv.ID+"/accept", nil), http.StatusOK)
}

// Invite invites an email to the world as manager and returns the invitation's id.
func (s *Server) Invite(manager User, worldID, email, role string) string {
	s.t.Helper()
	var inv struct{ ID string }
	res := s.Post(manager.Key, "/api/v1/worlds/"+worldID+"/members", map[string]any{"email": email, "role": role})
	if res.Status != http.StatusCreated && res.Status != http.StatusOK {
		s.t.Fatalf("apptest: invite %s: %d %s", email, res.Status, res.Body)
	}
	res.JSON(s.t, &inv)
	return inv.ID
}

// Count returns the number of rows of a table matching an optional SQL condition.
func (s *Server) Count(table, where string) int {
	s.t.Helper()
	q := "SELECT COUNT(*) FROM " + table
	if where != "" {
		q += " WHERE " + where
	}
	var n int
	if err := s.PB.DB().NewQuery(q).Row(&n); err != nil {
		s.t.Fatalf("apptest: count %s: %v", table, err)
	}
	return n
}

// Browser returns an HTTP client with a cookie jar that does not follow redirects, for the
// web pages.
func (s *Server) Browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// CSRFToken returns the CSRF token the page at path renders into its forms, fetched with the
// browser's cookies.
func (s *Server) CSRFToken(browser *http.Client, path string) string {
	s.t.Helper()
	res := s.Do(Request{Method: http.MethodGet, Path: path, Client: browser})
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(res.Body))
	if err != nil {
		s.t.Fatalf("apptest: parse %s: %v", path, err)
	}
	token, ok := doc.Find(`input[name="csrf"]`).First().Attr("value")
	if !ok || token == "" {
		s.t.Fatalf("apptest: no CSRF token on %s (status %d)", path, res.Status)
	}
	return token
}

// PostForm submits a form as a browser would (same-origin, with the CSRF token).
func (s *Server) PostForm(browser *http.Client, path string, form url.Values) *Response {
	s.t.Helper()
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Origin": {s.URL}, "Sec-Fetch-Site": {"same-origin"}}
	return s.Do(Request{Method: http.MethodPost, Path: path, Body: form.Encode(), Header: h, Client: browser})
}

// SignIn signs u in through the login form and returns the browser holding the session.
func (s *Server) SignIn(u User) *http.Client {
	s.t.Helper()
	b := s.Browser()
	token := s.CSRFToken(b, "/login")
	res := s.PostForm(b, "/login", url.Values{"csrf": {token}, "email": {u.Email}, "password": {u.Password}})
	if res.Status != http.StatusSeeOther {
		s.t.Fatalf("apptest: sign in: %d %s", res.Status, res.Body)
	}
	return b
}
