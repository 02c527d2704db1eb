package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/store"
)

// access is what a route needs, for the authorization matrix.
type access int

const (
	global      access = iota // not world-scoped: any authenticated caller
	readMeta                  // any member, any plan
	readContent               // any member; pro/studio for keys
	edit                      // owner, admin, editor
	editContent               // editor; pro/studio for keys
	manage                    // owner, admin
	own                       // the owner only: other members get 403
	trashed                   // the owner of a world in the trash: anyone else gets 404
	others                    // an invitation addressed to somebody else: 404 to everyone
)

// matrixFixture is a world with one member per role.
type matrixFixture struct {
	t       testing.TB
	s       *apptest.Server
	world   string
	users   map[string]apptest.User
	counter int
	zip     []byte // the world's archive, once exported (see archive)
}

// route describes how to call one route and what it needs. target returns the path and body
// of a fresh call (fresh documents or members where the call consumes them).
type route struct {
	need   access
	target func(f *matrixFixture) (string, any)
}

func (f *matrixFixture) doc(kind string) string {
	f.counter++
	return f.s.Document(f.users["owner"], f.world, fmt.Sprintf("Doc %d", f.counter), kind)
}

// writtenDoc returns a new timeline with one version (written through the store: a free
// world's content is closed to keys).
func (f *matrixFixture) writtenDoc() string {
	id := f.doc("timeline")
	d, err := f.s.LW.Store.Document(f.world, id, "")
	if err != nil {
		f.t.Fatal(err)
	}
	_, err = f.s.LW.Store.ApplyOps(store.WriteRequest{Document: d, Ops: []json.RawMessage{json.RawMessage(`{"op":"timeline.addEvent","label":"x","dateMs":1}`)}})
	if err != nil {
		f.t.Fatal(err)
	}
	return id
}

func (f *matrixFixture) member() string {
	f.counter++
	u := f.s.NewUser(fmt.Sprintf("Member %s %d", f.world, f.counter))
	f.s.AddMember(f.users["owner"], f.world, u, "viewer")
	return u.ID
}

// invitation invites a fresh address (of no account) as the owner and returns its id.
func (f *matrixFixture) invitation() string {
	f.counter++
	return f.s.Invite(f.users["owner"], f.world, fmt.Sprintf("invited-%s-%d@example.test", strings.ToLower(f.world), f.counter), "viewer")
}

// asset uploads a small image as the owner and returns its id.
func (f *matrixFixture) asset() string {
	var a struct{ ID string }
	f.s.Must(uploadAs(f.t, f.s, f.users["owner"].Key, f.world, upload{"map.png", pngBytes(f.t, 4, 4)}), http.StatusCreated).JSON(f.t, &a)
	return a.ID
}

// tool installs a tool of its own (its own name and type) through the store and returns its id.
func (f *matrixFixture) tool() string {
	f.counter++
	return f.s.InstallTool(f.world, smallTool(fmt.Sprintf("matrix-%d", f.counter), fmt.Sprintf("matrix_%d", f.counter))).ID
}

// freshWorld makes a new world of the fixture's owner with the fixture's editor and viewer,
// for calls that delete or restore a world.
func (f *matrixFixture) freshWorld() string {
	f.counter++
	id := f.s.World(f.users["owner"], fmt.Sprintf("Fresh %d", f.counter))
	for _, role := range []string{"editor", "viewer"} {
		f.s.AddMember(f.users["owner"], id, f.users[role], role)
	}
	return id
}

// era creates an era of the world and returns its id.
func (f *matrixFixture) era() string {
	era, err := f.s.LW.Store.CreateEra(f.world, "Era", "")
	if err != nil {
		f.t.Fatal(err)
	}
	return era.ID
}

func (f *matrixFixture) project() string {
	var p struct{ ID string }
	f.s.Must(f.s.Post(f.users["owner"].Key, "/api/v1/worlds/"+f.world+"/projects", map[string]any{"name": "Wiki", "kind": "wiki"}), http.StatusCreated).JSON(f.t, &p)
	return p.ID
}

