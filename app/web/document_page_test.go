package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/loreweave/loreweave/app/apptest"
)

// world is a world made through the API for page tests.
type world struct {
	s    *apptest.Server
	u    apptest.User
	ID   string
	Slug string
}

func newWorld(t *testing.T, s *apptest.Server, u apptest.User, name string) world {
	t.Helper()
	id := s.World(u, name)
	var w struct{ Slug string }
	s.Must(s.Get(u.Key, "/api/v1/worlds/"+id), 200).JSON(t, &w)
	return world{s: s, u: u, ID: id, Slug: w.Slug}
}

// doc creates a document, filed under parent when it is not empty, in era when it is not empty.
func (w world) doc(t *testing.T, name, docType, parent, era string) string {
	t.Helper()
	body := map[string]any{"name": name, "documentType": docType}
	if parent != "" {
		body["parentId"] = parent
	}
	var d struct{ ID string }
	w.s.Must(w.s.Post(w.u.Key, "/api/v1/worlds/"+w.ID+"/documents"+eraQ(era), body), http.StatusCreated).JSON(t, &d)
	return d.ID
}

// apply applies content ops to a document.
func (w world) apply(t *testing.T, docID, era string, ops ...map[string]any) {
	t.Helper()
	w.s.Must(w.s.Post(w.u.Key, "/api/v1/worlds/"+w.ID+"/documents/"+docID+"/content"+eraQ(era), map[string]any{"ops": ops}), 200)
}

func (w world) era(t *testing.T, name string) string {
	t.Helper()
	var e struct{ ID string }
	w.s.Must(w.s.Post(w.u.Key, "/api/v1/worlds/"+w.ID+"/eras", map[string]any{"name": name}), http.StatusCreated).JSON(t, &e)
	return e.ID
}

func eraQ(era string) string {
	if era == "" {
		return ""
	}
	return "?era=" + url.QueryEscape(era)
}

// page fetches a page with the browser and parses it, failing unless the status is want.
func page(t *testing.T, s *apptest.Server, b *http.Client, path string, want int) *goquery.Document {
	t.Helper()
	return doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: path, Client: b}), want))
}

// texts returns the trimmed text of every match.
func texts(sel *goquery.Selection) []string {
	var out []string
	sel.Each(func(_ int, x *goquery.Selection) { out = append(out, strings.Join(strings.Fields(x.Text()), " ")) })
	return out
}

func TestWorldPageTree(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	apple := w.doc(t, "apple", "card", "", "")
	w.doc(t, "Banana", "timeline", "", "")
	zeta := w.doc(t, "Zeta", "folder", "", "")
	places := w.doc(t, "Places", "folder", "", "")
	castle := w.doc(t, "Castle", "card", places, "")
	regions := w.doc(t, "regions", "folder", places, "")
	north := w.doc(t, "North", "map", regions, "")
	w.apply(t, zeta, "", map[string]any{"op": "folder.setDescription", "description": "Last letters"})
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/projects", map[string]any{"name": "Wiki", "kind": "wiki"}), http.StatusCreated)

	b := s.SignIn(ann)
	d := page(t, s, b, "/w/"+w.Slug, 200)
	top := d.Find(`[data-testid="documents"] > li`)
	if got := texts(top.ChildrenFiltered(`a`)); strings.Join(got, ",") != "Places,Zeta,apple,Banana" {
		t.Fatalf("top level order: %v", got)
	}
	placesLi := d.Find(`li[data-id="` + places + `"]`)
	if got := texts(placesLi.ChildrenFiltered("ul").ChildrenFiltered("li").ChildrenFiltered("a")); strings.Join(got, ",") != "regions,Castle" {
		t.Fatalf("Places children: %v", got)
	}
	regionsLi := placesLi.Find(`li[data-id="` + regions + `"]`)
	if got := texts(regionsLi.ChildrenFiltered("ul").ChildrenFiltered("li").ChildrenFiltered("a")); strings.Join(got, ",") != "North" {
		t.Fatalf("regions children: %v", got)
	}
	if href, _ := d.Find(`li[data-id="` + north + `"] > a`).Attr("href"); href != "/w/"+w.Slug+"/d/"+north {
		t.Fatalf("link %q", href)
	}
	if d.Find(`li[data-id="`+castle+`"]`).Parent().Parent().AttrOr("data-id", "") != places {
		t.Fatal("Castle is not under Places")
	}
	if d.Find(`[data-testid="documents"] li[data-id="`+apple+`"] ul`).Length() != 0 {
		t.Fatal("a card got a child list")
	}
	if d.Find(`[data-testid="no-documents"]`).AttrOr("hidden", "x") == "x" {
		t.Fatal("empty message shown with documents")
	}
	if got := texts(d.Find(`[data-testid="project"]`)); len(got) != 1 || !strings.Contains(got[0], "Wiki") {
		t.Fatalf("projects %v", got)
	}
	// The page follows the world stream from the point it was read at, with no inline script.
	live := d.Find(`[data-world-live]`)
	if live.AttrOr("data-stream", "") != "/api/v1/worlds/"+w.ID+"/events" || live.AttrOr("data-seq", "") == "" {
		t.Fatalf("live attributes: %v", live.Nodes)
	}
	noInlineScripts(t, d)

	// An empty world says so.
	w2 := newWorld(t, s, ann, "Empty")
	d = page(t, s, b, "/w/"+w2.Slug, 200)
	if _, hidden := d.Find(`[data-testid="no-documents"]`).Attr("hidden"); hidden {
		t.Fatal("empty world: message hidden")
	}
}

