package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// The settings page is the owner's and admins' only: editors and viewers get 403, anyone
// else the shared 404; the world page links to it for them alone.
func TestWorldSettingsPageAccess(t *testing.T) {
	s := apptest.Start(t)
	owner, admin, editorU, viewer, other := s.NewUser("Owner"), s.NewUser("Admin"), s.NewUser("Editor"), s.NewUser("Viewer"), s.NewUser("Other")
	var w struct{ ID, Slug string }
	s.Must(s.Post(owner.Key, "/api/v1/worlds", map[string]any{"name": "Eldoria", "genre": "fantasy"}), http.StatusCreated).JSON(t, &w)
	s.AddMember(owner, w.ID, admin, "admin")
	s.AddMember(owner, w.ID, editorU, "editor")
	s.AddMember(owner, w.ID, viewer, "viewer")
	settings := "/w/" + w.Slug + "/settings"
	for _, c := range []struct {
		u      apptest.User
		status int
		danger int
	}{{owner, 200, 1}, {admin, 200, 0}, {editorU, 403, 0}, {viewer, 403, 0}, {other, 404, 0}} {
		b := s.SignIn(c.u)
		d := page(t, s, b, settings, c.status)
		if got := d.Find(`[data-testid="danger-zone"]`).Length(); got != c.danger {
			t.Errorf("%s sees %d danger zones, want %d", c.u.Email, got, c.danger)
		}
		if c.status != 200 {
			continue
		}
		for _, link := range []struct{ testid, href string }{
			{"settings-members", "/w/" + w.Slug + "/members"}, {"settings-webhooks", "/w/" + w.Slug + "/webhooks"}, {"settings-export", "/w/" + w.Slug + "/export"},
		} {
			if href := d.Find(`[data-testid="`+link.testid+`"]`).AttrOr("href", ""); href != link.href {
				t.Errorf("%s link %q, want %q", link.testid, href, link.href)
			}
		}
		if _, ok := d.Find(`[data-testid="settings-export"]`).Attr("download"); !ok {
			t.Error("the export link does not download")
		}
		if v := d.Find(`[data-testid="settings-name"]`).AttrOr("value", ""); v != "Eldoria" {
			t.Errorf("name field %q", v)
		}
		if d.Find(`label[for="settings-name"]`).Length() != 1 || d.Find(`label[for="settings-genre"]`).Length() != 1 {
			t.Error("the settings fields are not labelled")
		}
	}
	for _, c := range []struct {
		u    apptest.User
		link int
	}{{owner, 1}, {admin, 1}, {editorU, 0}, {viewer, 0}} {
		d := page(t, s, s.SignIn(c.u), "/w/"+w.Slug, 200)
		if got := d.Find(`[data-testid="world-settings"]`).Length(); got != c.link {
			t.Errorf("%s sees %d settings links on the world page, want %d", c.u.Email, got, c.link)
		}
	}
	// An admin cannot delete the world, even by posting the form.
	ad := newEditor(t, s, admin)
	if res := ad.post(settings+"/delete", url.Values{}); res.Status != http.StatusForbidden {
		t.Fatalf("admin's delete: %d", res.Status)
	}
	s.Must(s.Get(owner.Key, "/api/v1/worlds/"+w.ID), http.StatusOK)
}