// webhook registers a disabled webhook through the store (its URL, on loopback, is refused
// at connect time at once: a ping fails fast) and returns its id.
func (f *matrixFixture) webhook() string {
	f.clearWebhooks()
	h, err := f.s.LW.Store.CreateWebhook(f.world, "http://127.0.0.1:9/hook", []string{"document.created"})
	if err == nil {
		off := false
		h, err = f.s.LW.Store.UpdateWebhook(h, store.WebhookChange{Enabled: &off})
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return h.ID
}

// clearWebhooks deletes the world's webhooks, so that the calls never reach the cap.
func (f *matrixFixture) clearWebhooks() {
	hooks, err := f.s.LW.Store.Webhooks(f.world)
	for _, h := range hooks {
		if err == nil {
			err = f.s.LW.Store.DeleteWebhook(h)
		}
	}
	if err != nil {
		f.t.Fatal(err)
	}
}

// matrix lists every /api/v1 route. TestAuthorizationMatrix fails if a registered route is
// missing here.
var matrix = map[string]route{
	"GET /api/v1/me":     {global, func(f *matrixFixture) (string, any) { return "/api/v1/me", nil }},
	"GET /api/v1/worlds": {global, func(f *matrixFixture) (string, any) { return "/api/v1/worlds", nil }},
	"POST /api/v1/worlds": {global, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds", map[string]any{"name": "Another"}
	}},
	"POST /api/v1/worlds/import": {global, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/import?mode=copy", zipBody(f.archive())
	}},
	"GET /api/v1/worlds/{worldId}": {readMeta, func(f *matrixFixture) (string, any) { return "/api/v1/worlds/" + f.world, nil }},
	"GET /api/v1/worlds/{worldId}/export": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/export", nil
	}},
	"PATCH /api/v1/worlds/{worldId}": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world, map[string]any{"genre": "fantasy"}
	}},
	"DELETE /api/v1/worlds/{worldId}": {own, func(f *matrixFixture) (string, any) { return "/api/v1/worlds/" + f.freshWorld(), nil }},
	"POST /api/v1/worlds/{worldId}/restore": {trashed, func(f *matrixFixture) (string, any) {
		id := f.freshWorld()
		if err := f.s.LW.Store.TrashWorld(id); err != nil {
			f.t.Fatal(err)
		}
		return "/api/v1/worlds/" + id + "/restore", nil
	}},
	"GET /api/v1/trash": {global, func(f *matrixFixture) (string, any) { return "/api/v1/trash", nil }},
	"GET /api/v1/worlds/{worldId}/members": {readMeta, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/members", nil
	}},
	"POST /api/v1/worlds/{worldId}/members": {manage, func(f *matrixFixture) (string, any) {
		f.counter++
		u := f.s.NewUser(fmt.Sprintf("Invitee %s %d", f.world, f.counter))
		return "/api/v1/worlds/" + f.world + "/members", map[string]any{"email": u.Email, "role": "viewer"}
	}},
	"DELETE /api/v1/worlds/{worldId}/members/{userId}": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/members/" + f.member(), nil
	}},
	"PATCH /api/v1/worlds/{worldId}/members/{userId}": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/members/" + f.member(), map[string]any{"role": "editor"}
	}},
	"GET /api/v1/worlds/{worldId}/invitations": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/invitations", nil
	}},
	"DELETE /api/v1/worlds/{worldId}/invitations/{invitationId}": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/invitations/" + f.invitation(), nil
	}},
	"GET /api/v1/invitations": {global, func(f *matrixFixture) (string, any) { return "/api/v1/invitations", nil }},
	"POST /api/v1/invitations/{invitationId}/accept": {others, func(f *matrixFixture) (string, any) {
		return "/api/v1/invitations/" + f.invitation() + "/accept", nil
	}},
	"POST /api/v1/invitations/{invitationId}/decline": {others, func(f *matrixFixture) (string, any) {
		return "/api/v1/invitations/" + f.invitation() + "/decline", nil
	}},
	"GET /api/v1/worlds/{worldId}/documents": {readMeta, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/documents", nil
	}},
	"POST /api/v1/worlds/{worldId}/documents": {edit, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/documents", map[string]any{"name": "New", "documentType": "card"}
	}},
	"GET /api/v1/worlds/{worldId}/documents/{documentId}": {readContent, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/documents/" + f.doc("card"), nil
	}},
	"PATCH /api/v1/worlds/{worldId}/documents/{documentId}": {edit, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/documents/" + f.doc("card"), map[string]any{"name": "Renamed"}
	}},
	"DELETE /api/v1/worlds/{worldId}/documents/{documentId}": {edit, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/documents/" + f.doc("card"), nil
	}},
	"GET /api/v1/worlds/{worldId}/documents/{documentId}/links": {readContent, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/documents/" + f.doc("card") + "/links", nil
	}},
	"GET /api/v1/worlds/{worldId}/documents/{documentId}/ops": {readContent, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/documents/" + f.doc("timeline") + "/ops", nil
	}},
	"POST /api/v1/worlds/{worldId}/documents/{documentId}/content": {editContent, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/documents/" + f.doc("timeline") + "/content",
			map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": "x", "dateMs": 1}}}
	}},
	"POST /api/v1/worlds/{worldId}/documents/{documentId}/restore": {editContent, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/documents/" + f.writtenDoc() + "/restore", map[string]any{"version": 0}
	}},
	"GET /api/v1/worlds/{worldId}/eras": {readMeta, func(f *matrixFixture) (string, any) { return "/api/v1/worlds/" + f.world + "/eras", nil }},
	"POST /api/v1/worlds/{worldId}/eras": {edit, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/eras", map[string]any{"name": "Age"}
	}},
	"PATCH /api/v1/worlds/{worldId}/eras/{eraId}": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/eras/" + f.era(), map[string]any{"name": "Renamed"}
	}},
	"DELETE /api/v1/worlds/{worldId}/eras/{eraId}": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/eras/" + f.era(), nil
	}},
	"GET /api/v1/worlds/{worldId}/projects": {readMeta, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/projects", nil
	}},
	"POST /api/v1/worlds/{worldId}/projects": {edit, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/projects", map[string]any{"name": "Wiki", "kind": "wiki"}
	}},
	"GET /api/v1/worlds/{worldId}/assets": {readMeta, func(f *matrixFixture) (string, any) { return "/api/v1/worlds/" + f.world + "/assets", nil }},
	"POST /api/v1/worlds/{worldId}/assets": {edit, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/assets", upload{"map.png", pngBytes(f.t, 4, 4)}
	}},
	"GET /api/v1/worlds/{worldId}/projects/{projectId}": {readMeta, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/projects/" + f.project(), nil
	}},
	"PATCH /api/v1/worlds/{worldId}/projects/{projectId}": {edit, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/projects/" + f.project(), map[string]any{"name": "Renamed"}
	}},
	"DELETE /api/v1/worlds/{worldId}/projects/{projectId}": {edit, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/projects/" + f.project(), nil
	}},
	"GET /api/v1/worlds/{worldId}/assets/{assetId}": {readMeta, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/assets/" + f.asset(), nil
	}},
	"DELETE /api/v1/worlds/{worldId}/assets/{assetId}": {edit, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/assets/" + f.asset(), nil
	}},
	"GET /api/v1/worlds/{worldId}/assets/{assetId}/file": {readMeta, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/assets/" + f.asset() + "/file", nil
	}},
	"GET /api/v1/worlds/{worldId}/tools": {manage, func(f *matrixFixture) (string, any) { return "/api/v1/worlds/" + f.world + "/tools", nil }},
	"POST /api/v1/worlds/{worldId}/tools": {manage, func(f *matrixFixture) (string, any) {
		f.counter++
		return "/api/v1/worlds/" + f.world + "/tools", []byte(smallTool(fmt.Sprintf("posted-%d", f.counter), fmt.Sprintf("posted_%d", f.counter)))
	}},
	"GET /api/v1/worlds/{worldId}/tools/{toolId}": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/tools/" + f.tool(), nil
	}},
	"DELETE /api/v1/worlds/{worldId}/tools/{toolId}": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/tools/" + f.tool(), nil
	}},
	"GET /api/v1/worlds/{worldId}/types": {readMeta, func(f *matrixFixture) (string, any) { return "/api/v1/worlds/" + f.world + "/types", nil }},
	"GET /api/v1/worlds/{worldId}/search": {readContent, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/search?q=doc", nil
	}},
	"GET /api/v1/worlds/{worldId}/events":   {readMeta, func(f *matrixFixture) (string, any) { return "/api/v1/worlds/" + f.world + "/events", nil }},
	"GET /api/v1/worlds/{worldId}/webhooks": {manage, func(f *matrixFixture) (string, any) { return "/api/v1/worlds/" + f.world + "/webhooks", nil }},
	"POST /api/v1/worlds/{worldId}/webhooks": {manage, func(f *matrixFixture) (string, any) {
		f.clearWebhooks()
		return "/api/v1/worlds/" + f.world + "/webhooks", map[string]any{"url": "https://93.184.215.14/hook", "events": []string{"document.created"}, "enabled": false}
	}},
	"GET /api/v1/worlds/{worldId}/webhooks/{webhookId}": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/webhooks/" + f.webhook(), nil
	}},
	"PATCH /api/v1/worlds/{worldId}/webhooks/{webhookId}": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/webhooks/" + f.webhook(), map[string]any{"events": []string{"era.created"}}
	}},
	"DELETE /api/v1/worlds/{worldId}/webhooks/{webhookId}": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/webhooks/" + f.webhook(), nil
	}},
	"GET /api/v1/worlds/{worldId}/webhooks/{webhookId}/deliveries": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/webhooks/" + f.webhook() + "/deliveries", nil
	}},
	"POST /api/v1/worlds/{worldId}/webhooks/{webhookId}/test": {manage, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/webhooks/" + f.webhook() + "/test", nil
	}},
	"GET /api/v1/worlds/{worldId}/documents/{documentId}/events": {readContent, func(f *matrixFixture) (string, any) {
		return "/api/v1/worlds/" + f.world + "/documents/" + f.doc("timeline") + "/events", nil
	}},
}

