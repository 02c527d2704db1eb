package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/apptest"
)

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func connect(t *testing.T, s *apptest.Server, token string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	c := sdk.NewClient(&sdk.Implementation{Name: "loreweave-test", Version: "1"}, nil)
	tr := &sdk.StreamableClientTransport{Endpoint: s.URL + "/api/mcp", HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
	session, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// call runs a tool and decodes its structured result (or its error object) into out.
func call(t *testing.T, s *sdk.ClientSession, name string, args map[string]any, out any) (isError bool) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// A result's structured content, or the text of an error (or of a tool without one).
	var text string
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*sdk.TextContent); ok {
			text = tc.Text
		}
	}
	if res.StructuredContent != nil && !res.IsError {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		text = string(data)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(text), out); err != nil {
			t.Fatalf("%s: decode %q: %v", name, text, err)
		}
	}
	return res.IsError
}

type toolErr struct {
	Error struct {
		Code      string
		Message   string
		Supported []string
		ClipIDs   []string `json:"clipIds"`
	}
}

// allTools are the connector's tools, sorted.
const allTools = "apply_content_ops create_document create_era create_project create_world delete_document get_document get_history get_links get_world invite_member list_assets list_documents list_eras list_members list_projects list_types list_worlds remove_member search update_document whoami"

