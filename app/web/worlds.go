package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/static"
	"github.com/loreweave/loreweave/views"
)

func (w *Web) home(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	return w.renderWorlds(e, u, http.StatusOK, views.WorldsForm{})
}

func (w *Web) renderWorlds(e *core.RequestEvent, u *core.Record, status int, f views.WorldsForm) error {
	ws, _, err := w.Store.WorldsOf(u.Id, store.Page{Page: 1, PerPage: 1000})
	if err != nil {
		return err
	}
	items := make([]views.WorldItem, len(ws))
	for i, x := range ws {
		items[i] = views.WorldItem{Slug: x.Slug, Name: x.Name, Genre: x.Genre, Plan: x.Plan, Role: x.Role}
	}
	trash, err := w.trashItems(u.Id)
	if err != nil {
		return err
	}
	switch e.Request.URL.Query().Get("done") {
	case "trashed":
		f.Notice = "The world was moved to the trash. You can restore it below for 30 days."
	}
	invitations, invitationsErr, err := w.myInvitations(u)
	if err != nil {
		return err
	}
	p := page(e, "Your worlds")
	return render(e, status, views.WorldsPage(p, items, f, views.PendingInvitations(p.CSRF, invitations, invitationsErr), trash))
}

func (w *Web) createWorld(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	f := views.WorldsForm{Name: e.Request.PostFormValue("name"), Genre: e.Request.PostFormValue("genre")}
	name, err := store.CleanName("name", f.Name)
	genre := ""
	if err == nil {
		genre, err = store.CleanOptional("genre", f.Genre)
	}
	if err != nil {
		f.Error = apierr.From(err).Message
		return w.renderWorlds(e, u, http.StatusUnprocessableEntity, f)
	}
	world, err := w.Store.CreateWorld(u.Id, name, genre, w.Config.DefaultPlan)
	if err != nil {
		return err
	}
	return e.Redirect(http.StatusSeeOther, "/w/"+world.Slug)
}

// maxFilesShown bounds the files the world page lists (the API pages through all of them).
const maxFilesShown = 20

// world resolves /w/{slug} for the signed-in user; non-members get the same 404 as a
// world that does not exist.
func (w *Web) world(e *core.RequestEvent, u *core.Record) (store.World, string, error) {
	world, err := w.Store.WorldBySlug(e.Request.PathValue("slug"))
	if err != nil {
		return store.World{}, "", apierr.ErrNotFound
	}
	role, err := w.Store.Role(world.ID, u.Id)
	if err != nil {
		return store.World{}, "", err
	}
	if role == "" {
		return store.World{}, "", apierr.ErrNotFound
	}
	return world, role, nil
}

// notFound is the one page for a world or document that does not exist, is not visible in the
// era asked for, or belongs to a world the user is not a member of: it must not tell them apart.
func (w *Web) notFound(e *core.RequestEvent) error {
	return w.errorPage(e, http.StatusNotFound, "Not found", "There is no such world or document, or you are not a member of its world.")
}

// eraOf reads ?era= and checks that it is an era of the world: it returns the era's chain
// (nearest first, ending with the main line "") and its name.
func (w *Web) eraOf(e *core.RequestEvent, worldID string) (id, name string, chain []string, err error) {
	id = e.Request.URL.Query().Get("era")
	chain, err = w.Store.EraChain(worldID, id)
	if err != nil {
		return "", "", nil, err
	}
	if id != store.MainLine {
		era, err := w.Store.Era(worldID, id)
		if err != nil {
			return "", "", nil, err
		}
		name = era.Name
	}
	return id, name, chain, nil
}

// place is the world and era a page shows to a signed-in member.
type place struct {
	world   store.World
	role    string
	eraID   string
	eraName string
	chain   []string
}

// place resolves /w/{slug}[?era=] for the signed-in member. When it returns a nil place the
// response is already written: a redirect to sign in, or the shared 404 (a world that does
// not exist, one the user is not a member of, or an unknown era all look the same).
func (w *Web) place(e *core.RequestEvent) (*place, error) {
	u, err := requireUser(e)
	if u == nil {
		return nil, err
	}
	world, role, err := w.world(e, u)
	if err != nil {
		return nil, w.notFound(e)
	}
	eraID, eraName, chain, err := w.eraOf(e, world.ID)
	if err != nil {
		return nil, w.notFound(e)
	}
	return &place{world: world, role: role, eraID: eraID, eraName: eraName, chain: chain}, nil
}

// allRows is the page size that reads a whole list at once.
var allRows = store.Page{Page: 1, PerPage: 10000}

// worldPage shows a world in the era of ?era=; ?in=FOLDER files the new document form's
// document in that folder.
func (w *Web) worldPage(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	return w.renderWorld(e, pl, http.StatusOK, func(ed *views.WorldEdit) {
		ed.NewDocument.ParentID = e.Request.URL.Query().Get("in")
	})
}