func TestWorldPageEras(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	old := w.doc(t, "Old map", "map", "", "")
	age := w.era(t, "Second Age")
	young := w.doc(t, "New card", "card", "", age)
	b := s.SignIn(ann)

	d := page(t, s, b, "/w/"+w.Slug, 200)
	if d.Find(`li[data-id="`+young+`"]`).Length() != 0 || d.Find(`li[data-id="`+old+`"]`).Length() != 1 {
		t.Fatal("main line shows the era's document or misses its own")
	}
	if got := texts(d.Find(`[data-testid="era"]`)); strings.Join(got, ",") != "Second Age" {
		t.Fatalf("eras %v", got)
	}
	d = page(t, s, b, "/w/"+w.Slug+"?era="+age, 200)
	if d.Find(`li[data-id="`+young+`"]`).Length() != 1 || d.Find(`li[data-id="`+old+`"]`).Length() != 1 {
		t.Fatal("era page misses documents")
	}
	if href := d.Find(`li[data-id="`+old+`"] > a`).AttrOr("href", ""); href != "/w/"+w.Slug+"/d/"+old+"?era="+age {
		t.Fatalf("links do not carry the era: %q", href)
	}
	if d.Find(`[data-testid="era"] a[aria-current="page"]`).Text() != "Second Age" {
		t.Fatal("current era not marked")
	}
	var chain []string
	if err := json.Unmarshal([]byte(d.Find(`[data-world-live]`).AttrOr("data-era-chain", "")), &chain); err != nil || len(chain) != 2 || chain[0] != age || chain[1] != "" {
		t.Fatalf("era chain %v %v", chain, err)
	}
	page(t, s, b, "/w/"+w.Slug+"?era=nope", 404)
	// The era's document is not on the main line's document page either.
	page(t, s, b, "/w/"+w.Slug+"/d/"+young, 404)
	page(t, s, b, "/w/"+w.Slug+"/d/"+young+"?era="+age, 200)
}

