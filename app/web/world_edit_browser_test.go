package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// createInBrowser creates a document with the world page's form and waits for its page.
func createInBrowser(t *testing.T, ctx context.Context, worldPage, name, docType, parent string) {
	t.Helper()
	do(t, ctx,
		chromedp.Navigate(worldPage),
		chromedp.WaitVisible(chromedp.CSS(`#new-doc-name`)),
		chromedp.SendKeys(chromedp.CSS(`#new-doc-name`), name),
		chromedp.SetValue(chromedp.CSS(`#new-doc-type`), docType),
		chromedp.SetValue(chromedp.CSS(`#new-doc-parent`), parent),
		chromedp.Click(chromedp.CSS(`[data-testid="new-document-submit"]`)),
		// A card's page is its editor; other types show their body.
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="doc-title"]`)),
	)
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="doc-title"]').textContent + "|" + document.querySelector("#doc-body").dataset.type`); got != name+"|"+docType {
		t.Fatalf("landed on %q, want %s|%s", got, name, docType)
	}
}

// docID returns the id of the document the tree shows under name.
func docID(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	id := eval[string](t, ctx, `(document.querySelector('#documents li[data-name=`+jsString(name)+`]') || {dataset: {}}).dataset.id || ""`)
	if id == "" {
		t.Fatalf("%q is not in the tree", name)
	}
	return id
}

// filedIn is a JavaScript test that the tree shows document id inside folder ("" = the top).
func filedIn(id, folder string) string {
	return fmt.Sprintf(`(() => { const li = document.querySelector('#documents li[data-id="%s"]');
		if (!li) return false; const p = li.parentElement.closest("li"); return (p ? p.dataset.id : "") === "%s" })()`, id, folder)
}

