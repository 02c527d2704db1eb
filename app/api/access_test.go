package api_test

import (
	"net/http"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/auth"
)

func TestAuthentication(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	good := ann.Key
	tampered := good[:len(good)-1] + string("ABCDEFGHIJ"[(int(good[len(good)-1])+1)%10])
	unknown := auth.NewKeySecret() // well-formed, never issued

	for name, h := range map[string]string{
		"no credential":   "",
		"not bearer":      "Basic YW5uOnB3",
		"empty bearer":    "Bearer ",
		"not a key":       "Bearer hello",
		"bad checksum":    "Bearer " + tampered,
		"truncated key":   "Bearer " + good[:20],
		"unknown key":     "Bearer " + unknown,
		"key with spaces": "Bearer lw_live_ abc",
	} {
		t.Run(name, func(t *testing.T) {
			hd := http.Header{}
			if h != "" {
				hd.Set("Authorization", h)
			}
			res := s.Do(apptest.Request{Method: "GET", Path: "/api/v1/me", Header: hd})
			if res.Status != http.StatusUnauthorized || res.ErrorCode() != "unauthenticated" {
				t.Fatalf("got %d %s", res.Status, res.Body)
			}
			if res.Header.Get("WWW-Authenticate") == "" {
				t.Fatal("no WWW-Authenticate header")
			}
		})
	}
	if auth.WellFormedKey(tampered) || !auth.WellFormedKey(good) {
		t.Fatal("checksum check is wrong")
	}
	// Keys are stored hashed only.
	if n := s.Count("api_keys", "hash = '"+auth.HashKey(good)+"'"); n != 1 {
		t.Fatalf("hash rows %d", n)
	}
	var leaked int
	_ = s.PB.DB().NewQuery("SELECT COUNT(*) FROM api_keys WHERE hash LIKE '%lw_live_%' OR name LIKE '%" + good[8:] + "%' OR prefix = {:k}").Bind(map[string]any{"k": good}).Row(&leaked)
	if leaked != 0 {
		t.Fatal("the key is stored in clear")
	}
}

func TestRevokedKeyIsRejectedAtOnce(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	s.Must(s.Get(ann.Key, "/api/v1/me"), http.StatusOK)
	if err := s.LW.Keys.Revoke(ann.ID, ann.KeyID); err != nil {
		t.Fatal(err)
	}
	res := s.Get(ann.Key, "/api/v1/me")
	if res.Status != http.StatusUnauthorized || res.ErrorCode() != "unauthenticated" {
		t.Fatalf("revoked key: %d %s", res.Status, res.Body)
	}
	// Another user cannot revoke Ann's keys.
	bob := s.NewUser("Bob")
	key2, rec, _ := s.LW.Keys.Create(ann.ID, "second")
	if err := s.LW.Keys.Revoke(bob.ID, rec.ID); err == nil {
		t.Fatal("bob revoked ann's key")
	}
	s.Must(s.Get(key2, "/api/v1/me"), http.StatusOK)
}

