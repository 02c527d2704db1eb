package web_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/loreweave/loreweave/app/apptest"
)

// editor is a signed-in browser that posts the world page's forms, with its CSRF token.
type editor struct {
	s     *apptest.Server
	b     *http.Client
	token string
}

func newEditor(t *testing.T, s *apptest.Server, u apptest.User) editor {
	t.Helper()
	b := s.SignIn(u)
	return editor{s: s, b: b, token: s.CSRFToken(b, "/")}
}

// post submits a form as the browser would.
func (ed editor) post(path string, form url.Values) *apptest.Response {
	form.Set("csrf", ed.token)
	return ed.s.PostForm(ed.b, path, form)
}

// redirected checks a form's answer is a 303 to want.
func redirected(t *testing.T, res *apptest.Response, want string) {
	t.Helper()
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != want {
		t.Fatalf("answer %d to %q, want 303 to %q: %s", res.Status, res.Header.Get("Location"), want, res.Body)
	}
}

// refused checks a form came back with status and the API's code next to the control, and
// returns the message shown.
func refused(t *testing.T, res *apptest.Response, status int, code string) string {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %d, want %d: %s", res.Status, status, res.Body)
	}
	e := doc(t, res).Find(`[data-testid="form-error"]`)
	if e.Length() != 1 || e.AttrOr("data-code", "") != code || e.AttrOr("role", "") != "alert" {
		t.Fatalf("want one refusal with code %s, got %d: %q", code, e.Length(), e.AttrOr("data-code", ""))
	}
	return strings.TrimSpace(e.Text())
}

// apiDoc is a document as the REST API lists it.
type apiDoc struct {
	ID, Name, DocumentType, ParentID, EraID string
}

func apiDocs(t *testing.T, w world, era string) map[string]apiDoc {
	t.Helper()
	var list struct{ Items []apiDoc }
	w.s.Must(w.s.Get(w.u.Key, "/api/v1/worlds/"+w.ID+"/documents?perPage=100"+strings.Replace(eraQ(era), "?", "&", 1)), 200).JSON(t, &list)
	out := map[string]apiDoc{}
	for _, d := range list.Items {
		out[d.Name] = d
	}
	return out
}

// installTool adds an installed tool's document type and app kind to a world.
func installTool(t *testing.T, s *apptest.Server, worldID string) {
	t.Helper()
	s.InstallTool(worldID, apptest.QuestTool)
}