func TestWorldSettingsForms(t *testing.T) {
	s := apptest.Start(t)
	owner := s.NewUser("Owner")
	var w struct{ ID, Slug string }
	s.Must(s.Post(owner.Key, "/api/v1/worlds", map[string]any{"name": "Eldoria"}), http.StatusCreated).JSON(t, &w)
	var age, late struct{ ID string }
	s.Must(s.Post(owner.Key, "/api/v1/worlds/"+w.ID+"/eras", map[string]any{"name": "Bronze Age"}), http.StatusCreated).JSON(t, &age)
	s.Must(s.Post(owner.Key, "/api/v1/worlds/"+w.ID+"/eras", map[string]any{"name": "Late Bronze", "parentId": age.ID}), http.StatusCreated).JSON(t, &late)
	ed := newEditor(t, s, owner)
	settings := "/w/" + w.Slug + "/settings"

	// Rename and genre: saved, the slug (and so the address) stays.
	redirected(t, ed.post(settings, url.Values{"name": {"Eldoria Reborn"}, "genre": {"horror"}}), settings+"?done=saved")
	d := page(t, s, ed.b, settings+"?done=saved", 200)
	if n := d.Find(`[data-testid="notice"]`).Text(); !strings.Contains(n, "saved") {
		t.Errorf("notice %q", n)
	}
	if th := d.Find("html").AttrOr("data-theme", ""); th != "ash" {
		t.Errorf("theme after the genre change: %q", th)
	}
	var got struct{ Name, Genre, Slug string }
	s.Must(s.Get(owner.Key, "/api/v1/worlds/"+w.ID), http.StatusOK).JSON(t, &got)
	if got.Name != "Eldoria Reborn" || got.Genre != "horror" || got.Slug != w.Slug {
		t.Fatalf("after the form: %+v", got)
	}
	// A blank name is refused next to its field, with what was typed, and changes nothing.
	res := ed.post(settings, url.Values{"name": {"  "}, "genre": {"sci-fi"}})
	refused(t, res, http.StatusUnprocessableEntity, "invalid_field")
	d = doc(t, res)
	if d.Find(`#settings-name`).AttrOr("aria-invalid", "") != "true" || d.Find(`#settings-genre`).AttrOr("value", "") != "sci-fi" {
		t.Error("the refusal is not shown at the name field with the typed values")
	}
	s.Must(s.Get(owner.Key, "/api/v1/worlds/"+w.ID), http.StatusOK).JSON(t, &got)
	if got.Name != "Eldoria Reborn" || got.Genre != "horror" {
		t.Fatalf("a refused form changed the world: %+v", got)
	}

	// Eras: renamed; one with a child era is refused next to it, naming the child.
	redirected(t, ed.post(settings+"/eras/"+age.ID, url.Values{"name": {"Iron Age"}}), settings+"?done=era-renamed")
	res = ed.post(settings+"/eras/"+age.ID+"/delete", url.Values{})
	msg := refused(t, res, http.StatusConflict, "era_has_children")
	if !strings.Contains(msg, "Late Bronze") {
		t.Errorf("refusal %q does not name the child era", msg)
	}
	if doc(t, res).Find(`li[data-id="`+age.ID+`"] [data-testid="form-error"]`).Length() != 1 {
		t.Error("the refusal is not shown at its era")
	}
	redirected(t, ed.post(settings+"/eras/"+late.ID+"/delete", url.Values{}), settings+"?done=era-deleted")
	redirected(t, ed.post(settings+"/eras/"+age.ID+"/delete", url.Values{}), settings+"?done=era-deleted")
	if n := page(t, s, ed.b, settings, 200).Find(`[data-testid="settings-era"]`).Length(); n != 0 {
		t.Fatalf("%d eras left", n)
	}

	// Delete: the world goes to the trash on the worlds page, with its days left; Restore opens it again.
	var wiki struct{ URL string }
	s.Must(s.Post(owner.Key, "/api/v1/worlds/"+w.ID+"/projects", map[string]any{"name": "Atlas", "kind": "wiki", "config": map[string]any{"visibility": "public"}}), http.StatusCreated).JSON(t, &wiki)
	page(t, s, s.Browser(), wiki.URL, 200)
	redirected(t, ed.post(settings+"/delete", url.Values{}), "/?done=trashed")
	page(t, s, ed.b, "/w/"+w.Slug, 404)
	page(t, s, ed.b, settings, 404)
	page(t, s, s.Browser(), wiki.URL, 404) // its public wiki too
	home := page(t, s, ed.b, "/?done=trashed", 200)
	if home.Find(`[data-testid="notice"]`).Length() != 1 || home.Find(`[data-testid="world"]`).Length() != 0 {
		t.Error("the worlds page still lists the deleted world, or says nothing")
	}
	item := home.Find(`[data-testid="trash-item"]`)
	if item.Length() != 1 || item.Find(`[data-testid="trash-name"]`).Text() != "Eldoria Reborn" ||
		!strings.Contains(item.Find(`[data-testid="trash-days-left"]`).Text(), "30 days left") {
		t.Fatalf("trash: %d items: %q", item.Length(), item.Text())
	}
	restore := item.Find(`form[data-testid="trash-restore-form"]`).AttrOr("action", "")
	redirected(t, ed.post(restore, url.Values{}), "/w/"+w.Slug)
	page(t, s, ed.b, "/w/"+w.Slug, 200)
	page(t, s, s.Browser(), wiki.URL, 200)
	// Restoring again, or someone else's world, finds nothing.
	if res := ed.post(restore, url.Values{}); res.Status != http.StatusNotFound {
		t.Fatalf("restore again: %d", res.Status)
	}
}