func TestDocumentPages(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	b := s.SignIn(ann)
	path := func(id string) string { return "/w/" + w.Slug + "/d/" + id }

	t.Run("timeline", func(t *testing.T) {
		tl := w.doc(t, "History", "timeline", "", "")
		w.apply(t, tl, "",
			map[string]any{"op": "timeline.addEvent", "label": "Moon landing", "dateMs": time.Date(1969, 7, 20, 20, 17, 0, 0, time.UTC).UnixMilli(), "precision": "minute", "description": "One small step"},
			map[string]any{"op": "timeline.addEvent", "label": "The <b>Founding</b>", "dateMs": time.Date(-499, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), "precision": "year"},
			map[string]any{"op": "timeline.addEvent", "label": "Deep past", "dateMs": -(int64(1)<<53 - 1), "precision": "millennium"},
		)
		res := s.Must(s.Do(apptest.Request{Method: "GET", Path: path(tl), Client: b}), 200)
		if strings.Contains(string(res.Body), "<b>Founding</b>") {
			t.Fatal("label not escaped")
		}
		d := doc(t, res)
		if got := texts(d.Find(`ol[data-testid="timeline"] > li [data-testid="event-label"]`)); strings.Join(got, "|") != "Deep past|The <b>Founding</b>|Moon landing" {
			t.Fatalf("events %v", got)
		}
		if got := texts(d.Find(`[data-testid="event-date"]`)); strings.Join(got, "|") != "284th millennium BCE|500 BCE|20 July 1969, 20:17" {
			t.Fatalf("dates %v", got)
		}
		if dt := d.Find(`time[data-testid="event-date"]`).AttrOr("datetime", ""); dt != "1969-07-20T20:17Z" {
			t.Fatalf("datetime %q", dt)
		}
		if d.Find(`[data-testid="event-description"]`).Text() != "One small step" {
			t.Fatal("description")
		}
		if d.Find(`[data-testid="version"]`).Text() != "1" || d.Find(`#doc-body`).AttrOr("data-version", "") != "1" {
			t.Fatalf("version %q", d.Find(`[data-testid="version"]`).Text())
		}
		live := d.Find(`[data-doc-live]`)
		if live.AttrOr("data-stream", "") != "/api/v1/worlds/"+w.ID+"/documents/"+tl+"/events" || live.AttrOr("data-body-url", "") != path(tl)+"/body" {
			t.Fatalf("live attributes %v", live.Nodes[0].Attr)
		}
		noInlineScripts(t, d)
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self';") || !strings.Contains(csp, "style-src 'self';") {
			t.Fatalf("timeline CSP %q", csp)
		}

		// The body fragment is the same breadcrumbs and article, without the page.
		res = s.Must(s.Do(apptest.Request{Method: "GET", Path: path(tl) + "/body", Client: b}), 200)
		if strings.Contains(string(res.Body), "<html") || !strings.HasPrefix(strings.TrimSpace(string(res.Body)), `<nav class="crumbs" id="doc-crumbs"`) {
			t.Fatalf("fragment: %.200s", res.Body)
		}
		frag := doc(t, res)
		if got := texts(frag.Find(`[data-testid="event-label"]`)); len(got) != 3 {
			t.Fatalf("fragment events %v", got)
		}
		if got := frag.Find(`#doc-crumbs`).AttrOr("data-title", ""); got != "History · Eldoria" || d.Find(`#doc-crumbs`).AttrOr("data-title", "") != got {
			t.Fatalf("fragment's page title %q", got)
		}
	})

	t.Run("card", func(t *testing.T) {
		card := w.doc(t, "Aria", "card", "", "")
		w.apply(t, card, "",
			map[string]any{"op": "card.rename", "name": "Aria the Bold"},
			map[string]any{"op": "card.setAliases", "aliases": []string{"The Red", "Ari"}},
			map[string]any{"op": "card.setProperty", "key": "Born", "value": "Year 312"},
			map[string]any{"op": "card.setProperty", "key": "Home", "value": "<i>Castle</i>"},
			map[string]any{"op": "card.addSection", "title": "Biography", "body": "She was **bold**.\n\n<script>window.pwned = 1</script>\n\n<img src=x onerror=\"window.pwned=2\">\n\n[click](javascript:alert(1)) and [safe](https://example.test/)\n\n# Early years"},
		)
		res := s.Must(s.Do(apptest.Request{Method: "GET", Path: path(card), Client: b}), 200)
		body := string(res.Body)
		// The editor's starting data is JSON in a script element that never runs, escaped so
		// that it cannot end its element: checked, then left out of the search below.
		editorData := regexp.MustCompile(`(?s)<script id="card-editor-data" type="application/json">(.*?)</script>`)
		m := editorData.FindStringSubmatch(body)
		if m == nil || strings.ContainsAny(m[1], "<>") {
			t.Fatalf("the editor's data is missing or not escaped: %v", m)
		}
		body = editorData.ReplaceAllString(body, "")
		for _, bad := range []string{"<script>window", "pwned", "onerror", "javascript:", "<i>Castle"} {
			if strings.Contains(body, bad) {
				t.Fatalf("unsafe output %q in page", bad)
			}
		}
		d := doc(t, res)
		if d.Find(`[data-testid="doc-title"]`).First().Text() != "Aria the Bold" {
			t.Fatalf("title %q", d.Find(`[data-testid="doc-title"]`).First().Text())
		}
		if got := texts(d.Find(`[data-testid="alias"]`)); strings.Join(got, ",") != "The Red,Ari" {
			t.Fatalf("aliases %v", got)
		}
		if got := texts(d.Find(`dl[data-testid="properties"] > dt`)); strings.Join(got, ",") != "Born,Home" {
			t.Fatalf("property keys %v", got)
		}
		if got := texts(d.Find(`dl[data-testid="properties"] > dd`)); strings.Join(got, ",") != "Year 312,<i>Castle</i>" {
			t.Fatalf("property values %v", got)
		}
		sec := d.Find(`[data-testid="section"]`)
		if sec.Find(`[data-testid="section-title"]`).Text() != "Biography" {
			t.Fatal("section title")
		}
		sb := sec.Find(`[data-testid="section-body"]`)
		if sb.Find("strong").Text() != "bold" {
			t.Fatal("markdown <strong> lost")
		}
		if sb.Find("script").Length() != 0 || sb.Find("[onerror]").Length() != 0 {
			t.Fatal("script survived sanitising")
		}
		if sb.Find(`a[href="https://example.test/"]`).Length() != 1 {
			t.Fatal("safe link lost")
		}
		if sb.Find("h3").Text() != "Early years" || sb.Find("h1").Length() != 0 {
			t.Fatal("markdown headings are not below the section heading")
		}
		// A card without its own name shows the document name.
		plain := w.doc(t, "Bram", "card", "", "")
		if d := page(t, s, b, path(plain), 200); d.Find(`[data-testid="doc-title"]`).First().Text() != "Bram" || d.Find(`[data-testid="version"]`).Text() != "0" {
			t.Fatal("unnamed card")
		}
	})

	t.Run("map", func(t *testing.T) {
		target := w.doc(t, "Castle", "card", "", "")
		m := w.doc(t, "Realm", "map", "", "")
		w.apply(t, m, "",
			map[string]any{"op": "map.setImage", "url": "/static/vendor/leaflet/images/layers.png", "width": 800, "height": 600},
			map[string]any{"op": "map.addPin", "x": 10, "y": 20, "label": "Castle <keep>", "documentId": target},
			map[string]any{"op": "map.addPin", "x": 400.5, "y": 300, "label": "Lake"},
		)
		// A map's image is set by address, from any host: its page allows that, others do not.
		res := s.Must(s.Do(apptest.Request{Method: "GET", Path: path(m), Client: b}), 200)
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self' data: blob: http: https:;") {
			t.Fatalf("map CSP %q", csp)
		}
		d := doc(t, res)
		if got := texts(d.Find(`[data-testid="pin"]`)); len(got) != 2 || !strings.HasPrefix(got[0], "Castle <keep>") {
			t.Fatalf("pins %v", got)
		}
		if href := d.Find(`[data-testid="pin"] a`).AttrOr("href", ""); href != path(target) {
			t.Fatalf("pin link %q", href)
		}
		mapEl := d.Find(`.map[data-map]`)
		block := d.Find(`script#` + mapEl.AttrOr("data-map", "none"))
		if block.AttrOr("type", "") != "application/json" {
			t.Fatal("no JSON block for the map")
		}
		var data struct {
			Image struct {
				URL           string
				Width, Height int
			}
			Pins []struct {
				X, Y        float64
				Label, Href string
			}
		}
		if err := json.Unmarshal([]byte(block.Text()), &data); err != nil {
			t.Fatal(err)
		}
		if data.Image.Width != 800 || data.Image.Height != 600 || len(data.Pins) != 2 || data.Pins[0].Href != path(target) || data.Pins[1].X != 400.5 {
			t.Fatalf("map data %+v", data)
		}
		if !strings.Contains(d.Find(`link[rel="stylesheet"]`).Last().AttrOr("href", ""), "leaflet.css") ||
			d.Find(`script[src*="leaflet.js"]`).Length() != 1 || d.Find(`script[src*="js/map.js"]`).Length() != 1 {
			t.Fatal("leaflet not loaded")
		}
	})

	t.Run("animator", func(t *testing.T) {
		an := w.doc(t, "Dragon", "animator", "", "")
		w.apply(t, an, "",
			map[string]any{"op": "animator.setModel", "url": "/static/dragon.glb", "name": "Dragon rig"},
			map[string]any{"op": "animator.setClips", "clips": []map[string]any{{"id": "idle"}, {"id": "fly"}}},
			map[string]any{"op": "animator.setActiveClip", "clipId": "fly"},
		)
		res := s.Must(s.Do(apptest.Request{Method: "GET", Path: path(an), Client: b}), 200)
		// <model-viewer> gets exactly what it needs: WebAssembly and its own stylesheet's hash.
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self' 'wasm-unsafe-eval';") || !strings.Contains(csp, "style-src 'self' 'sha256-") ||
			strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "'unsafe-eval'") {
			t.Fatalf("animator CSP %q", csp)
		}
		d := doc(t, res)
		mv := d.Find(`model-viewer[data-testid="model-viewer"]`)
		if mv.AttrOr("src", "") != "/static/dragon.glb" || mv.AttrOr("animation-name", "") != "fly" {
			t.Fatalf("model-viewer %v", mv.Nodes)
		}
		if _, ok := mv.Attr("autoplay"); !ok {
			t.Fatal("not autoplay")
		}
		if got := texts(d.Find(`[data-testid="clip"]`)); strings.Join(got, ",") != "idle,fly" {
			t.Fatalf("clips %v", got)
		}
		// The page is its owner's: each clip is a button, the active one pressed.
		if got := texts(d.Find(`[data-testid="clip"] button[aria-pressed="true"]`)); strings.Join(got, ",") != "fly" {
			t.Fatalf("active clip %v", got)
		}
		if got := d.Find(`[data-testid="clip"] button[aria-pressed="false"]`).AttrOr("aria-label", ""); got != "Play clip idle" {
			t.Fatalf("clip button named %q", got)
		}
		if d.Find(`script[type="module"][src*="model-viewer"]`).Length() != 1 {
			t.Fatal("model-viewer module not loaded")
		}
	})

	t.Run("folder", func(t *testing.T) {
		f := w.doc(t, "Lore", "folder", "", "")
		sub := w.doc(t, "Myths", "folder", f, "")
		child := w.doc(t, "Gods", "card", f, "")
		w.doc(t, "Deep", "card", sub, "")
		w.apply(t, f, "", map[string]any{"op": "folder.setDescription", "description": "All the *old* stories.<script>window.pwned = 1</script>"})
		d := page(t, s, b, path(f), 200)
		// Markdown, rendered and sanitised like a card's sections.
		if got := d.Find(`#doc-body [data-testid="folder-description"]`); !strings.HasPrefix(got.Text(), "All the old stories.") || got.Find("em").Text() != "old" || got.Find("script").Length() != 0 {
			t.Fatalf("description %q", got.Text())
		}
		if got := texts(d.Find(`[data-testid="children"] > li > a`)); strings.Join(got, ",") != "Myths,Gods" {
			t.Fatalf("children %v", got)
		}
		if d.Find(`[data-testid="children"] a[href="`+path(child)+`"]`).Length() != 1 {
			t.Fatal("child link")
		}
		if d.Find(`[data-doc-live]`).AttrOr("data-world-stream", "") == "" {
			t.Fatal("a folder page does not follow the world")
		}
		// A document in a folder has breadcrumbs up to the world.
		d = page(t, s, b, path(child), 200)
		if got := texts(d.Find(`nav.crumbs a`)); strings.Join(got, ",") != "Eldoria,Lore" {
			t.Fatalf("crumbs %v", got)
		}
	})

	t.Run("tool type", func(t *testing.T) {
		s.InstallTool(w.ID, apptest.QuestTool)
		q := w.doc(t, "Find the <grail>", "quest", "", "")
		d := page(t, s, b, path(q), 200)
		if !strings.Contains(d.Find(`[data-testid="text-projection"]`).Text(), "Find the <grail>") {
			t.Fatalf("text projection %q", d.Find(`[data-testid="text-projection"]`).Text())
		}
	})
}