// The world page gives editors its organising forms, with the world's own document types and
// app kinds, and every document its actions; viewers get none of it.
func TestWorldPageOrganisingControls(t *testing.T) {
	s := apptest.Start(t)
	ann, vic := s.NewUser("Ann"), s.NewUser("Vic Viewer")
	w := newWorld(t, s, ann, "Eldoria")
	installTool(t, s, w.ID)
	places := w.doc(t, "Places", "folder", "", "")
	w.doc(t, "Castle", "card", places, "")
	s.AddMember(ann, w.ID, vic, "viewer")

	d := page(t, s, s.SignIn(ann), "/w/"+w.Slug+"?in="+places, 200)
	form := d.Find(`form[data-testid="new-document-form"]`)
	if form.AttrOr("action", "") != "/w/"+w.Slug+"/documents" || form.AttrOr("method", "") != "post" || form.Find(`input[name="csrf"]`).Length() != 1 {
		t.Fatalf("new document form: %v", form.Nodes)
	}
	var types []string
	form.Find(`select[name="documentType"] option`).Each(func(_ int, o *goquery.Selection) { types = append(types, o.AttrOr("value", "")) })
	if strings.Join(types, ",") != "animator,card,folder,map,quest,timeline" {
		t.Fatalf("types %v", types)
	}
	if got := form.Find(`select[name="parentId"] option[selected]`).AttrOr("value", ""); got != places {
		t.Fatalf("?in= did not choose the folder: %q", got)
	}
	if got := texts(d.Find(`select[name="kind"] option`)); strings.Join(got, ",") != "kanban,wiki" {
		t.Fatalf("kinds %v", got)
	}
	for _, sel := range []string{`form[data-testid="new-era-form"]`, `form[data-testid="new-project-form"]`, `dialog#organise-dialog`, `template#doc-actions-template`} {
		if d.Find(sel).Length() != 1 {
			t.Fatalf("no %s", sel)
		}
	}
	castle := d.Find(`li[data-name="Castle"]`)
	if castle.AttrOr("draggable", "") != "true" {
		t.Fatal("a document is not draggable")
	}
	for _, action := range []string{"rename", "move", "delete"} {
		a := castle.Find(`a[data-organise="` + action + `"]`)
		id := a.AttrOr("id", "")
		if a.AttrOr("href", "") != "/w/"+w.Slug+"/d/"+castle.AttrOr("data-id", "")+"/"+action || a.AttrOr("aria-labelledby", "") != id+" doc-"+castle.AttrOr("data-id", "") {
			t.Fatalf("%s action: %v", action, a.Nodes)
		}
	}
	if d.Find(`li[data-name="Places"] > .doc-actions a[data-organise="new-in"]`).Length() != 1 || castle.Find(`a[data-organise="new-in"]`).Length() != 0 {
		t.Fatal("only folders offer a new document inside")
	}
	noInlineScripts(t, d)

	d = page(t, s, s.SignIn(vic), "/w/"+w.Slug, 200)
	if n := d.Find(`main form[method="post"], [data-organise], dialog, template, [draggable]`).Length(); n != 0 {
		t.Fatalf("a viewer sees %d editing controls", n)
	}
	if d.Find(`script[src*="organise"]`).Length() != 0 {
		t.Fatal("a viewer's page loads the organising script")
	}
}