// An editor organises a world from its page: creates a document of every type the world
// accepts, renames one in the tree, files one in a folder by drag and drop and another with
// the keyboard through the Move dialog, deletes one after confirming, and is told why a
// folder that still holds documents cannot go. The REST API then reads exactly that world.
func TestBrowserOrganiseWorld(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Eldoria")
	installTool(t, s, w.ID)
	worldPage := s.URL + "/w/" + w.Slug
	signInTo(t, ctx, s, ann, "/w/"+w.Slug, `#new-doc-name`)

	t.Run("create every type", func(t *testing.T) {
		createInBrowser(t, ctx, worldPage, "Places", "folder", "")
		for _, c := range [][2]string{{"Aria", "card"}, {"History", "timeline"}, {"Realm", "map"}, {"Dragon", "animator"}, {"Quest log", "quest"}} {
			createInBrowser(t, ctx, worldPage, c[0], c[1], "")
		}
		do(t, ctx, chromedp.Navigate(worldPage), chromedp.WaitVisible(chromedp.CSS(`#documents`)))
		createInBrowser(t, ctx, worldPage, "Castle", "card", docID(t, ctx, "Places"))
	})

	do(t, ctx, chromedp.Navigate(worldPage), chromedp.WaitVisible(chromedp.CSS(`#documents`)))
	noReload(t, ctx)
	streamOpen(t, ctx)
	places, aria, history, realm, dragon := docID(t, ctx, "Places"), docID(t, ctx, "Aria"), docID(t, ctx, "History"), docID(t, ctx, "Realm"), docID(t, ctx, "Dragon")
	waitJS(t, ctx, "Castle in Places", filedIn(docID(t, ctx, "Castle"), places))

	t.Run("documents arriving live can be organised", func(t *testing.T) {
		lantern := w.doc(t, "Lantern", "folder", places, "")
		waitJS(t, ctx, "buttons on a live document", `(() => { const m = document.querySelector("#act-move-`+lantern+`");
			return !!m && m.getAttribute("href") === "/w/`+w.Slug+`/d/`+lantern+`/move" && m.getAttribute("aria-labelledby") === "act-move-`+lantern+` doc-`+lantern+`"
				&& !!document.querySelector("#doc-`+lantern+`") && !!document.querySelector("#act-new-in-`+lantern+`")
				&& Array.from(document.querySelectorAll("#new-doc-parent option")).map(o => o.textContent).join("|") === "Top level|Places|Places › Lantern" })()`)
		do(t, ctx, chromedp.Click(chromedp.CSS(`#act-new-in-`+lantern)))
		waitJS(t, ctx, "new document filed in the folder", `document.activeElement === document.querySelector("#new-doc-name") && document.querySelector("#new-doc-parent").value === "`+lantern+`"`)
		s.Must(s.Do(apptest.Request{Method: http.MethodDelete, Path: "/api/v1/worlds/" + w.ID + "/documents/" + lantern, Key: ann.Key}), http.StatusNoContent)
		waitJS(t, ctx, "gone from the tree and the folder list", `!document.querySelector("#doc-`+lantern+`") && document.querySelector("#new-doc-parent").value === ""`)
	})

	t.Run("rename in the tree", func(t *testing.T) {
		do(t, ctx, chromedp.Click(chromedp.CSS(`#act-rename-`+history)))
		field := `#documents li[data-id="` + history + `"] form[data-organise-form="rename"] input[name="name"]`
		waitJS(t, ctx, "rename field focused", `document.activeElement === document.querySelector('`+field+`')`)
		do(t, ctx, chromedp.SetValue(chromedp.CSS(field), "Annals of Eldoria"), chromedp.SendKeys(chromedp.CSS(field), kb.Enter))
		waitJS(t, ctx, "renamed", `document.querySelector('#doc-`+history+`').textContent === "Annals of Eldoria"
			&& document.activeElement === document.querySelector("#act-rename-`+history+`")
			&& document.querySelector('[data-testid="organise-status"]').textContent === "Renamed to “Annals of Eldoria”."`)
		// An empty name is refused in words beside the field, with the API's code.
		do(t, ctx, chromedp.Click(chromedp.CSS(`#act-rename-`+history)))
		waitJS(t, ctx, "rename field", `!!document.querySelector('`+field+`')`)
		do(t, ctx, chromedp.SetValue(chromedp.CSS(field), "  "), chromedp.SendKeys(chromedp.CSS(field), kb.Enter))
		waitJS(t, ctx, "refusal shown", `(() => { const e = document.querySelector('#documents li[data-id="`+history+`"] [data-testid="form-error"]');
			return !!e && e.dataset.code === "invalid_field" && e.textContent.includes("must not be empty") })()`)
		do(t, ctx, chromedp.KeyEvent(kb.Escape))
		waitJS(t, ctx, "rename cancelled", `!document.querySelector('`+field+`') && document.activeElement === document.querySelector("#act-rename-`+history+`")`)
	})

	t.Run("drag into a folder", func(t *testing.T) {
		do(t, ctx, chromedp.DragAndDrop(chromedp.CSS(`#doc-`+aria), chromedp.CSS(`#doc-`+places)))
		waitJS(t, ctx, "Aria filed in Places", filedIn(aria, places)+` && document.querySelector('[data-testid="organise-status"]').textContent === "Moved “Aria” to “Places”."`)
	})

	t.Run("move with the keyboard", func(t *testing.T) {
		do(t, ctx, chromedp.Focus(chromedp.CSS(`#act-move-`+realm)), chromedp.KeyEvent(kb.Enter))
		waitJS(t, ctx, "dialog open", `document.querySelector("#organise-dialog").open
			&& document.activeElement === document.querySelector('#organise-dialog input[name="parentId"][value=""]')`)
		// The top level and the one folder: the dialog is named by its heading.
		if got := eval[string](t, ctx, `Array.from(document.querySelectorAll('#organise-dialog [data-testid="folder-choice"]')).map(l => l.textContent.trim().replace(/\s+/g, " ")).join("|")
			+ "|" + document.querySelector("#" + document.querySelector("#organise-dialog").getAttribute("aria-labelledby")).textContent`); got != "Top level here now|Places|Move “Realm” to…" {
			t.Fatalf("move dialog: %q", got)
		}
		do(t, ctx, chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.Enter))
		waitJS(t, ctx, "Realm filed in Places", filedIn(realm, places)+` && !document.querySelector("#organise-dialog").open
			&& document.activeElement === document.querySelector("#act-move-`+realm+`")`)
	})

	t.Run("delete", func(t *testing.T) {
		do(t, ctx, chromedp.Click(chromedp.CSS(`#act-delete-`+dragon)))
		waitJS(t, ctx, "confirmation names it", `document.querySelector("#organise-dialog").open && document.querySelector("#delete-title").textContent === "Delete “Dragon”?"`)
		do(t, ctx, chromedp.Click(chromedp.CSS(`#organise-dialog [data-testid="delete-submit"]`)))
		waitJS(t, ctx, "Dragon gone", `!document.querySelector('#documents li[data-id="`+dragon+`"]') && !document.querySelector("#organise-dialog").open`)

		do(t, ctx, chromedp.Click(chromedp.CSS(`#act-delete-`+places)))
		waitJS(t, ctx, "confirmation", `document.querySelector("#organise-dialog").open && document.querySelector("#delete-title").textContent === "Delete “Places”?"`)
		do(t, ctx, chromedp.Click(chromedp.CSS(`#organise-dialog [data-testid="delete-submit"]`)))
		waitJS(t, ctx, "refusal beside the button", `(() => { const e = document.querySelector('#organise-dialog [data-testid="form-error"]');
			return !!e && e.dataset.code === "folder_not_empty" && e.textContent.trim() === "The folder still holds 3 documents; move or delete them first." })()`)
		do(t, ctx, chromedp.KeyEvent(kb.Escape))
		waitJS(t, ctx, "dialog closed", `!document.querySelector("#organise-dialog").open && !!document.querySelector('#documents li[data-id="`+places+`"]')`)
	})
	stillSamePage(t, ctx)

	got := apiDocs(t, w, "")
	want := map[string]apiDoc{
		"Places": {DocumentType: "folder"}, "Castle": {DocumentType: "card", ParentID: places}, "Aria": {DocumentType: "card", ParentID: places},
		"Annals of Eldoria": {DocumentType: "timeline"}, "Realm": {DocumentType: "map", ParentID: places}, "Quest log": {DocumentType: "quest"},
	}
	if len(got) != len(want) {
		t.Fatalf("the API reads %v", got)
	}
	for name, wd := range want {
		if g, ok := got[name]; !ok || g.DocumentType != wd.DocumentType || g.ParentID != wd.ParentID {
			t.Fatalf("%s: the API reads %+v, want %+v", name, g, wd)
		}
	}
}

