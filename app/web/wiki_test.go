package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
)

// wiki creates a wiki project of w with config and returns its id and address.
func (w world) wiki(t *testing.T, name string, config map[string]any) (id, url string) {
	t.Helper()
	var p struct{ ID, URL string }
	w.s.Must(w.s.Post(w.u.Key, "/api/v1/worlds/"+w.ID+"/projects", map[string]any{"kind": "wiki", "name": name, "config": config}), http.StatusCreated).JSON(t, &p)
	return p.ID, p.URL
}

// patchWiki changes a wiki's settings through the API.
func (w world) patchWiki(t *testing.T, id string, body map[string]any) {
	t.Helper()
	w.s.Must(w.s.Do(apptest.Request{Method: http.MethodPatch, Path: "/api/v1/worlds/" + w.ID + "/projects/" + id, Key: w.u.Key, Body: body}), http.StatusOK)
}

// anon sends a GET with no session.
func anon(s *apptest.Server, path string, header http.Header) *apptest.Response {
	return s.Do(apptest.Request{Method: http.MethodGet, Path: path, Client: s.Browser(), Header: header})
}

func TestWikiVisibility(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	vic := s.NewUser("Vic")
	out := s.NewUser("Out")
	w := newWorld(t, s, ann, "Eldoria")
	s.AddMember(ann, w.ID, vic, "viewer")
	aria := w.doc(t, "Aria", "card", "", "")
	id, home := w.wiki(t, "Eldoria Wiki", nil)
	page := home + "d/" + aria

	// members (the default): no session → sign in, and back here afterwards.
	for _, path := range []string{home, page, home + "search?q=aria"} {
		res := anon(s, path, nil)
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/login?next="+strings.ReplaceAll(strings.ReplaceAll(path, "/", "%2F"), "?", "%3F") && !strings.HasPrefix(res.Header.Get("Location"), "/login?next=") {
			t.Fatalf("anonymous %s: %d %s", path, res.Status, res.Header.Get("Location"))
		}
	}
	if res := s.Do(apptest.Request{Method: "GET", Path: page, Client: s.SignIn(out)}); res.Status != http.StatusNotFound {
		t.Fatalf("non-member: %d", res.Status)
	}
	vb := s.SignIn(vic)
	d := doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: page, Client: vb}), http.StatusOK))
	if got := d.Find(`[data-testid="doc-title"]`).Text(); got != "Aria" {
		t.Fatalf("viewer reads %q", got)
	}
	res := s.Do(apptest.Request{Method: "GET", Path: page, Client: vb})
	if cc := res.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "private") {
		t.Fatalf("a members wiki's page may be shared: Cache-Control %q", cc)
	}

	// public: anyone, no account; cacheable by shared caches; no cookie set.
	w.patchWiki(t, id, map[string]any{"config": map[string]any{"visibility": "public"}})
	res = anon(s, page, nil)
	if res.Status != http.StatusOK || doc(t, res).Find(`[data-testid="doc-title"]`).Text() != "Aria" {
		t.Fatalf("anonymous on a public wiki: %d", res.Status)
	}
	if cc := res.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "public") || res.Header.Get("Set-Cookie") != "" {
		t.Fatalf("public page: Cache-Control %q, Set-Cookie %q", cc, res.Header.Get("Set-Cookie"))
	}
	s.Must(anon(s, home, nil), http.StatusOK)
	s.Must(anon(s, strings.TrimSuffix(home, "/"), nil), http.StatusMovedPermanently)
	s.Must(anon(s, home+"d/nosuchdocument", nil), http.StatusNotFound)
	s.Must(anon(s, "/wiki/no-such-wiki/", nil), http.StatusNotFound)

	// Deleted: 404.
	s.Must(s.Do(apptest.Request{Method: http.MethodDelete, Path: "/api/v1/worlds/" + w.ID + "/projects/" + id, Key: ann.Key}), http.StatusNoContent)
	s.Must(anon(s, page, nil), http.StatusNotFound)
}