// Every document change from the world page goes through the store's own rules: what the
// API accepts is made, what it refuses is refused with its code, shown next to the control;
// the world's event stream tells watchers.
func TestOrganiseDocuments(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	installTool(t, s, w.ID)
	ed := newEditor(t, s, ann)
	events := s.Stream(ann.Key, "/api/v1/worlds/"+w.ID+"/events")
	base := "/w/" + w.Slug

	create := func(name, docType, parent string) string {
		t.Helper()
		res := ed.post(base+"/documents", url.Values{"name": {name}, "documentType": {docType}, "parentId": {parent}})
		if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), base+"/d/") {
			t.Fatalf("create %s: %d %q %s", name, res.Status, res.Header.Get("Location"), res.Body)
		}
		return strings.TrimPrefix(res.Header.Get("Location"), base+"/d/")
	}
	places := create("Places", "folder", "")
	if ev := events.Expect(t, "document.created"); !strings.Contains(ev.Data, places) {
		t.Fatalf("watchers were not told: %s", ev.Data)
	}
	for _, typ := range []string{"card", "timeline", "map", "animator", "quest"} {
		create("A "+typ, typ, "")
	}
	inn := create("  Inn  ", "card", places)
	north := create("North", "folder", places)

	t.Run("create refused", func(t *testing.T) {
		msg := refused(t, ed.post(base+"/documents", url.Values{"name": {"Bad"}, "documentType": {"spreadsheet"}}), 422, "unsupported_document_type")
		if !strings.Contains(msg, "allowed: animator, card, folder, map, quest, timeline") {
			t.Fatalf("message %q", msg)
		}
		refused(t, ed.post(base+"/documents", url.Values{"name": {"   "}, "documentType": {"card"}}), 422, "invalid_field")
		res := ed.post(base+"/documents", url.Values{"name": {"Lost"}, "documentType": {"card"}, "parentId": {inn}})
		refused(t, res, 422, "invalid_field")
		// What was typed is kept.
		if v := doc(t, res).Find(`#new-doc-name`).AttrOr("value", ""); v != "Lost" {
			t.Fatalf("typed name lost: %q", v)
		}
	})

	t.Run("rename", func(t *testing.T) {
		d := page(t, s, ed.b, base+"/d/"+inn+"/rename", 200)
		if v := d.Find(`form[data-testid="rename-form"] input[name="name"]`).AttrOr("value", ""); v != "Inn" {
			t.Fatalf("rename form value %q", v)
		}
		redirected(t, ed.post(base+"/d/"+inn+"/rename", url.Values{"name": {" The Prancing Pony "}}), base)
		events.Expect(t, "document.renamed")
		res := ed.post(base+"/d/"+inn+"/rename", url.Values{"name": {strings.Repeat("x", 201)}})
		if msg := refused(t, res, 422, "invalid_field"); !strings.Contains(msg, "at most 200 characters") {
			t.Fatalf("message %q", msg)
		}
		if doc(t, res).Find(`input[name="name"][aria-invalid="true"][aria-describedby]`).Length() != 1 {
			t.Fatal("the field is not marked invalid")
		}
	})

	t.Run("move", func(t *testing.T) {
		// The folders offered: the top level and every folder but the document and its own.
		d := page(t, s, ed.b, base+"/d/"+places+"/move", 200)
		var offered []string
		d.Find(`[data-testid="folder-choice"]`).Each(func(_ int, x *goquery.Selection) { offered = append(offered, x.AttrOr("data-id", "")) })
		if len(offered) != 1 || offered[0] != "" || d.Find(`input[name="parentId"][value=""][checked]`).Length() != 1 {
			t.Fatalf("a folder may move into itself or its subfolders: %v", offered)
		}
		d = page(t, s, ed.b, base+"/d/"+inn+"/move", 200)
		offered = nil
		d.Find(`[data-testid="folder-choice"]`).Each(func(_ int, x *goquery.Selection) { offered = append(offered, x.AttrOr("data-id", "")) })
		if !slices.Equal(offered, []string{"", north, places}) && !slices.Equal(offered, []string{"", places, north}) {
			t.Fatalf("folders offered %v", offered)
		}
		if d.Find(`input[name="parentId"][value="`+places+`"][checked]`).Length() != 1 {
			t.Fatal("the document's own folder is not chosen")
		}

		redirected(t, ed.post(base+"/d/"+inn+"/move", url.Values{"parentId": {north}}), base)
		events.Expect(t, "document.moved")
		msg := refused(t, ed.post(base+"/d/"+places+"/move", url.Values{"parentId": {north}}), 422, "invalid_field")
		if !strings.Contains(msg, "cannot be moved into itself") {
			t.Fatalf("message %q", msg)
		}
	})

	t.Run("delete", func(t *testing.T) {
		d := page(t, s, ed.b, base+"/d/"+places+"/delete", 200)
		if h := d.Find(`#delete-title`).Text(); h != "Delete “Places”?" {
			t.Fatalf("confirmation %q", h)
		}
		msg := refused(t, ed.post(base+"/d/"+places+"/delete", url.Values{}), 409, "folder_not_empty")
		if msg != "The folder still holds a document; move or delete it first." {
			t.Fatalf("message %q", msg)
		}
		m := apiDocs(t, w, "")["A map"].ID
		redirected(t, ed.post(base+"/d/"+m+"/delete", url.Values{}), base)
		events.Expect(t, "document.deleted")
		page(t, s, ed.b, base+"/d/"+m+"/delete", 404)
	})

	// The REST API reads exactly what the forms made.
	got := apiDocs(t, w, "")
	want := map[string]apiDoc{
		"Places": {DocumentType: "folder"}, "North": {DocumentType: "folder", ParentID: places},
		"The Prancing Pony": {DocumentType: "card", ParentID: north},
		"A card":            {DocumentType: "card"}, "A timeline": {DocumentType: "timeline"},
		"A animator": {DocumentType: "animator"}, "A quest": {DocumentType: "quest"},
	}
	if len(got) != len(want) {
		t.Fatalf("documents %v", got)
	}
	for name, wd := range want {
		g, ok := got[name]
		if !ok || g.DocumentType != wd.DocumentType || g.ParentID != wd.ParentID || g.EraID != "" {
			t.Fatalf("%s: %+v, want %+v", name, g, wd)
		}
	}
}