// An era made in the browser opens at once; the notice shows on the world page and on a
// document page, and a document created there belongs to the era. Projects are created beside.
func TestBrowserOrganiseErasAndProjects(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Eldoria")
	signInTo(t, ctx, s, ann, "/w/"+w.Slug, `#new-era-name`)

	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`#new-era-name`), "Age of Ash"+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="era-banner"]`)),
	)
	var eras struct{ Items []struct{ ID, Name string } }
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/eras"), http.StatusOK).JSON(t, &eras)
	if len(eras.Items) != 1 || eras.Items[0].Name != "Age of Ash" {
		t.Fatalf("eras %+v", eras.Items)
	}
	age := eras.Items[0].ID
	if got := eval[string](t, ctx, `location.search + "|" + document.querySelector('[data-testid="era-banner"] p').textContent.replace(/\s+/g, " ").trim()
		+ "|" + document.querySelector('[data-testid="era-banner-main"]').getAttribute("href")`); got != "?era="+age+"|Editing era Age of Ash new documents, content and deletions here stay in this era|/w/"+w.Slug {
		t.Fatalf("world page in the era: %q", got)
	}
	if got := eval[string](t, ctx, `document.querySelector('#eras a[aria-current="page"]').textContent`); got != "Age of Ash" {
		t.Fatalf("current era %q", got)
	}

	createInBrowser(t, ctx, s.URL+"/w/"+w.Slug+"?era="+age, "Ruined keep", "card", "")
	if got := eval[string](t, ctx, `location.search + "|" + document.querySelector('[data-testid="era-banner-name"]').textContent`); got != "?era="+age+"|Age of Ash" {
		t.Fatalf("document page in the era: %q", got)
	}
	if got := apiDocs(t, w, age)["Ruined keep"]; got.EraID != age {
		t.Fatalf("the document made in the era: %+v", got)
	}
	if _, ok := apiDocs(t, w, "")["Ruined keep"]; ok {
		t.Fatal("the era's document is on the main line")
	}

	// Back to the main line: no notice there.
	do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug+"?era="+age), chromedp.WaitVisible(chromedp.CSS(`[data-testid="era-banner-main"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="era-banner-main"]`)), chromedp.WaitVisible(chromedp.CSS(`#new-project-name`)))
	if eval[bool](t, ctx, `!!document.querySelector('[data-testid="era-banner"]') || location.search !== ""`) {
		t.Fatal("the main line shows the era notice")
	}

	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`#new-project-name`), "Player wiki"),
		chromedp.SetValue(chromedp.CSS(`#new-project-kind`), "wiki"),
		chromedp.Click(chromedp.CSS(`[data-testid="new-project-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="project"]`)),
	)
	var projects struct{ Items []struct{ Kind, Name string } }
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/projects"), http.StatusOK).JSON(t, &projects)
	if len(projects.Items) != 1 || projects.Items[0].Name != "Player wiki" || projects.Items[0].Kind != "wiki" {
		t.Fatalf("projects %+v", projects.Items)
	}
}