func TestToolsWithAPIKey(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	session := connect(t, s, ann.Key)

	// The server says what it is and how to start.
	init := session.InitializeResult()
	if info := init.ServerInfo; info.Title != "Loreweave" || info.Description == "" || info.WebsiteURL != s.URL || len(info.Icons) == 0 {
		t.Errorf("server info %+v", info)
	}
	for _, tool := range []string{"list_worlds", "create_world", "apply_content_ops", "list_types", "list_eras", "search"} {
		if !strings.Contains(init.Instructions, tool) {
			t.Errorf("the instructions do not mention %s", tool)
		}
	}
	tools, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.Title == "" || tool.Annotations == nil {
			t.Errorf("tool %s lacks a description, schema, title or annotations", tool.Name)
			continue
		}
		// Reads say so (clients need not ask before them); nothing else claims to be one.
		read := strings.HasPrefix(tool.Name, "get_") || strings.HasPrefix(tool.Name, "list_") || tool.Name == "search" || tool.Name == "whoami"
		if a := tool.Annotations; a.ReadOnlyHint != read || (!read && a.DestructiveHint == nil) {
			t.Errorf("tool %s: annotations %+v", tool.Name, a)
		}
	}
	sort.Strings(names)
	if strings.Join(names, " ") != allTools {
		t.Fatalf("tools %v", names)
	}

	var me struct{ ID, Credential string }
	call(t, session, "whoami", nil, &me)
	if me.ID != ann.ID || me.Credential != "api_key" {
		t.Fatalf("whoami %+v", me)
	}
	w := s.World(ann, "Eldoria")
	// Arguments the input schema refuses, and a query longer than REST allows, answer the
	// same JSON error object as every other tool failure.
	for _, bad := range []struct {
		tool string
		args map[string]any
	}{
		{"list_documents", map[string]any{}},
		{"search", map[string]any{"worldId": w, "q": "x", "page": 1e20}},
		{"search", map[string]any{"worldId": w, "q": strings.Repeat("ab ", 200)}},
	} {
		var e toolErr
		if !call(t, session, bad.tool, bad.args, &e) || e.Error.Code != "invalid_field" || strings.Contains(e.Error.Message, "Go struct") {
			t.Errorf("%s %v: %+v", bad.tool, bad.args, e)
		}
	}
	for _, tool := range tools.Tools {
		if schema, _ := json.Marshal(tool.InputSchema); !strings.Contains(string(schema), `"properties":`) {
			t.Errorf("tool %s: input schema without properties: %s", tool.Name, schema)
		}
	}

	// A search page beyond the deepest one is a tool error, not a crash of the server.
	var far toolErr
	if !call(t, session, "search", map[string]any{"worldId": w, "q": "my", "page": 100000000000000000, "perPage": 100}, &far) || far.Error.Code != "invalid_field" {
		t.Fatalf("far search page: %+v", far)
	}

	var worlds struct {
		Items      []struct{ ID, Plan string }
		TotalItems int
	}
	call(t, session, "list_worlds", nil, &worlds)
	if worlds.TotalItems != 1 || worlds.Items[0].ID != w {
		t.Fatalf("list_worlds %+v", worlds)
	}

	var doc struct{ ID, DocumentType string }
	if call(t, session, "create_document", map[string]any{"worldId": w, "name": "History", "documentType": "timeline"}, &doc) {
		t.Fatalf("create_document failed")
	}
	var applied struct {
		Applied, Version int
		Created          []struct{ ID, Label string }
	}
	if call(t, session, "apply_content_ops", map[string]any{"worldId": w, "documentId": doc.ID, "ops": []any{
		map[string]any{"op": "timeline.addEvent", "label": "The Sundering", "dateMs": -1000},
	}}, &applied) {
		t.Fatal("apply_content_ops failed")
	}
	if applied.Applied != 1 || applied.Version != 1 || !strings.HasPrefix(applied.Created[0].ID, "evt-") {
		t.Fatalf("applied %+v", applied)
	}
	// The MCP write went through the one write path: REST sees it at once.
	var read struct {
		Version int
		Content struct{ Text string }
	}
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w+"/documents/"+doc.ID), 200).JSON(t, &read)
	if read.Version != 1 || read.Content.Text != "History The Sundering" {
		t.Fatalf("rest read %+v", read)
	}
	var got struct {
		Version int
		Text    string
		Data    struct{ Events []struct{ Label string } }
	}
	call(t, session, "get_document", map[string]any{"worldId": w, "documentId": doc.ID}, &got)
	if got.Version != 1 || got.Data.Events[0].Label != "The Sundering" {
		t.Fatalf("get_document %+v", got)
	}

	// Errors come back as tool errors with the same codes and details as REST.
	var te toolErr
	if !call(t, session, "apply_content_ops", map[string]any{"worldId": w, "documentId": doc.ID, "ops": []any{map[string]any{"op": "animator.setActiveClip", "clipId": "x"}}}, &te) {
		t.Fatal("unsupported op accepted")
	}
	if te.Error.Code != "unsupported_operation" || len(te.Error.Supported) == 0 {
		t.Fatalf("tool error %+v", te)
	}
	if !call(t, session, "create_document", map[string]any{"worldId": w, "name": "X", "documentType": "spaceship"}, &te) || te.Error.Code != "unsupported_document_type" {
		t.Fatalf("bad type %+v", te)
	}
	if !call(t, session, "get_world", map[string]any{"worldId": "nosuchworld0000"}, &te) || te.Error.Code != "not_found" {
		t.Fatalf("unknown world %+v", te)
	}

	var hits struct {
		Items      []struct{ ID, Snippet string }
		TotalItems int
	}
	for deadline := time.Now().Add(time.Second); ; time.Sleep(20 * time.Millisecond) {
		call(t, session, "search", map[string]any{"worldId": w, "q": "sundering"}, &hits)
		if hits.TotalItems == 1 || time.Now().After(deadline) {
			break
		}
	}
	if hits.TotalItems != 1 || !strings.Contains(hits.Items[0].Snippet, "<mark>") {
		t.Fatalf("search %+v", hits)
	}
	var era struct{ ID string }
	call(t, session, "create_era", map[string]any{"worldId": w, "name": "Second Age"}, &era)
	var eras struct{ TotalItems int }
	call(t, session, "list_eras", map[string]any{"worldId": w}, &eras)
	if era.ID == "" || eras.TotalItems != 1 {
		t.Fatalf("eras %+v %+v", era, eras)
	}
	// Eras and projects page like every list.
	call(t, session, "create_era", map[string]any{"worldId": w, "name": "Third Age"}, nil)
	var page2 struct {
		Items      []struct{ Name string }
		TotalItems int
	}
	call(t, session, "list_eras", map[string]any{"worldId": w, "page": 2, "perPage": 1}, &page2)
	if page2.TotalItems != 2 || len(page2.Items) != 1 || page2.Items[0].Name != "Third Age" {
		t.Fatalf("second page of eras %+v", page2)
	}
	var proj struct{ ID, Kind string }
	call(t, session, "create_project", map[string]any{"worldId": w, "kind": "wiki", "name": "Lore"}, &proj)
	var projs struct{ TotalItems int }
	call(t, session, "list_projects", map[string]any{"worldId": w}, &projs)
	if proj.Kind != "wiki" || projs.TotalItems != 1 {
		t.Fatalf("projects %+v %+v", proj, projs)
	}
}

func TestToolsFollowRolesAndPlans(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	bob := s.NewUser("Bob")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	s.AddMember(ann, w, bob, "viewer")
	session := connect(t, s, bob.Key)
	var te toolErr
	if !call(t, session, "apply_content_ops", map[string]any{"worldId": w, "documentId": tl, "ops": []any{map[string]any{"op": "timeline.addEvent", "label": "x", "dateMs": 1}}}, &te) || te.Error.Code != "forbidden" {
		t.Fatalf("viewer write %+v", te)
	}
	if err := s.LW.Store.SetPlan(w, "free"); err != nil {
		t.Fatal(err)
	}
	if !call(t, session, "get_document", map[string]any{"worldId": w, "documentId": tl}, &te) || te.Error.Code != "plan_required" {
		t.Fatalf("free plan read %+v", te)
	}
	var docs struct{ TotalItems int }
	if call(t, session, "list_documents", map[string]any{"worldId": w}, &docs) || docs.TotalItems != 1 {
		t.Fatalf("metadata on free %+v", docs)
	}
	stranger := connect(t, s, s.NewUser("Stranger").Key)
	if !call(t, stranger, "list_documents", map[string]any{"worldId": w}, &te) || te.Error.Code != "not_found" {
		t.Fatalf("stranger %+v", te)
	}
}