func TestDocumentPageEra(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	tl := w.doc(t, "History", "timeline", "", "")
	w.apply(t, tl, "", map[string]any{"op": "timeline.addEvent", "label": "Founding", "dateMs": 0})
	age := w.era(t, "Second Age")
	w.apply(t, tl, age, map[string]any{"op": "timeline.addEvent", "label": "The Fall", "dateMs": 1000})
	b := s.SignIn(ann)
	p := "/w/" + w.Slug + "/d/" + tl

	d := page(t, s, b, p, 200)
	if got := texts(d.Find(`[data-testid="event-label"]`)); strings.Join(got, ",") != "Founding" {
		t.Fatalf("main line %v", got)
	}
	d = page(t, s, b, p+"?era="+age, 200)
	if got := texts(d.Find(`[data-testid="event-label"]`)); strings.Join(got, ",") != "Founding,The Fall" {
		t.Fatalf("era %v", got)
	}
	if d.Find(`[data-testid="version"]`).Text() != "2" || !strings.Contains(d.Find(`[data-testid="doc-era"]`).Text(), "Second Age") {
		t.Fatal("era version or name")
	}
	live := d.Find(`[data-doc-live]`)
	if !strings.HasSuffix(live.AttrOr("data-stream", ""), "/events?era="+age) || !strings.HasSuffix(live.AttrOr("data-body-url", ""), "/body?era="+age) {
		t.Fatal("live URLs do not carry the era")
	}
	if d.Find(`[data-testid="crumb-world"]`).AttrOr("href", "") != "/w/"+w.Slug+"?era="+age {
		t.Fatal("world link does not carry the era")
	}
	res := s.Must(s.Do(apptest.Request{Method: "GET", Path: p + "/body?era=" + age, Client: b}), 200)
	if got := texts(doc(t, res).Find(`[data-testid="event-label"]`)); len(got) != 2 {
		t.Fatalf("era fragment %v", got)
	}
	page(t, s, b, p+"?era=unknown", 404)
}