// An era made from the world page branches from the era shown and opens; the pages in it say
// so, and what is created there belongs to it.
func TestOrganiseEras(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	card := w.doc(t, "Aria", "card", "", "")
	ed := newEditor(t, s, ann)
	base := "/w/" + w.Slug

	res := ed.post(base+"/eras", url.Values{"name": {"Second Age"}})
	var eras struct {
		Items []struct{ ID, Name, ParentID string }
	}
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/eras"), 200).JSON(t, &eras)
	if len(eras.Items) != 1 || eras.Items[0].Name != "Second Age" || eras.Items[0].ParentID != "" {
		t.Fatalf("eras %+v", eras.Items)
	}
	age := eras.Items[0].ID
	redirected(t, res, base+"?era="+age)

	if page(t, s, ed.b, base, 200).Find(`[data-testid="era-banner"]`).Length() != 0 {
		t.Fatal("the main line shows an era banner")
	}
	d := page(t, s, ed.b, base+"?era="+age, 200)
	banner := d.Find(`[data-testid="era-banner"]`)
	if !strings.Contains(banner.Text(), "Editing era") || banner.Find(`[data-testid="era-banner-name"]`).Text() != "Second Age" ||
		banner.Find(`a`).AttrOr("href", "") != base {
		t.Fatalf("banner %q", banner.Text())
	}
	if a := d.Find(`form[data-testid="new-document-form"]`).AttrOr("action", ""); a != base+"/documents?era="+age {
		t.Fatalf("new document form posts to %q", a)
	}
	if a := d.Find(`li[data-id="`+card+`"] a[data-organise="delete"]`).AttrOr("href", ""); a != base+"/d/"+card+"/delete?era="+age {
		t.Fatalf("delete posts to %q", a)
	}
	d = page(t, s, ed.b, base+"/d/"+card+"?era="+age, 200)
	if b := d.Find(`[data-testid="era-banner"]`); b.Find(`[data-testid="era-banner-name"]`).Text() != "Second Age" || b.Find("a").AttrOr("href", "") != base+"/d/"+card {
		t.Fatalf("document page banner %q", b.Text())
	}

	// A document created in the era belongs to it; a delete there leaves the main line alone.
	res = ed.post(base+"/documents?era="+age, url.Values{"name": {"Ruins"}, "documentType": {"map"}})
	if res.Status != http.StatusSeeOther || !strings.HasSuffix(res.Header.Get("Location"), "?era="+age) {
		t.Fatalf("create in era: %d %q", res.Status, res.Header.Get("Location"))
	}
	if got := apiDocs(t, w, age)["Ruins"]; got.EraID != age {
		t.Fatalf("document made in the era: %+v", got)
	}
	if _, ok := apiDocs(t, w, "")["Ruins"]; ok {
		t.Fatal("the era's document is on the main line")
	}
	redirected(t, ed.post(base+"/d/"+card+"/delete?era="+age, url.Values{}), base+"?era="+age)
	if _, ok := apiDocs(t, w, "")["Aria"]; !ok {
		t.Fatal("a delete in the era removed the document from the main line")
	}
	if _, ok := apiDocs(t, w, age)["Aria"]; ok {
		t.Fatal("a delete in the era left the document there")
	}

	// An era made from an era branches from it.
	ed.post(base+"/eras?era="+age, url.Values{"name": {"Third Age"}})
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/eras"), 200).JSON(t, &eras)
	if len(eras.Items) != 2 || eras.Items[1].ParentID != age {
		t.Fatalf("eras %+v", eras.Items)
	}
	refused(t, ed.post(base+"/eras", url.Values{"name": {""}}), 422, "invalid_field")
	page(t, s, ed.b, base+"?era=nope", 404)
	if res := ed.post(base+"/documents?era=nope", url.Values{"name": {"x"}, "documentType": {"card"}}); res.Status != 404 {
		t.Fatalf("create in an unknown era: %d", res.Status)
	}
}

