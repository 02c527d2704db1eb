package api_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

func TestMe(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann Author")
	var me struct {
		ID, Email, Name string
		Credential      struct{ Kind, ID string }
	}
	s.Must(s.Get(ann.Key, "/api/v1/me"), http.StatusOK).JSON(t, &me)
	if me.ID != ann.ID || me.Email != ann.Email || me.Name != "Ann Author" || me.Credential.Kind != "api_key" || me.Credential.ID != ann.KeyID {
		t.Fatalf("me = %+v", me)
	}
}

func TestCreateListGetWorld(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	bob := s.NewUser("Bob")

	res := s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "  The Shattered Isles ", "genre": "Fantasy"}), http.StatusCreated)
	var w struct{ ID, Slug, Name, Genre, Theme, Plan, Role, OwnerID string }
	res.JSON(t, &w)
	if w.Name != "The Shattered Isles" || !slugOf.MatchString(w.Slug) || !strings.HasPrefix(w.Slug, "the-shattered-isles-") || w.Theme != "parchment" || w.Plan != "studio" || w.Role != "owner" || w.OwnerID != ann.ID {
		t.Fatalf("created world = %+v", w)
	}
	// The same name again gets a distinct slug.
	var w2 struct{ Slug string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "The Shattered Isles"}), http.StatusCreated).JSON(t, &w2)
	if w2.Slug == w.Slug || !slugOf.MatchString(w2.Slug) || !strings.HasPrefix(w2.Slug, "the-shattered-isles-") {
		t.Fatalf("second slug %q", w2.Slug)
	}
	// Unknown genres get the default theme.
	var w3 struct{ Theme string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Odd", "genre": "cozy gardening"}), http.StatusCreated).JSON(t, &w3)
	if w3.Theme != "classic" {
		t.Fatalf("default theme %q", w3.Theme)
	}

	var l struct {
		Items                     []struct{ ID, Role string }
		Page, PerPage, TotalItems int
	}
	s.Must(s.Get(ann.Key, "/api/v1/worlds"), http.StatusOK).JSON(t, &l)
	if l.TotalItems != 3 || len(l.Items) != 3 || l.Items[0].ID != w.ID || l.Page != 1 || l.PerPage != 50 {
		t.Fatalf("list = %+v", l)
	}
	s.Must(s.Get(ann.Key, "/api/v1/worlds?perPage=2&page=2"), http.StatusOK).JSON(t, &l)
	if l.TotalItems != 3 || len(l.Items) != 1 || l.Page != 2 {
		t.Fatalf("page 2 = %+v", l)
	}

	// Bob sees none of Ann's worlds, and gets 404 (not 403) for one.
	s.Must(s.Get(bob.Key, "/api/v1/worlds"), http.StatusOK).JSON(t, &l)
	if l.TotalItems != 0 || l.Items == nil {
		t.Fatalf("bob's list = %+v", l)
	}
	if res := s.Get(bob.Key, "/api/v1/worlds/"+w.ID); res.Status != http.StatusNotFound || res.ErrorCode() != "not_found" {
		t.Fatalf("non-member get: %d %s", res.Status, res.Body)
	}
	var got struct{ ID, Role string }
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID), http.StatusOK).JSON(t, &got)
	if got.ID != w.ID || got.Role != "owner" {
		t.Fatalf("get = %+v", got)
	}
	if res := s.Get(ann.Key, "/api/v1/worlds/nosuchworld0000"); res.Status != http.StatusNotFound {
		t.Fatalf("unknown world: %d", res.Status)
	}
}

func TestDefaultPlanIsConfigurable(t *testing.T) {
	s := start(t, apptest.WithDefaultPlan("free"))
	ann := s.NewUser("Ann")
	var w struct{ Plan string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Budget world"}), http.StatusCreated).JSON(t, &w)
	if w.Plan != "free" {
		t.Fatalf("plan %q", w.Plan)
	}
}

// slugOf is the shape of every world slug: the name, then "-" and five random characters.
var slugOf = regexp.MustCompile(`^[a-z0-9-]+-[a-z0-9]{5}$`)

// TestSlugRevealsNoOtherWorld: a world's slug is the same shape whether or not another user
// already has a world of that name, so it tells its owner nothing about other worlds.
func TestSlugRevealsNoOtherWorld(t *testing.T) {
	s := start(t)
	for _, name := range []string{"Ann", "Bob"} {
		u := s.NewUser(name)
		var w struct{ Slug string }
		s.Must(s.Post(u.Key, "/api/v1/worlds", map[string]any{"name": "Outsider World"}), http.StatusCreated).JSON(t, &w)
		if !slugOf.MatchString(w.Slug) || !strings.HasPrefix(w.Slug, "outsider-world-") {
			t.Fatalf("%s's slug %q", name, w.Slug)
		}
	}
}