func TestUnauthenticated(t *testing.T) {
	s := apptest.Start(t)
	for _, token := range []string{"", "lw_live_nope", "lw_at_unknown"} {
		req, _ := http.NewRequest("POST", s.URL+"/api/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct{ Code, Message string }
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		want := `Bearer resource_metadata="` + s.URL + `/.well-known/oauth-protected-resource/api/mcp"`
		if token != "" {
			// A token that was sent and is not valid says so (RFC 6750), so clients sign in again.
			want += `, error="invalid_token", error_description="the token is unknown, revoked or expired"`
		}
		if res.StatusCode != 401 || res.Header.Get("WWW-Authenticate") != want {
			t.Fatalf("token %q: %d %q", token, res.StatusCode, res.Header.Get("WWW-Authenticate"))
		}
		if err != nil || body.Error.Code != "unauthenticated" || body.Error.Message == "" {
			t.Fatalf("token %q: the 401's body is not the JSON error object: %v %+v", token, err, body)
		}
	}
}

// TestEndpointToTheLetter: /api/mcp/ is /api/mcp; a browser page from another origin gets 403
// unless the operator allowed it; an unknown method is JSON-RPC -32601; a request in a session
// the server does not have is answered.
func TestEndpointToTheLetter(t *testing.T) {
	s := apptest.Start(t, apptest.WithMCPAllowedOrigins("https://inspector.example.com"))
	ann := s.NewUser("Ann")
	post := func(path, origin, session, body string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", s.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+ann.Key)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res, string(data)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tc := range []struct {
		path, origin string
		status       int
	}{
		{"/api/mcp", "", 200},
		{"/api/mcp/", "", 200},
		{"/api/mcp", s.URL, 200},
		{"/api/mcp", "https://inspector.example.com", 200},
		{"/api/mcp", "https://evil.example", 403},
		{"/api/mcp/", "http://localhost:1", 403},
	} {
		res, body := post(tc.path, tc.origin, "", initialize)
		if res.StatusCode != tc.status {
			t.Errorf("%s from %q: %d %s", tc.path, tc.origin, res.StatusCode, body)
		}
		if tc.status == 403 && !strings.Contains(body, `"origin_not_allowed"`) {
			t.Errorf("%s from %q: %s", tc.path, tc.origin, body)
		}
	}

	res, _ := post("/api/mcp", "", "", initialize)
	session := res.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatal("no session id")
	}
	post("/api/mcp", "", session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	_, body := post("/api/mcp", "", session, `{"jsonrpc":"2.0","id":2,"method":"tools/explode","params":{}}`)
	if !strings.Contains(body, "-32601") {
		t.Errorf("an unknown method: %s", body)
	}
	// A stream asked for without a session is a JSON-RPC Invalid Request.
	req, _ := http.NewRequest("GET", s.URL+"/api/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+ann.Key)
	if res, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		var rpc struct {
			JSONRPC string
			Error   struct{ Code int }
		}
		err := json.NewDecoder(res.Body).Decode(&rpc)
		res.Body.Close()
		if res.StatusCode != 400 || err != nil || rpc.JSONRPC != "2.0" || rpc.Error.Code != -32600 {
			t.Errorf("GET without a session: %d %+v %v", res.StatusCode, rpc, err)
		}
	}

	// A body over the limit is a JSON-RPC error too, saying what the REST API says.
	res, body = post("/api/mcp", "", "", `{"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":"`+strings.Repeat("z", 3<<20)+`"}}`)
	var big struct {
		JSONRPC string
		Error   struct {
			Code int
			Data struct {
				Code  string
				Limit int
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &big); res.StatusCode != 413 || err != nil || big.JSONRPC != "2.0" || big.Error.Code != -32600 ||
		big.Error.Data.Code != "body_too_large" || big.Error.Data.Limit != 2<<20 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Errorf("a body over 2 MiB: %d %.300s", res.StatusCode, body)
	}

	// A session the server does not have (restarted, idled out) is served without one.
	res, body = post("/api/mcp", "", "no-such-session", `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`)
	if res.StatusCode != 200 || !strings.Contains(body, `"apply_content_ops"`) {
		t.Errorf("an unknown session: %d %q", res.StatusCode, body)
	}
}