// TestWikiSecretSection checks that an anonymous reader of a public wiki never sees a card's
// secret section: not on its page, not in search results or snippets, not on the home page.
func TestWikiSecretSection(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	aria := w.doc(t, "Aria", "card", "", "")
	w.apply(t, aria, "",
		map[string]any{"op": "card.addSection", "title": "Childhood", "body": "Raised by lighthouse keepers."},
		map[string]any{"op": "card.addSection", "title": "Gamemaster notes", "body": "She is the heir of the drowned king.", "secret": true})
	_, home := w.wiki(t, "Eldoria Wiki", map[string]any{"visibility": "public"})

	res := s.Must(anon(s, home+"d/"+aria, nil), http.StatusOK)
	body := string(res.Body)
	if !strings.Contains(body, "lighthouse keepers") {
		t.Fatal("the public section is missing")
	}
	for _, secret := range []string{"drowned king", "Gamemaster notes"} {
		if strings.Contains(body, secret) {
			t.Fatalf("the page shows the secret %q", secret)
		}
	}
	if strings.Contains(string(s.Must(anon(s, home, nil), http.StatusOK).Body), "drowned") {
		t.Fatal("the home page shows the secret")
	}
}

// TestWikiSearchHidesSecrets checks that a public wiki's search finds a card's public
// section and never its secret one, nor shows it in a snippet.
func TestWikiSearchHidesSecrets(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	aria := w.doc(t, "Aria", "card", "", "")
	w.apply(t, aria, "",
		map[string]any{"op": "card.addSection", "title": "Childhood", "body": "Raised by lighthouse keepers."},
		map[string]any{"op": "card.addSection", "title": "Gamemaster notes", "body": "She is the heir of the drowned king.", "secret": true})
	_, home := w.wiki(t, "Eldoria Wiki", map[string]any{"visibility": "public"})
	// The public section is found (once indexed); the secret one never is.
	deadline := time.Now().Add(10 * time.Second)
	for {
		d := doc(t, s.Must(anon(s, home+"search?q=lighthouse", nil), http.StatusOK))
		if d.Find(`[data-testid="search-hit"]`).Length() > 0 {
			if href, _ := d.Find(`[data-testid="search-hit"] a`).Attr("href"); href != home+"d/"+aria {
				t.Fatalf("a hit leads to %q", href)
			}
			if strings.Contains(d.Find("main").Text(), "drowned") {
				t.Fatal("a snippet quotes the secret section")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the public section is never found")
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, q := range []string{"drowned", "heir", "gamemaster"} {
		res := s.Must(anon(s, home+"search?q="+q, nil), http.StatusOK)
		if d := doc(t, res); d.Find(`[data-testid="search-hit"]`).Length() > 0 || strings.Contains(string(res.Body), "drowned king") {
			t.Errorf("searching %q finds the secret section: %s", q, d.Find(`[data-testid="search-results"]`).Text())
		}
	}
}

// TestWikiEra checks that a wiki shows its era's state, and the main line when it has none.
func TestWikiEra(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	aria := w.doc(t, "Aria", "card", "", "")
	w.apply(t, aria, "", map[string]any{"op": "card.addSection", "title": "Now", "body": "A young sailor."})
	era := w.era(t, "Second Age")
	w.apply(t, aria, era, map[string]any{"op": "card.rename", "name": "Queen Aria"})
	only := w.doc(t, "Tide Throne", "card", "", era)
	id, home := w.wiki(t, "Eldoria Wiki", map[string]any{"visibility": "public"})

	d := doc(t, s.Must(anon(s, home+"d/"+aria, nil), http.StatusOK))
	if got := d.Find(`[data-testid="doc-title"]`).Text(); got != "Aria" {
		t.Fatalf("main line title %q", got)
	}
	s.Must(anon(s, home+"d/"+only, nil), http.StatusNotFound)

	w.patchWiki(t, id, map[string]any{"config": map[string]any{"eraId": era}})
	d = doc(t, s.Must(anon(s, home+"d/"+aria, nil), http.StatusOK))
	if got := d.Find(`[data-testid="doc-title"]`).Text(); got != "Queen Aria" {
		t.Fatalf("era title %q", got)
	}
	s.Must(anon(s, home+"d/"+only, nil), http.StatusOK)
	h := doc(t, s.Must(anon(s, home, nil), http.StatusOK))
	if !strings.Contains(h.Find(`[data-testid="wiki-era"]`).Text(), "Second Age") || h.Find(`[data-testid="wiki-nav-item"][data-id="`+only+`"]`).Length() != 1 {
		t.Fatalf("home in the era: %s", h.Find(`[data-testid="wiki-nav"]`).Text())
	}
}

// TestWikiCaching checks the ETag: 304 while nothing changed, a fresh page once the world or
// the wiki's settings changed.
func TestWikiCaching(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	aria := w.doc(t, "Aria", "card", "", "")
	id, home := w.wiki(t, "Eldoria Wiki", map[string]any{"visibility": "public"})
	for _, path := range []string{home, home + "d/" + aria} {
		res := s.Must(anon(s, path, nil), http.StatusOK)
		etag := res.Header.Get("ETag")
		if etag == "" {
			t.Fatalf("%s has no ETag", path)
		}
		s.Must(anon(s, path, http.Header{"If-None-Match": {etag}}), http.StatusNotModified)

		w.apply(t, aria, "", map[string]any{"op": "card.addSection", "title": "More", "body": "Fresh words " + path})
		res = s.Must(anon(s, path, http.Header{"If-None-Match": {etag}}), http.StatusOK)
		if res.Header.Get("ETag") == etag {
			t.Fatalf("%s: same ETag after a change", path)
		}
		if strings.HasSuffix(path, aria) && !strings.Contains(string(res.Body), "Fresh words") {
			t.Fatal("the page does not show the change")
		}
		etag = res.Header.Get("ETag")
		w.patchWiki(t, id, map[string]any{"name": "Renamed " + path})
		res = s.Must(anon(s, path, http.Header{"If-None-Match": {etag}}), http.StatusOK)
		if !strings.Contains(string(res.Body), "Renamed "+path) {
			t.Fatal("the page does not show the new name")
		}
	}
}

// TestWikiSettingsPage changes a wiki's name, era and visibility from its settings page,
// shows a refusal next to its control, and deletes the wiki.
func TestWikiSettingsPage(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	vic := s.NewUser("Vic")
	w := newWorld(t, s, ann, "Eldoria")
	s.AddMember(ann, w.ID, vic, "viewer")
	era := w.era(t, "Second Age")
	id, home := w.wiki(t, "Eldoria Wiki", nil)
	b := s.SignIn(ann)
	settings := "/w/" + w.Slug + "/projects/" + id

	wp := page(t, s, b, "/w/"+w.Slug, http.StatusOK)
	if href, _ := wp.Find(`[data-testid="project-settings"]`).Attr("href"); href != settings {
		t.Fatalf("settings link %q", href)
	}
	if href, _ := wp.Find(`[data-testid="project-open"]`).Attr("href"); href != home {
		t.Fatalf("open link %q", href)
	}
	if page(t, s, s.SignIn(vic), "/w/"+w.Slug, http.StatusOK).Find(`[data-testid="project-settings"]`).Length() != 0 {
		t.Fatal("a viewer is offered the settings")
	}
	s.Must(s.Do(apptest.Request{Method: "GET", Path: settings, Client: s.SignIn(vic)}), http.StatusForbidden)

	d := page(t, s, b, settings, http.StatusOK)
	if href, _ := d.Find(`[data-testid="open-wiki"]`).Attr("href"); href != home {
		t.Fatalf("open the wiki: %q", href)
	}
	token := s.CSRFToken(b, settings)
	form := func(name, eraID, vis string) url.Values {
		return url.Values{"csrf": {token}, "name": {name}, "eraId": {eraID}, "visibility": {vis}}
	}
	res := s.PostForm(b, settings, form("Tales of Eldoria", era, "public"))
	if res.Status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", res.Status, res.Body)
	}
	d = page(t, s, b, res.Header.Get("Location"), http.StatusOK)
	if v, _ := d.Find(`[data-testid="project-name"]`).Attr("value"); v != "Tales of Eldoria" || d.Find(`[data-testid="notice"]`).Length() != 1 {
		t.Fatalf("after save: name %q", v)
	}
	if v, _ := d.Find(`[data-testid="project-era"] option[selected]`).Attr("value"); v != era {
		t.Fatalf("era selected %q", v)
	}
	if _, ok := d.Find(`[data-testid="visibility-public"]`).Attr("checked"); !ok {
		t.Fatal("public is not checked")
	}
	if h := doc(t, s.Must(anon(s, home, nil), http.StatusOK)); !strings.Contains(h.Find(".brand").Text(), "Tales of Eldoria") {
		t.Fatalf("the wiki's name: %q", h.Find(".brand").Text())
	}

	for _, c := range []struct {
		f     url.Values
		errID string
	}{
		{form("", "", "public"), "project-name-error"},
		{form("Wiki", "nosuchera000000", "public"), "project-era-error"},
		{form("Wiki", "", "everyone"), "project-visibility-error"},
	} {
		res := s.PostForm(b, settings, c.f)
		if res.Status != http.StatusUnprocessableEntity || doc(t, res).Find("#"+c.errID).Length() != 1 {
			t.Errorf("refused %v: %d, no #%s", c.f, res.Status, c.errID)
		}
	}

	res = s.PostForm(b, settings+"/delete", url.Values{"csrf": {token}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.Status)
	}
	s.Must(anon(s, home, nil), http.StatusNotFound)
	s.Must(s.Do(apptest.Request{Method: "GET", Path: settings, Client: b}), http.StatusNotFound)
}

// TestWikiLinks: links in a wiki page lead to the wiki's own pages, and its "Linked from"
// lists the linking pages without what a secret section says.
func TestWikiLinks(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	vharn := w.doc(t, "Vharn", "card", "", "")
	ossa := w.doc(t, "Ossa", "card", "", "")
	kell := w.doc(t, "Kell", "card", "", "")
	w.apply(t, ossa, "", map[string]any{"op": "card.addSection", "title": "Life", "body": "Apprenticed to [[Vharn]] in the north."})
	w.apply(t, kell, "", map[string]any{"op": "card.addSection", "title": "GM", "body": "Plots against [[Vharn]]: the drowned king.", "secret": true})
	_, home := w.wiki(t, "Eldoria Wiki", map[string]any{"visibility": "public"})

	page := string(s.Must(anon(s, home+"d/"+ossa, nil), http.StatusOK).Body)
	if !strings.Contains(page, `<a class="doclink" href="`+home+`d/`+vharn+`" rel="nofollow">Vharn</a>`) {
		t.Fatalf("the link does not lead to the wiki's page:\n%s", page)
	}
	target := string(s.Must(anon(s, home+"d/"+vharn, nil), http.StatusOK).Body)
	if !strings.Contains(target, "Linked from") || !strings.Contains(target, `href="`+home+`d/`+ossa+`"`) || !strings.Contains(target, "Apprenticed to Vharn in the north.") {
		t.Fatalf("Linked from is missing the public backlink:\n%s", target)
	}
	backlinks := target[strings.Index(target, `id="doc-backlinks"`):]
	backlinks = backlinks[:strings.Index(backlinks, "</section>")]
	if strings.Contains(target, "drowned king") || strings.Contains(backlinks, `d/`+kell+`"`) || !strings.Contains(backlinks, `d/`+ossa+`"`) {
		t.Fatal("Linked from shows a link only a secret section holds")
	}
}

// TestWikiMarkdownImages: an image of the world's files in a card's text loads, on the wiki,
// from the wiki's own file address, which its readers may fetch.
func TestWikiMarkdownImages(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	aria := w.doc(t, "Aria", "card", "", "")
	w.apply(t, aria, "", map[string]any{"op": "card.addSection", "title": "Portrait", "body": "![Aria](/api/v1/worlds/" + w.ID + "/assets/abc123/file)"})
	_, home := w.wiki(t, "Eldoria Wiki", map[string]any{"visibility": "public"})
	page := string(s.Must(anon(s, home+"d/"+aria, nil), http.StatusOK).Body)
	if !strings.Contains(page, `<img src="`+home+`files/abc123" alt="Aria">`) {
		t.Fatalf("the image does not load from the wiki:\n%s", page)
	}
	app := string(s.Must(s.Do(apptest.Request{Method: http.MethodGet, Path: "/w/" + w.Slug + "/d/" + aria, Client: s.SignIn(ann)}), http.StatusOK).Body)
	if !strings.Contains(app, `<img src="/api/v1/worlds/`+w.ID+`/assets/abc123/file" alt="Aria">`) {
		t.Fatal("the app's page changed the image's address")
	}
}