func TestOrganiseProjects(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	ed := newEditor(t, s, ann)
	redirected(t, ed.post("/w/"+w.Slug+"/projects", url.Values{"name": {"Player wiki"}, "kind": {"wiki"}}), "/w/"+w.Slug)
	var list struct{ Items []struct{ Kind, Name string } }
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/projects"), 200).JSON(t, &list)
	if len(list.Items) != 1 || list.Items[0].Kind != "wiki" || list.Items[0].Name != "Player wiki" {
		t.Fatalf("projects %+v", list.Items)
	}
	res := ed.post("/w/"+w.Slug+"/projects", url.Values{"name": {"Board"}, "kind": {"kanban"}})
	if msg := refused(t, res, 422, "unknown_project_kind"); !strings.Contains(msg, "known kinds: wiki") {
		t.Fatalf("message %q", msg)
	}
}

// The organising routes refuse viewers even with a valid CSRF token, refuse everyone without
// one, and hide the world from non-members; nothing changes.
func TestOrganiseRefusals(t *testing.T) {
	s := apptest.Start(t)
	ann, vic, nat := s.NewUser("Ann"), s.NewUser("Vic Viewer"), s.NewUser("Nat Stranger")
	w := newWorld(t, s, ann, "Eldoria")
	places := w.doc(t, "Places", "folder", "", "")
	card := w.doc(t, "Aria", "card", "", "")
	s.AddMember(ann, w.ID, vic, "viewer")
	base := "/w/" + w.Slug
	writes := []struct {
		path string
		form url.Values
	}{
		{base + "/documents", url.Values{"name": {"Forged"}, "documentType": {"card"}}},
		{base + "/d/" + card + "/rename", url.Values{"name": {"Forged"}}},
		{base + "/d/" + card + "/move", url.Values{"parentId": {places}}},
		{base + "/d/" + card + "/delete", url.Values{}},
		{base + "/eras", url.Values{"name": {"Forged"}}},
		{base + "/projects", url.Values{"name": {"Forged"}, "kind": {"wiki"}}},
	}
	unchanged := func(t *testing.T) {
		t.Helper()
		docs := apiDocs(t, w, "")
		if len(docs) != 2 || docs["Aria"].ParentID != "" || docs["Places"].ID != places {
			t.Fatalf("documents changed: %v", docs)
		}
		if n := s.Count("eras", "") + s.Count("projects", ""); n != 0 {
			t.Fatalf("%d eras and projects made", n)
		}
	}

	viewer := newEditor(t, s, vic)
	for _, x := range writes {
		if res := viewer.post(x.path, x.form); res.Status != http.StatusForbidden || !strings.Contains(string(res.Body), "changing it needs owner, admin or editor") {
			t.Fatalf("viewer POST %s: %d", x.path, res.Status)
		}
	}
	for _, action := range []string{"rename", "move", "delete"} {
		page(t, s, viewer.b, base+"/d/"+card+"/"+action, http.StatusForbidden)
	}
	unchanged(t)

	owner := newEditor(t, s, ann)
	for _, x := range writes {
		res := s.PostForm(owner.b, x.path, x.form) // no token
		if res.Status != http.StatusForbidden {
			t.Fatalf("POST %s without a CSRF token: %d", x.path, res.Status)
		}
		x.form.Set("csrf", strings.Repeat("a", 43))
		if res := s.PostForm(owner.b, x.path, x.form); res.Status != http.StatusForbidden {
			t.Fatalf("POST %s with a wrong CSRF token: %d", x.path, res.Status)
		}
	}
	unchanged(t)

	stranger := newEditor(t, s, nat)
	for _, x := range writes {
		if res := stranger.post(x.path, x.form); res.Status != http.StatusNotFound {
			t.Fatalf("non-member POST %s: %d", x.path, res.Status)
		}
	}
	signedOut := s.Browser()
	token := s.CSRFToken(signedOut, "/login")
	for _, x := range writes {
		x.form.Set("csrf", token)
		if res := s.PostForm(signedOut, x.path, x.form); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
			t.Fatalf("signed-out POST %s: %d", x.path, res.Status)
		}
	}
	unchanged(t)
}