// The organising controls fit a phone and a desktop, in a light and a dark theme, with no
// sideways scrolling; a viewer sees none of them. With LOREWEAVE_SCREENSHOTS set to a
// directory, the test also saves what it looked at there.
func TestBrowserOrganiseLayout(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann, vic := s.NewUser("Ann Author"), s.NewUser("Vic Viewer")
	var light, dark struct{ ID, Slug string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "The Drowned Kingdoms of Aerendyl", "genre": "fantasy"}), http.StatusCreated).JSON(t, &light)
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Outer Rim", "genre": "sci-fi"}), http.StatusCreated).JSON(t, &dark)
	eras := map[string]string{}
	for _, x := range []struct{ ID, Slug string }{light, dark} {
		w := world{s: s, u: ann, ID: x.ID, Slug: x.Slug}
		people := w.doc(t, "People", "folder", "", "")
		houses := w.doc(t, "Noble houses of the western reaches", "folder", people, "")
		w.doc(t, "Aria Stormborn, Warden of the Sunken Gate", "card", people, "")
		w.doc(t, "House Veyl", "card", houses, "")
		w.doc(t, "Places", "folder", "", "")
		w.doc(t, "History of the Flood", "timeline", "", "")
		w.doc(t, "Realm", "map", "", "")
		w.doc(t, "Leviathan", "animator", "", "")
		eras[x.Slug] = w.era(t, "The Second Age after the Sundering")
		s.AddMember(ann, x.ID, vic, "viewer")
	}
	look := func(name string) { t.Helper(); look(t, ctx, name) }

	signInTo(t, ctx, s, ann, "/w/"+light.Slug, `#new-doc-name`)
	for _, width := range []int64{1366, 390} {
		do(t, ctx, chromedp.EmulateViewport(width, 900))
		for theme, slug := range map[string]string{"light": light.Slug, "dark": dark.Slug} {
			name := fmt.Sprintf("%s-%d", theme, width)
			do(t, ctx, chromedp.Navigate(s.URL+"/w/"+slug), chromedp.WaitVisible(chromedp.CSS(`#documents`)))
			look(name + "-world")
			people := docID(t, ctx, "People")
			do(t, ctx, chromedp.Click(chromedp.CSS(`#act-move-`+people)))
			waitJS(t, ctx, "move dialog", `document.querySelector("#organise-dialog").open`)
			look(name + "-move")
			do(t, ctx, chromedp.KeyEvent(kb.Escape), chromedp.Click(chromedp.CSS(`#act-delete-`+people)))
			waitJS(t, ctx, "delete dialog", `document.querySelector("#organise-dialog").open`)
			do(t, ctx, chromedp.Click(chromedp.CSS(`#organise-dialog [data-testid="delete-submit"]`)))
			waitJS(t, ctx, "refusal", `!!document.querySelector('#organise-dialog [data-testid="form-error"]')`)
			look(name + "-delete-refused")
			do(t, ctx, chromedp.KeyEvent(kb.Escape), chromedp.Click(chromedp.CSS(`#act-rename-`+people)))
			waitJS(t, ctx, "rename field", `!!document.querySelector('#documents form[data-organise-form="rename"]')`)
			look(name + "-rename")
			do(t, ctx, chromedp.Navigate(s.URL+"/w/"+slug+"?era="+eras[slug]), chromedp.WaitVisible(chromedp.CSS(`[data-testid="era-banner"]`)))
			look(name + "-era")
			do(t, ctx, chromedp.Navigate(s.URL+"/w/"+slug+"/d/"+docID(t, ctx, "Aria Stormborn, Warden of the Sunken Gate")+"?era="+eras[slug]),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="era-banner"]`)))
			look(name + "-document-era")
			do(t, ctx, chromedp.Navigate(s.URL+"/w/"+slug+"/d/"+people+"/move"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="move-form"]`)))
			look(name + "-move-page")
		}
	}

	// A viewer: the same page without a single editing control.
	do(t, ctx, chromedp.EmulateViewport(1366, 900))
	signOut(t, ctx, s)
	signInTo(t, ctx, s, vic, "/w/"+light.Slug+"?era="+eras[light.Slug], `#documents`)
	if n := eval[int](t, ctx, `document.querySelectorAll('main form[method="post"], [data-organise], dialog, [draggable="true"]').length`); n != 0 {
		t.Fatalf("a viewer sees %d editing controls", n)
	}
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="era-banner"] p').textContent.replace(/\s+/g, " ").trim()`); !strings.HasPrefix(got, "Viewing era The Second Age") {
		t.Fatalf("viewer's era notice %q", got)
	}
	look("viewer-light-1366")
}

// signOut signs the browser out with the top bar's button.
func signOut(t *testing.T, ctx context.Context, s *apptest.Server) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(s.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`.topbar form button`)),
		chromedp.Click(chromedp.CSS(`.topbar form button`)), chromedp.WaitVisible(chromedp.CSS(`#email`)))
}
