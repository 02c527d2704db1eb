package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
)

// wikiWorld is a world with one document of each kind, a card with a secret section, and a
// public and a members wiki of it.
type wikiWorld struct {
	world
	card, timeline, mapDoc, folder string
	public, members                string // the wikis' home pages
}

func newWikiWorld(t *testing.T, s *apptest.Server, u apptest.User, name, genre string) wikiWorld {
	t.Helper()
	var x struct{ ID, Slug string }
	s.Must(s.Post(u.Key, "/api/v1/worlds", map[string]any{"name": name, "genre": genre}), http.StatusCreated).JSON(t, &x)
	w := wikiWorld{world: world{s: s, u: u, ID: x.ID, Slug: x.Slug}}
	w.folder = w.doc(t, "People", "folder", "", "")
	w.apply(t, w.folder, "", map[string]any{"op": "folder.setDescription", "description": "Everyone who matters in the Tidelands."})
	w.card = w.doc(t, "Aria Stormborn", "card", w.folder, "")
	w.apply(t, w.card, "",
		map[string]any{"op": "card.setAliases", "aliases": []string{"The Tide Queen"}},
		map[string]any{"op": "card.setProperty", "key": "Born", "value": "Year 312, Saltmere"},
		map[string]any{"op": "card.addSection", "title": "Biography", "body": "Raised by **lighthouse keepers**, she learned to read the sea before she could read letters.\n\n- sailor\n- cartographer"},
		map[string]any{"op": "card.addSection", "title": "Gamemaster notes", "body": "She is the heir of the drowned king.", "secret": true})
	w.timeline = w.doc(t, "The Long Tide", "timeline", "", "")
	w.apply(t, w.timeline, "",
		map[string]any{"op": "timeline.addEvent", "label": "Saltmere founded", "dateMs": -30000000000000, "precision": "year"},
		map[string]any{"op": "timeline.addEvent", "label": "Aria is born", "dateMs": -52000000000, "precision": "year", "description": "In the lighthouse of Saltmere."})
	w.mapDoc = w.doc(t, "The Tidelands", "map", "", "")
	w.apply(t, w.mapDoc, "",
		map[string]any{"op": "map.setImage", "url": "/static/vendor/leaflet/images/layers-2x.png", "width": 800, "height": 600},
		map[string]any{"op": "map.addPin", "x": 120, "y": 80, "label": "Saltmere lighthouse", "documentId": w.card})
	_, w.public = w.wiki(t, name+" Wiki", map[string]any{"visibility": "public"})
	_, w.members = w.wiki(t, name+" Table", nil)
	return w
}

// A public wiki page opens for a browser with no session, and a members wiki answers it with
// the sign-in page; the secret section never shows; every page passes the accessibility
// audit, on a phone and a desktop, in a light and a dark theme.
func TestBrowserWiki(t *testing.T) {
	axe := axeSource(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	for _, theme := range []struct{ name, genre string }{{"light", "fantasy"}, {"dark", "sci-fi"}} {
		t.Run(theme.name, func(t *testing.T) {
			w := newWikiWorld(t, s, ann, "Tidelands "+theme.name, theme.genre)
			s.WaitSearchable(ann.Key, w.ID, "lighthouse")
			for _, width := range []int64{1366, 390} {
				t.Run(fmt.Sprint(width), func(t *testing.T) {
					ctx := browser(t) // a fresh profile: no session
					do(t, ctx, chromedp.EmulateViewport(width, 900))
					name := func(p string) string { return fmt.Sprintf("wiki-%s-%d-%s", theme.name, width, p) }

					do(t, ctx, chromedp.Navigate(s.URL+w.public+"d/"+w.card), chromedp.WaitVisible(chromedp.CSS(`[data-testid="doc-title"]`)))
					if got := eval[string](t, ctx, `document.querySelector('[data-testid="doc-title"]').textContent`); got != "Aria Stormborn" {
						t.Fatalf("public wiki page title %q", got)
					}
					if text := eval[string](t, ctx, `document.body.innerText`); strings.Contains(text, "drowned") || strings.Contains(text, "Gamemaster") {
						t.Fatal("the public wiki shows the secret section")
					}
					accessible(t, ctx, axe, name("card"))

					for _, p := range []struct{ path, ready, shot string }{
						{w.public, `[data-testid="wiki-world-name"]`, "home"},
						{w.public + "d/" + w.timeline, `[data-testid="timeline"]`, "timeline"},
						{w.public + "d/" + w.mapDoc, `[data-testid="pins"]`, "map"},
						{w.public + "d/" + w.folder, `[data-testid="children"]`, "folder"},
						{w.public + "search?q=lighthouse", `[data-testid="search-hit"]`, "search"},
					} {
						do(t, ctx, chromedp.Navigate(s.URL+p.path), chromedp.WaitVisible(chromedp.CSS(p.ready)))
						if p.shot == "map" {
							waitJS(t, ctx, "the map draws its pin", `document.querySelectorAll(".leaflet-marker-icon").length === 1`)
						}
						if p.shot == "timeline" {
							waitJS(t, ctx, "the timeline axis shows", `!document.querySelector("[data-timeline-axis]").hidden`)
						}
						accessible(t, ctx, axe, name(p.shot))
					}
					// The map's pin leads to the card's wiki page.
					do(t, ctx, chromedp.Navigate(s.URL+w.public+"d/"+w.mapDoc), chromedp.WaitVisible(chromedp.CSS(`[data-testid="pins"] a`)))
					if href := eval[string](t, ctx, `document.querySelector('[data-testid="pins"] a').getAttribute("href")`); href != w.public+"d/"+w.card {
						t.Fatalf("pin link %q", href)
					}

					do(t, ctx, chromedp.Navigate(s.URL+w.members+"d/"+w.card), chromedp.WaitVisible(chromedp.CSS(`#email`)))
					if loc := eval[string](t, ctx, `location.pathname + location.search`); !strings.HasPrefix(loc, "/login?next=") {
						t.Fatalf("a members wiki without a session lands on %q", loc)
					}
					// Signing in there leads back to the wiki page.
					do(t, ctx,
						chromedp.SendKeys(chromedp.CSS(`#email`), ann.Email),
						chromedp.SendKeys(chromedp.CSS(`#password`), ann.Password),
						chromedp.Submit(chromedp.CSS(`form[data-testid="login-form"]`)),
						chromedp.WaitVisible(chromedp.CSS(`[data-testid="doc-title"]`)))
					if loc := eval[string](t, ctx, `location.pathname`); loc != w.members+"d/"+w.card {
						t.Fatalf("after signing in: %q", loc)
					}
				})
			}
		})
	}
}
