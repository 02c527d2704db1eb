package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
)

func TestWorldSearch(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	var world struct{ Slug string }
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w), 200).JSON(t, &world)
	card := s.Document(ann, w, "Vharnagal", "card")
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/documents/"+card+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.addSection", "title": "Lore", "body": "A dragon who hoards <script>alert(1)</script> maps and `<script>` tags."},
	}}), 200)
	// The web app is never plan-gated.
	if err := s.LW.Store.SetPlan(w, "free"); err != nil {
		t.Fatal(err)
	}
	b := s.SignIn(ann)

	page := doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: "/w/" + world.Slug, Client: b}), 200))
	if page.Find(`[data-testid="search-input"]`).Length() != 1 {
		t.Fatal("no search box on the world page")
	}
	frag := func(q string) *apptest.Response {
		return s.Do(apptest.Request{Method: "GET", Path: "/w/" + world.Slug + "/search?q=" + q, Client: b, Header: http.Header{"HX-Request": {"true"}}})
	}
	var res *apptest.Response
	for deadline := time.Now().Add(time.Second); ; time.Sleep(20 * time.Millisecond) {
		res = s.Must(frag("hoard"), 200)
		if strings.Contains(string(res.Body), "search-hit") || time.Now().After(deadline) {
			break
		}
	}
	d := doc(t, res)
	hit := d.Find(`[data-testid="search-hit"]`)
	if hit.Length() != 1 || !strings.Contains(hit.Text(), "Vharnagal") || d.Find("html").Length() != 0 && strings.Contains(string(res.Body), "<html") {
		t.Fatalf("fragment: %s", res.Body)
	}
	if href, _ := hit.Find("a").Attr("href"); href != "/w/"+world.Slug+"/d/"+card {
		t.Fatalf("hit link %q", href)
	}
	if hit.Find("mark").Length() == 0 || hit.Find("script").Length() != 0 || !strings.Contains(string(res.Body), "&lt;script&gt;") {
		t.Fatalf("snippet: %s", res.Body)
	}
	if d := doc(t, frag("zzzqqq")); d.Find(`[data-testid="no-results"]`).Length() != 1 {
		t.Fatal("no 'nothing matches' message")
	}
	// Without JavaScript the form leads to a full page.
	full := doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: "/w/" + world.Slug + "/search?q=dragon", Client: b}), 200))
	if full.Find(`[data-testid="search-hit"]`).Length() != 1 || full.Find("main").Length() != 1 {
		t.Fatal("full search page")
	}
	// Strangers get the world's 404.
	if res := s.Do(apptest.Request{Method: "GET", Path: "/w/" + world.Slug + "/search?q=dragon", Client: s.SignIn(s.NewUser("Bob"))}); res.Status != 404 {
		t.Fatalf("stranger: %d", res.Status)
	}
}