// TestRoles walks each role over a read, a structural write, a content write and member
// management.
func TestRoles(t *testing.T) {
	s := start(t)
	owner := s.NewUser("Owner")
	w := s.World(owner, "Eldoria")
	tl := s.Document(owner, w, "History", "timeline")
	users := map[string]apptest.User{"owner": owner}
	for _, role := range []string{"admin", "editor", "viewer"} {
		u := s.NewUser(role + " user")
		s.AddMember(owner, w, u, role)
		users[role] = u
	}
	users["stranger"] = s.NewUser("Stranger")

	type call struct {
		name   string
		method string
		path   string
		body   any
	}
	base := "/api/v1/worlds/" + w
	calls := []call{
		{"get world", "GET", base, nil},
		{"list documents", "GET", base + "/documents", nil},
		{"read document", "GET", base + "/documents/" + tl, nil},
		{"search", "GET", base + "/search?q=history", nil},
		{"list eras", "GET", base + "/eras", nil},
		{"list projects", "GET", base + "/projects", nil},
		{"list members", "GET", base + "/members", nil},
		{"create document", "POST", base + "/documents", map[string]any{"name": "x", "documentType": "card"}},
		{"content ops", "POST", base + "/documents/" + tl + "/content", ops(map[string]any{"op": "timeline.addEvent", "label": "x", "dateMs": 1})},
		{"create era", "POST", base + "/eras", map[string]any{"name": "x"}},
		{"create project", "POST", base + "/projects", map[string]any{"name": "x", "kind": "wiki"}},
	}
	want := map[string]map[string]int{}
	for _, role := range []string{"owner", "admin", "editor", "viewer", "stranger"} {
		want[role] = map[string]int{}
		for _, c := range calls {
			switch {
			case role == "stranger":
				want[role][c.name] = 404
			case c.method == "POST" && role == "viewer":
				want[role][c.name] = 403
			case c.method == "POST":
				want[role][c.name] = 0 // 200 or 201
			default:
				want[role][c.name] = 200
			}
		}
	}
	for role, u := range users {
		for _, c := range calls {
			res := s.Do(apptest.Request{Method: c.method, Path: c.path, Key: u.Key, Body: c.body})
			w := want[role][c.name]
			ok := res.Status == w || (w == 0 && (res.Status == 200 || res.Status == 201))
			if !ok {
				t.Errorf("%s %s: got %d, want %d: %s", role, c.name, res.Status, w, res.Body)
			}
			if w == 403 && res.ErrorCode() != "forbidden" {
				t.Errorf("%s %s: code %s", role, c.name, res.ErrorCode())
			}
		}
	}
}

// TestPlanGate: keys on a free world may read metadata but not content; the web session is
// never gated.
func TestPlanGate(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	base := "/api/v1/worlds/" + w
	if err := s.LW.Store.SetPlan(w, "free"); err != nil {
		t.Fatal(err)
	}

	for _, p := range []string{base, base + "/documents", base + "/eras", base + "/projects", base + "/members"} {
		s.Must(s.Get(ann.Key, p), http.StatusOK)
	}
	s.Must(s.Post(ann.Key, base+"/documents", map[string]any{"name": "Map", "documentType": "map"}), http.StatusCreated)
	s.Must(s.Post(ann.Key, base+"/eras", map[string]any{"name": "Age"}), http.StatusCreated)
	for _, res := range []*apptest.Response{
		s.Get(ann.Key, base+"/documents/"+tl),
		s.Get(ann.Key, base+"/search?q=history"),
		s.Post(ann.Key, base+"/documents/"+tl+"/content", ops(map[string]any{"op": "timeline.addEvent", "label": "x", "dateMs": 1})),
	} {
		if res.Status != http.StatusForbidden || res.ErrorCode() != "plan_required" {
			t.Fatalf("gated call: %d %s", res.Status, res.Body)
		}
	}

	// The session cookie reads content on a free world, but cannot write through /api/v1.
	browser := s.SignIn(ann)
	s.Must(s.Do(apptest.Request{Method: "GET", Path: base + "/documents/" + tl, Client: browser}), http.StatusOK)
	s.Must(s.Do(apptest.Request{Method: "GET", Path: "/api/v1/me", Client: browser}), http.StatusOK)
	res := s.Do(apptest.Request{Method: "POST", Path: base + "/documents/" + tl + "/content", Client: browser,
		Body: ops(map[string]any{"op": "timeline.addEvent", "label": "x", "dateMs": 1})})
	if res.Status != http.StatusUnauthorized {
		t.Fatalf("cookie write: %d %s", res.Status, res.Body)
	}

	// Upgrading takes effect on the next request.
	if err := s.LW.Store.SetPlan(w, "pro"); err != nil {
		t.Fatal(err)
	}
	s.Must(s.Get(ann.Key, base+"/documents/"+tl), http.StatusOK)
}