func TestDocumentPageAccess(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	bob := s.NewUser("Bob")
	w := newWorld(t, s, ann, "Eldoria")
	tl := w.doc(t, "History", "timeline", "", "")
	p := "/w/" + w.Slug + "/d/" + tl

	// Signed out: to the sign-in page, and back here after.
	res := s.Do(apptest.Request{Method: "GET", Path: p + "?era=", Client: s.Browser()})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/login?next="+url.QueryEscape(p+"?era=") {
		t.Fatalf("signed out: %d %q", res.Status, res.Header.Get("Location"))
	}
	if res := s.Do(apptest.Request{Method: "GET", Path: p + "/body", Client: s.Browser()}); res.Status != http.StatusUnauthorized {
		t.Fatalf("signed-out fragment: %d", res.Status)
	}

	// A non-member sees exactly what a missing world or document shows.
	bb := s.SignIn(bob)
	missing := s.Do(apptest.Request{Method: "GET", Path: "/w/no-such-world/d/" + tl, Client: bb})
	for _, path := range []string{p, "/w/" + w.Slug, "/w/" + w.Slug + "/d/nodoc", "/w/no-such-world"} {
		res := s.Do(apptest.Request{Method: "GET", Path: path, Client: bb})
		if res.Status != 404 {
			t.Fatalf("%s: %d", path, res.Status)
		}
		if mainText(t, res) != mainText(t, missing) {
			t.Fatalf("%s: the 404 page differs from a missing world's", path)
		}
	}
	if res := s.Do(apptest.Request{Method: "GET", Path: p + "/body", Client: bb}); res.Status != 404 {
		t.Fatalf("non-member fragment: %d", res.Status)
	}
	// Once a member, Bob sees it.
	s.AddMember(ann, w.ID, bob, "viewer")
	page(t, s, bb, p, 200)
}

func mainText(t *testing.T, res *apptest.Response) string {
	t.Helper()
	h, err := doc(t, res).Find("main").Html()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func noInlineScripts(t *testing.T, d *goquery.Document) {
	t.Helper()
	d.Find("script").Each(func(_ int, sel *goquery.Selection) {
		if src, _ := sel.Attr("src"); src == "" && sel.AttrOr("type", "") != "application/json" {
			t.Fatalf("inline script: %s", sel.Text())
		}
	})
	if d.Find("[style]").Length() != 0 {
		t.Fatal("inline style attribute")
	}
}
