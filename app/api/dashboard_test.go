package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestDashboardChangesTakeEffectAtOnce: worlds, memberships and keys changed as PocketBase
// records (the dashboard, PocketBase's records API as a superuser, app.Save) used to be
// ignored by the access caches until a restart (keys: for a minute). Each change now counts
// from the next request, and closes the streams it no longer allows.
func TestDashboardChangesTakeEffectAtOnce(t *testing.T) {
	s := start(t)
	ann, bob := s.NewUser("Ann"), s.NewUser("Bob")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	s.AddMember(ann, w, bob, "editor")
	base := "/api/v1/worlds/" + w
	write := func() *apptest.Response {
		return s.Post(bob.Key, base+"/documents", map[string]any{"name": "x", "documentType": "card"})
	}
	// Bob's role and the world are cached by these.
	s.Must(s.Get(bob.Key, base), http.StatusOK)
	s.Must(write(), http.StatusCreated)
	s.Must(s.Get(ann.Key, base+"/documents/"+tl), http.StatusOK)

	// A superuser of the dashboard, through PocketBase's own records API.
	su := core.NewRecord(mustCollection(t, s, core.CollectionNameSuperusers))
	su.SetEmail("root@example.test")
	su.SetPassword("root password 123")
	if err := s.PB.Save(su); err != nil {
		t.Fatal(err)
	}
	var signedIn struct {
		Token string `json:"token"`
	}
	s.Must(s.Post("", "/api/collections/_superusers/auth-with-password", map[string]any{"identity": "root@example.test", "password": "root password 123"}), http.StatusOK).JSON(t, &signedIn)
	dashboard := func(method, path string, body any) {
		t.Helper()
		res := s.Do(apptest.Request{Method: method, Path: path, Body: body, Header: http.Header{"Authorization": {signedIn.Token}}})
		if res.Status != http.StatusOK && res.Status != http.StatusNoContent {
			t.Fatalf("%s %s: %d %s", method, path, res.Status, res.Body)
		}
	}
	member, err := s.PB.FindFirstRecordByFilter("world_members", "world = {:w} && user = {:u}", map[string]any{"w": w, "u": bob.ID})
	if err != nil {
		t.Fatal(err)
	}

	// A demoted editor no longer writes.
	dashboard(http.MethodPatch, "/api/collections/world_members/records/"+member.Id, map[string]any{"role": "viewer"})
	if res := write(); res.Status != http.StatusForbidden {
		t.Fatalf("write after the demotion: %d %s", res.Status, res.Body)
	}
	// A deleted membership no longer reads, and its open streams close.
	stream := s.Stream(bob.Key, base+"/events")
	if stream.Status != http.StatusOK {
		t.Fatalf("Bob's world stream: %d", stream.Status)
	}
	stream.Expect(t, "ready")
	dashboard(http.MethodDelete, "/api/collections/world_members/records/"+member.Id, nil)
	if res := s.Get(bob.Key, base); res.Status != http.StatusNotFound {
		t.Fatalf("read after the membership was deleted: %d %s", res.Status, res.Body)
	}
	if err := stream.Closed(5 * time.Second); err != nil {
		t.Fatalf("Bob's world stream after the membership was deleted: %v", err)
	}
	// A document renamed there has its new name at once (its metadata was cached).
	doc, err := s.PB.FindRecordById("documents", tl)
	if err != nil {
		t.Fatal(err)
	}
	doc.Set("name", "Chronicle")
	if err := s.PB.Save(doc); err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Name string `json:"name"`
	}
	s.Must(s.Get(ann.Key, base+"/documents/"+tl), http.StatusOK).JSON(t, &meta)
	if meta.Name != "Chronicle" {
		t.Fatalf("name after the rename: %q", meta.Name)
	}
	// A world switched to free by app.Save (what the dashboard does) gates content at once.
	world, err := s.PB.FindRecordById("worlds", w)
	if err != nil {
		t.Fatal(err)
	}
	world.Set("plan", "free")
	if err := s.PB.Save(world); err != nil {
		t.Fatal(err)
	}
	if res := s.Get(ann.Key, base+"/documents/"+tl); res.Status != http.StatusForbidden || res.ErrorCode() != "plan_required" {
		t.Fatalf("content read after the switch to free: %d %s", res.Status, res.Body)
	}
	// A key revoked there stops working at once (it was cached), and its streams close; so
	// does one whose record is deleted.
	for _, method := range []string{http.MethodPatch, http.MethodDelete} {
		key, rec, err := s.LW.Keys.Create(ann.ID, "script")
		if err != nil {
			t.Fatal(err)
		}
		s.Must(s.Get(key, "/api/v1/me"), http.StatusOK)
		keyStream := s.Stream(key, base+"/events")
		keyStream.Expect(t, "ready")
		var body any
		if method == http.MethodPatch {
			body = map[string]any{"revokedAt": time.Now().UTC().Format("2006-01-02 15:04:05.000Z")}
		}
		dashboard(method, "/api/collections/api_keys/records/"+rec.ID, body)
		if res := s.Get(key, "/api/v1/me"); res.Status != http.StatusUnauthorized {
			t.Fatalf("key after %s in the dashboard: %d %s", method, res.Status, res.Body)
		}
		if err := keyStream.Closed(5 * time.Second); err != nil {
			t.Fatalf("stream of a key after %s in the dashboard: %v", method, err)
		}
	}
	// The outbox says so too, for other processes and the streams.
	if n := s.Count("outbox", "kind = 'world.plan' AND world = '"+w+"' AND subject = 'free'"); n != 1 {
		t.Fatalf("world.plan outbox rows: %d", n)
	}
	if n := s.Count("outbox", "kind IN ('member.role', 'member.removed') AND world = '"+w+"' AND subject = '"+bob.ID+"'"); n != 2 {
		t.Fatalf("member outbox rows: %d", n)
	}
}

func mustCollection(t *testing.T, s *apptest.Server, name string) *core.Collection {
	t.Helper()
	c, err := s.PB.FindCollectionByNameOrId(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