// renderWorld writes the world page of pl; forms, when not nil, sets an editor's forms'
// state (what was typed and why it was refused).
func (w *Web) renderWorld(e *core.RequestEvent, pl *place, status int, forms func(*views.WorldEdit)) error {
	world, role, eraID, eraName, chain := pl.world, pl.role, pl.eraID, pl.eraName, pl.chain
	// The world's event head is read before the lists: the page's stream resumes from it, so a
	// change committed in between is replayed (the script ignores what it already shows).
	seq, err := w.Store.WorldEventHead(world.ID)
	if err != nil {
		return err
	}
	docs, _, err := w.Store.Documents(world.ID, store.DocumentFilter{EraID: eraID}, allRows)
	if err != nil {
		return err
	}
	eras, _, err := w.Store.Eras(world.ID, allRows)
	if err != nil {
		return err
	}
	projects, _, err := w.Store.Projects(world.ID, allRows)
	if err != nil {
		return err
	}
	chainJSON, err := json.Marshal(chain)
	if err != nil {
		return err
	}
	v := views.WorldView{ID: world.ID, Slug: world.Slug, Name: world.Name, Genre: world.Genre, Role: role, Plan: world.Plan,
		EraID: eraID, EraName: eraName, EraChain: string(chainJSON),
		Tree:      docTree(docs, appLinks(world, eraID).Doc),
		StreamURL: "/api/v1/worlds/" + world.ID + "/events", Seq: seq}
	for _, x := range eras {
		v.Eras = append(v.Eras, views.EraItem{ID: x.ID, Name: x.Name, Href: worldURL(world.Slug, x.ID), Current: x.ID == eraID})
	}
	for _, x := range projects {
		pi := views.ProjectItem{ID: x.ID, Kind: x.Kind, Name: x.Name}
		if x.Kind == store.KindWiki {
			pi.URL = wikiURL(x.Slug)
		} else {
			pi.URL = appProjectURL(world.Slug, x.ID)
		}
		if store.CanEdit(role) {
			pi.SettingsHref = projectSettingsURL(world.Slug, x.ID)
		}
		v.Projects = append(v.Projects, pi)
	}
	files, fileCount, err := w.Store.Assets(world.ID, store.Page{Page: 1, PerPage: maxFilesShown})
	if err != nil {
		return err
	}
	if v.FilesSize, err = w.Store.AssetsSize(world.ID); err != nil {
		return err
	}
	v.FileCount = fileCount
	for _, f := range files {
		v.Files = append(v.Files, views.FileItem{Name: f.Name, Kind: f.Kind, URL: store.AssetPath(world.ID, f.ID), Size: f.Size})
	}
	p := page(e, world.Name)
	p.Theme = world.Theme
	p.Era = eraBanner(pl, worldURL(world.Slug, store.MainLine))
	p.Scripts = []string{static.URL("js/live.js")}
	if store.CanEdit(role) {
		if v.Edit, err = w.worldEdit(pl, v.Tree); err != nil {
			return err
		}
		if forms != nil {
			forms(v.Edit)
		}
		p.Scripts = append(p.Scripts, static.URL("js/organise.js"))
	}
	return render(e, status, views.WorldPage(p, v))
}

// worldURL is a world's page in an era ("" = the main line).
func worldURL(slug, eraID string) string {
	return "/w/" + url.PathEscape(slug) + eraQuery(eraID)
}

// documentURL is a document's page in an era.
func documentURL(slug, docID, eraID string) string {
	return "/w/" + url.PathEscape(slug) + "/d/" + url.PathEscape(docID) + eraQuery(eraID)
}

func eraQuery(eraID string) string {
	if eraID == "" {
		return ""
	}
	return "?era=" + url.QueryEscape(eraID)
}

// docTree files documents under their folders (a document whose folder is not in docs goes
// to the top) and orders every level: folders first, then by name; href is a document's
// page. The page's script keeps the same order (live.js, compareDocs) when documents arrive.
func docTree(docs []store.Document, href func(docID string) string) []views.DocNode {
	ids := make(map[string]bool, len(docs))
	for _, d := range docs {
		ids[d.ID] = true
	}
	children := map[string][]store.Document{}
	for _, d := range docs {
		parent := d.ParentID
		if parent == d.ID || !ids[parent] {
			parent = ""
		}
		children[parent] = append(children[parent], d)
	}
	seen := map[string]bool{}
	var build func(parent string) []views.DocNode
	build = func(parent string) []views.DocNode {
		level := children[parent]
		slices.SortFunc(level, compareDocs)
		out := make([]views.DocNode, 0, len(level))
		for _, d := range level {
			if seen[d.ID] { // a cycle in parent links: show each document once
				continue
			}
			seen[d.ID] = true
			n := views.DocNode{DocItem: views.DocItem{ID: d.ID, Name: d.Name, DocumentType: d.DocumentType, ParentID: d.ParentID,
				Href: href(d.ID)}}
			n.Children = build(d.ID)
			out = append(out, n)
		}
		return out
	}
	return build("")
}

// compareDocs orders documents within a folder: folders first, then by name ignoring case,
// then by name and id so the order is total.
func compareDocs(a, b store.Document) int {
	if fa, fb := a.DocumentType == "folder", b.DocumentType == "folder"; fa != fb {
		if fa {
			return -1
		}
		return 1
	}
	if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}
