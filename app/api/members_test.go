package api_test

import (
	"net/http"
	"testing"
)

func TestMembers(t *testing.T) {
	s := start(t)
	owner := s.NewUser("Owner")
	admin := s.NewUser("Admin")
	ed := s.NewUser("Editor")
	viewer := s.NewUser("Viewer")
	w := s.World(owner, "Eldoria")
	base := "/api/v1/worlds/" + w + "/members"

	var m struct{ UserID, Email, Role string }
	s.Must(s.Post(owner.Key, base, map[string]any{"email": admin.Email, "role": "admin"}), http.StatusCreated).JSON(t, &m)
	if m.UserID != admin.ID || m.Role != "admin" || m.Email != admin.Email {
		t.Fatalf("member %+v", m)
	}
	// Admins add editors and viewers, not admins.
	s.Must(s.Post(admin.Key, base, map[string]any{"email": ed.Email, "role": "editor"}), http.StatusCreated)
	if res := s.Post(admin.Key, base, map[string]any{"email": viewer.Email, "role": "admin"}); res.Status != 403 {
		t.Fatalf("admin added admin: %d", res.Status)
	}
	s.Must(s.Post(admin.Key, base, map[string]any{"email": viewer.Email, "role": "viewer"}), http.StatusCreated)
	// Nobody adds an owner; editors and viewers cannot add anyone.
	if res := s.Post(owner.Key, base, map[string]any{"email": viewer.Email, "role": "owner"}); res.Status != 422 || res.ErrorCode() != "invalid_field" {
		t.Fatalf("owner role: %d %s", res.Status, res.Body)
	}
	stranger := s.NewUser("Stranger")
	if res := s.Post(ed.Key, base, map[string]any{"email": stranger.Email, "role": "viewer"}); res.Status != 403 {
		t.Fatalf("editor added member: %d", res.Status)
	}
	if res := s.Post(owner.Key, base, map[string]any{"email": viewer.Email, "role": "editor"}); res.Status != 409 || res.ErrorCode() != "already_member" {
		t.Fatalf("duplicate: %d %s", res.Status, res.Body)
	}
	if res := s.Post(owner.Key, base, map[string]any{"email": "nobody@example.test", "role": "viewer"}); res.Status != 422 || res.ErrorCode() != "unknown_user" {
		t.Fatalf("unknown user: %d %s", res.Status, res.Body)
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
