package api_test

import (
	"net/http"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

func TestMembers(t *testing.T) {
	s := start(t)
	owner := s.NewUser("Owner")
	admin := s.NewUser("Admin")
	ed := s.NewUser("Editor")
	viewer := s.NewUser("Viewer")
	w := s.World(owner, "Eldoria")
	base := "/api/v1/worlds/" + w + "/members"

	s.AddMember(owner, w, admin, "admin")
	// Admins invite editors and viewers, not admins.
	s.AddMember(admin, w, ed, "editor")
	if res := s.Post(admin.Key, base, map[string]any{"email": viewer.Email, "role": "admin"}); res.Status != 403 {
		t.Fatalf("admin invited an admin: %d", res.Status)
	}
	s.AddMember(admin, w, viewer, "viewer")
	// Nobody invites an owner; editors and viewers invite nobody.
	if res := s.Post(owner.Key, base, map[string]any{"email": "new@example.test", "role": "owner"}); res.Status != 422 || res.ErrorCode() != "invalid_field" {
		t.Fatalf("owner role: %d %s", res.Status, res.Body)
	}
	if res := s.Post(owner.Key, base, map[string]any{"email": "not an address", "role": "viewer"}); res.Status != 422 || res.ErrorCode() != "invalid_field" {
		t.Fatalf("bad email: %d %s", res.Status, res.Body)
	}
	stranger := s.NewUser("Stranger")
	if res := s.Post(ed.Key, base, map[string]any{"email": stranger.Email, "role": "viewer"}); res.Status != 403 {
		t.Fatalf("editor invited: %d", res.Status)
	}
	// A member's email: managers see it in the list anyway.
	if res := s.Post(owner.Key, base, map[string]any{"email": viewer.Email, "role": "editor"}); res.Status != 409 || res.ErrorCode() != "already_member" {
		t.Fatalf("member invited: %d %s", res.Status, res.Body)
	}
	if n := s.Count("invitations", ""); n != 0 {
		t.Fatalf("refused invitations left %d rows", n)
	}

	var l struct {
		Items      []struct{ UserID, Role string }
		TotalItems int
	}
	s.Must(s.Get(viewer.Key, base), http.StatusOK).JSON(t, &l)
	if l.TotalItems != 4 || l.Items[0].Role != "owner" || l.Items[0].UserID != owner.ID {
		t.Fatalf("list %+v", l)
	}

	// Removal rules.
	if res := s.Do(del(ed.Key, base+"/"+viewer.ID)); res.Status != 403 {
		t.Fatalf("editor removed viewer: %d", res.Status)
	}
	if res := s.Do(del(admin.Key, base+"/"+owner.ID)); res.Status != 409 || res.ErrorCode() != "owner_required" {
		t.Fatalf("owner removed: %d %s", res.Status, res.Body)
	}
	s.Must(s.Do(del(admin.Key, base+"/"+viewer.ID)), http.StatusNoContent)
	if res := s.Get(viewer.Key, "/api/v1/worlds/"+w); res.Status != 404 {
		t.Fatalf("removed member still sees the world: %d", res.Status)
	}
	s.Must(s.Do(del(ed.Key, base+"/"+ed.ID)), http.StatusNoContent) // leaving
	if res := s.Do(del(owner.Key, base+"/"+ed.ID)); res.Status != 404 {
		t.Fatalf("remove non-member: %d", res.Status)
	}
	if res := s.Do(del(stranger.Key, base+"/"+admin.ID)); res.Status != 404 {
		t.Fatalf("stranger: %d", res.Status)
	}
	s.Must(s.Do(del(owner.Key, base+"/"+admin.ID)), http.StatusNoContent)
}

// TestMemberRoleChanges walks who may change whose role to what, and checks that a refused
// change changes nothing.
func TestMemberRoleChanges(t *testing.T) {
	s := start(t)
	owner, admin, admin2 := s.NewUser("Owner"), s.NewUser("Admin"), s.NewUser("Admin Two")
	ed, vi, stranger := s.NewUser("Editor"), s.NewUser("Viewer"), s.NewUser("Stranger")
	w := s.World(owner, "Eldoria")
	base := "/api/v1/worlds/" + w + "/members/"
	users := map[string]apptest.User{"owner": owner, "admin": admin, "admin2": admin2, "editor": ed, "viewer": vi, "stranger": stranger}
	s.AddMember(owner, w, admin, "admin")
	s.AddMember(owner, w, admin2, "admin")
	s.AddMember(owner, w, ed, "editor")
	s.AddMember(owner, w, vi, "viewer")

	role := func(u apptest.User) string {
		var m struct{ Role string }
		res := s.Get(owner.Key, "/api/v1/worlds/"+w+"/members")
		var l struct {
			Items []struct{ UserID, Role string }
		}
		res.JSON(t, &l)
		for _, it := range l.Items {
			if it.UserID == u.ID {
				m.Role = it.Role
			}
		}
		return m.Role
	}
	cases := []struct {
		by, target, to string
		status         int
		code           string
	}{
		{"stranger", "viewer", "editor", 404, "not_found"},
		{"viewer", "editor", "viewer", 403, "forbidden"},
		{"editor", "viewer", "editor", 403, "forbidden"},
		{"admin", "viewer", "admin", 403, "forbidden"},
		{"admin", "admin2", "viewer", 403, "forbidden"},
		{"admin", "admin", "editor", 403, "forbidden"},
		{"admin", "owner", "viewer", 409, "owner_required"},
		{"owner", "owner", "admin", 409, "owner_required"},
		{"admin", "editor", "owner", 403, "forbidden"},
		{"owner", "editor", "owner", 409, "admin_required"},
		{"owner", "viewer", "superuser", 422, "invalid_field"},
		{"owner", "stranger", "viewer", 404, "not_found"},
		// Allowed: admins move editors and viewers between those roles; the owner does all.
		{"admin", "viewer", "editor", 200, ""},
		{"admin", "viewer", "viewer", 200, ""},
		{"owner", "editor", "admin", 200, ""},
		{"owner", "editor", "editor", 200, ""},
		{"owner", "admin2", "viewer", 200, ""},
		{"owner", "admin2", "viewer", 200, ""}, // no change, no event
	}
	for _, c := range cases {
		before := role(users[c.target])
		res := s.Do(patch(users[c.by].Key, base+users[c.target].ID, map[string]any{"role": c.to}))
		if res.Status != c.status || (c.code != "" && res.ErrorCode() != c.code) {
			t.Errorf("%s sets %s to %s: %d %s, want %d %s", c.by, c.target, c.to, res.Status, res.Body, c.status, c.code)
			continue
		}
		if got := role(users[c.target]); c.status == 200 && got != c.to || c.status != 200 && got != before {
			t.Errorf("%s sets %s to %s: role now %q (was %q)", c.by, c.target, c.to, got, before)
		}
	}
	// A demoted admin no longer manages at once (the role is cached per request otherwise).
	if res := s.Get(admin2.Key, "/api/v1/worlds/"+w+"/invitations"); res.Status != 403 {
		t.Fatalf("demoted admin lists invitations: %d", res.Status)
	}
	// Only real changes are events: viewer→editor→viewer, editor→admin→editor, admin2→viewer.
	if n := s.Count("outbox", "kind = 'member.role' AND world = '"+w+"'"); n != 5 {
		t.Fatalf("member.role rows: %d, want 5", n)
	}
}

// TestOwnershipTransfer: the owner hands the world to an admin, who becomes the owner; the
// old owner becomes an admin, and the world stream says so for both.
func TestOwnershipTransfer(t *testing.T) {
	s := start(t)
	ann, bob := s.NewUser("Ann"), s.NewUser("Bob")
	w := s.World(ann, "Eldoria")
	s.AddMember(ann, w, bob, "admin")
	st := s.Stream(bob.Key, "/api/v1/worlds/"+w+"/events")
	st.Expect(t, "ready")

	var m struct{ UserID, Role string }
	s.Must(s.Do(patch(ann.Key, "/api/v1/worlds/"+w+"/members/"+bob.ID, map[string]any{"role": "owner"})), http.StatusOK).JSON(t, &m)
	if m.UserID != bob.ID || m.Role != "owner" {
		t.Fatalf("answer %+v", m)
	}
	var world struct{ OwnerID, Role string }
	s.Must(s.Get(bob.Key, "/api/v1/worlds/"+w), http.StatusOK).JSON(t, &world)
	if world.OwnerID != bob.ID || world.Role != "owner" {
		t.Fatalf("world as Bob sees it: %+v", world)
	}
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w), http.StatusOK).JSON(t, &world)
	if world.OwnerID != bob.ID || world.Role != "admin" {
		t.Fatalf("world as Ann sees it: %+v", world)
	}
	// The world stream tells of the change, and stays open.
	ev := st.Expect(t, "member.role")
	if ev.Data == "" {
		t.Fatal("member.role event without data")
	}
	// Ann, now an admin, can no longer give it back, nor remove Bob.
	if res := s.Do(patch(ann.Key, "/api/v1/worlds/"+w+"/members/"+ann.ID, map[string]any{"role": "owner"})); res.Status != 403 {
		t.Fatalf("old owner takes ownership back: %d %s", res.Status, res.Body)
	}
	if res := s.Do(del(ann.Key, "/api/v1/worlds/"+w+"/members/"+bob.ID)); res.Status != 409 {
		t.Fatalf("old owner removes the new one: %d", res.Status)
	}
	// Bob hands it back.
	s.Must(s.Do(patch(bob.Key, "/api/v1/worlds/"+w+"/members/"+ann.ID, map[string]any{"role": "owner"})), http.StatusOK)
	if n := s.Count("world_members", "world = '"+w+"' AND role = 'owner'"); n != 1 {
		t.Fatalf("%d owners", n)
	}
	if n := s.Count("worlds", "id = '"+w+"' AND owner = '"+ann.ID+"'"); n != 1 {
		t.Fatal("the world's owner is not Ann again")
	}
}