// expected returns the status class a caller gets: 0 means any 2xx.
func expected(caller string, need access) int {
	switch caller {
	case "no key", "malformed key", "revoked key":
		return 401
	}
	if need == others {
		return 404
	}
	switch caller {
	case "non-member":
		if need == global {
			return 0
		}
		return 404
	case "viewer":
		if need == trashed {
			return 404
		}
		if need == edit || need == editContent || need == manage || need == own {
			return 403
		}
	case "editor":
		if need == trashed {
			return 404
		}
		if need == manage || need == own {
			return 403
		}
	case "free-plan owner":
		if need == readContent || need == editContent {
			return 403
		}
	}
	return 0
}

func TestAuthorizationMatrix(t *testing.T) {
	for _, r := range api.Routes {
		if _, ok := matrix[r.Method+" "+r.Path]; !ok {
			t.Errorf("route %s %s is missing from the authorization matrix", r.Method, r.Path)
		}
	}
	if len(matrix) != len(api.Routes) {
		t.Errorf("the matrix lists %d routes, the API has %d", len(matrix), len(api.Routes))
	}

	s := start(t)
	setup := func(plan string) *matrixFixture {
		f := &matrixFixture{t: t, s: s, users: map[string]apptest.User{}}
		f.users["owner"] = s.NewUser("Owner " + plan)
		f.world = s.World(f.users["owner"], "Matrix "+plan)
		for _, role := range []string{"editor", "viewer"} {
			u := s.NewUser(role + " " + plan)
			s.AddMember(f.users["owner"], f.world, u, role)
			f.users[role] = u
		}
		if plan != "studio" {
			if err := s.LW.Store.SetPlan(f.world, plan); err != nil {
				t.Fatal(err)
			}
		}
		return f
	}
	studio, free := setup("studio"), setup("free")
	revoked := s.NewUser("Revoked")
	if err := s.LW.Keys.Revoke(revoked.ID, revoked.KeyID); err != nil {
		t.Fatal(err)
	}
	stranger := s.NewUser("Stranger")
	callers := []struct {
		name   string
		f      *matrixFixture
		header string
	}{
		{"no key", studio, ""},
		{"malformed key", studio, "Bearer lw_live_not-a-key"},
		{"revoked key", studio, "Bearer " + revoked.Key},
		{"non-member", studio, "Bearer " + stranger.Key},
		{"viewer", studio, "Bearer " + studio.users["viewer"].Key},
		{"editor", studio, "Bearer " + studio.users["editor"].Key},
		{"owner", studio, "Bearer " + studio.users["owner"].Key},
		{"free-plan owner", free, "Bearer " + free.users["owner"].Key},
	}
	for key, rt := range matrix {
		method := strings.SplitN(key, " ", 2)[0]
		for _, c := range callers {
			path, body := rt.target(c.f)
			want := expected(c.name, rt.need)
			status := send(t, s, method, path, body, c.header)
			ok := status == want || (want == 0 && status >= 200 && status < 300)
			if !ok {
				t.Errorf("%s as %s: status %d, want %d", key, c.name, status, want)
			}
		}
	}
}

// send makes one call and returns its status; event streams are closed once they answer.
func send(t *testing.T, s *apptest.Server, method, path string, body any, authz string) int {
	t.Helper()
	h := http.Header{}
	if authz != "" {
		h.Set("Authorization", authz)
	}
	if strings.HasSuffix(strings.SplitN(path, "?", 2)[0], "/events") {
		st := s.StreamRequest(path, h, &http.Client{Timeout: 10 * time.Second})
		st.Close()
		return st.Status
	}
	if z, ok := body.(zipBody); ok {
		h.Set("Content-Type", "application/zip")
		body = []byte(z)
	}
	if u, ok := body.(upload); ok {
		data, ctype := u.multipartBody(t)
		h.Set("Content-Type", ctype)
		body = data
	}
	return s.Do(apptest.Request{Method: method, Path: path, Body: body, Header: h}).Status
}
