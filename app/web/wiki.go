package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/a-h/templ"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/search"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/static"
	"github.com/loreweave/loreweave/views"
)

// A wiki project publishes a read-only site of its world, in one era, at /wiki/{slug}/: a
// home page, a page per document (the app's own document view, with the wiki's links and
// without secret sections), the folder tree as navigation, and a search box limited to what
// it publishes. Pages are rendered on the server and work without JavaScript; they carry an
// ETag made of everything they show (the world's newest change, the project's settings), so
// a reload is cheap and never stale. A "members" wiki opens for the world's signed-in members
// (others are sent to sign in, or get 404); a "public" one for anyone.

// wikiSite is a wiki as one request sees it.
type wikiSite struct {
	project store.Project
	cfg     store.WikiConfig
	world   store.World
	eraName string
	chain   []string
	// seq and head are the world's event and change sequences read before anything else:
	// what the page's ETag is made of.
	seq, head int64
	// etag is the page's, once fresh has made it.
	etag string
}

// wikiPageCache keeps rendered wiki pages by ETag. An ETag is made of everything its page
// shows, so a page kept under it is the page: a popular page is rendered once per change of
// the world rather than once per reader.
type wikiPageCache struct {
	mu    sync.Mutex
	pages map[string]wikiPage
}

type wikiPage struct {
	body []byte
	csp  string
}

// maxWikiPages bounds the pages kept; when full, the cache starts over.
const maxWikiPages = 256

func (c *wikiPageCache) get(etag string) (wikiPage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pages[etag]
	return p, ok
}

func (c *wikiPageCache) put(etag string, p wikiPage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pages == nil || len(c.pages) >= maxWikiPages {
		c.pages = make(map[string]wikiPage, maxWikiPages)
	}
	c.pages[etag] = p
}

// base is the wiki's home page, and the prefix of its other pages.
func (s *wikiSite) base() string { return "/wiki/" + url.PathEscape(s.project.Slug) + "/" }

// links lead to the wiki's own pages and files, and leave out secret sections.
func (s *wikiSite) links() docLinks {
	return docLinks{
		Doc:    func(id string) string { return s.base() + "d/" + url.PathEscape(id) },
		Asset:  s.fileURL,
		Public: true,
	}
}

// fileURL turns the address of one of the world's uploaded files (store.AssetPath, members
// only) into the wiki's, which its readers may load; other addresses stay as they are.
func (s *wikiSite) fileURL(u string) string {
	rest, ok := strings.CutPrefix(u, "/api/v1/worlds/"+s.world.ID+"/assets/")
	if !ok {
		return u
	}
	id, ok := strings.CutSuffix(rest, "/file")
	if !ok || id == "" || strings.ContainsAny(id, "/?#") {
		return u
	}
	return s.base() + "files/" + url.PathEscape(id)
}

// view is what every page of the wiki shows around its content.
func (s *wikiSite) view(tree []views.DocNode, current string) views.WikiSite {
	return views.WikiSite{Name: s.project.Name, WorldName: s.world.Name, EraName: s.eraName, Home: s.base(),
		SearchURL: s.base() + "search", Theme: s.world.Theme, Tree: tree, CurrentID: current}
}

// wikiMiddleware runs on the wiki's pages instead of the app's middleware: the same security
// headers and the session, but no CSRF cookie (a wiki has no forms that write, and a public
// page must be the same response for everyone to be cached).
func (w *Web) wikiMiddleware(e *core.RequestEvent) error {
	h := e.Response.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	e.Set(signupClosedKey, !w.Config.SignupOpen())
	if u := auth.SessionUser(w.App, e.Request); u != nil {
		e.Set(userKey, u)
	}
	return e.Next()
}

// wiki resolves /wiki/{slug}/… for the reader. When it returns nil the response is already
// written: the 404 page (no such wiki, a signed-in reader who is not a member of a members
// wiki's world), or, for a signed-out reader of a members wiki, a redirect to sign in that
// comes back here.
func (w *Web) wiki(e *core.RequestEvent) (*wikiSite, error) {
	p, err := w.Store.ProjectBySlug(e.Request.PathValue("slug"))
	if err != nil || p.Kind != store.KindWiki {
		return nil, w.wikiNotFound(e)
	}
	s := &wikiSite{project: p, cfg: p.Wiki()}
	if s.world, err = w.Store.World(p.WorldID); err != nil {
		return nil, w.wikiNotFound(e)
	}
	if s.cfg.Visibility != store.VisibilityPublic {
		u, err := requireUser(e)
		if u == nil {
			return nil, err
		}
		role, err := w.Store.Role(s.world.ID, u.Id)
		if err != nil {
			return nil, err
		}
		if role == "" {
			return nil, w.wikiNotFound(e)
		}
	}
	// The sequences first: whatever is read after them is at least as new as they say.
	if s.seq, err = w.Store.WorldEventHead(s.world.ID); err != nil {
		return nil, err
	}
	if s.head, err = w.Store.WorldChangeHead(s.world.ID); err != nil {
		return nil, err
	}
	if s.chain, err = w.Store.EraChain(s.world.ID, s.cfg.EraID); err != nil {
		return nil, w.wikiNotFound(e)
	}
	if s.cfg.EraID != store.MainLine {
		era, err := w.Store.Era(s.world.ID, s.cfg.EraID)
		if err != nil {
			return nil, w.wikiNotFound(e)
		}
		s.eraName = era.Name
	}
	return s, nil
}

func (w *Web) wikiNotFound(e *core.RequestEvent) error {
	return w.errorPage(e, http.StatusNotFound, "Not found", "There is no such page here. The wiki may have moved, or the page may no longer be published.")
}

// fresh sets the page's validators and answers 304 when the reader already holds this
// version of it; parts are what the page shows beyond the site itself. A public wiki's pages
// may be kept by shared caches, a members wiki's only by the reader's browser; both are
// checked again on every use, so a change in the world shows on the next load.
func (s *wikiSite) fresh(e *core.RequestEvent, parts ...any) bool {
	sum := sha256.New()
	fmt.Fprintln(sum, "wiki/1", s.project.ID, s.project.Name, s.project.Config, s.project.Updated,
		s.world.Name, s.world.Theme, s.seq, s.head)
	for _, p := range parts {
		fmt.Fprintln(sum, p)
	}
	etag := `"` + hex.EncodeToString(sum.Sum(nil))[:32] + `"`
	s.etag = etag
	h := e.Response.Header()
	h.Set("ETag", etag)
	if s.cfg.Visibility == store.VisibilityPublic {
		h.Set("Cache-Control", "public, max-age=0, must-revalidate")
	} else {
		h.Set("Cache-Control", "private, max-age=0, must-revalidate")
		h.Set("Vary", "Cookie")
	}
	for _, t := range strings.Split(e.Request.Header.Get("If-None-Match"), ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			e.Response.WriteHeader(http.StatusNotModified)
			return true
		}
	}
	return false
}

// cachedWiki writes the page kept under the ETag fresh made, if there is one.
func (w *Web) cachedWiki(e *core.RequestEvent, s *wikiSite) bool {
	p, ok := w.wikiPages.get(s.etag)
	if !ok {
		return false
	}
	e.Response.Header().Set("Content-Security-Policy", p.csp)
	e.Response.Header().Set("Content-Type", "text/html; charset=utf-8")
	e.Response.WriteHeader(http.StatusOK)
	_, err := e.Response.Write(p.body)
	return err == nil
}

// renderWiki writes a wiki page, with the validators fresh set, and keeps it under its
// ETag.
func (w *Web) renderWiki(e *core.RequestEvent, s *wikiSite, c templ.Component) error {
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		return err
	}
	h := e.Response.Header()
	if h.Get("ETag") != "" {
		w.wikiPages.put(s.etag, wikiPage{body: buf.Bytes(), csp: h.Get("Content-Security-Policy")})
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	e.Response.WriteHeader(http.StatusOK)
	_, err := e.Response.Write(buf.Bytes())
	return err
}

// wikiTree is the published documents as the wiki's navigation.
func (w *Web) wikiTree(s *wikiSite) ([]store.Document, []views.DocNode, error) {
	docs, _, err := w.Store.Documents(s.world.ID, store.DocumentFilter{EraID: s.cfg.EraID}, allRows)
	if err != nil {
		return nil, nil, err
	}
	return docs, docTree(docs, s.links().Doc), nil
}

// maxRecent bounds the home page's list of recently changed documents.
const maxRecent = 12

// wikiSlash sends /wiki/{slug} to the home page's own address.
func (w *Web) wikiSlash(e *core.RequestEvent) error {
	return e.Redirect(http.StatusMovedPermanently, "/wiki/"+url.PathEscape(e.Request.PathValue("slug"))+"/")
}

// wikiHome is a wiki's home page: the world, its recently changed documents, and every
// published page in the navigation.
func (w *Web) wikiHome(e *core.RequestEvent) error {
	s, err := w.wiki(e)
	if s == nil {
		return err
	}
	if s.fresh(e, "home") || w.cachedWiki(e, s) {
		return nil
	}
	docs, tree, err := w.wikiTree(s)
	if err != nil {
		return err
	}
	changed, err := w.Store.ContentChanged(s.world.ID, s.chain)
	if err != nil {
		return err
	}
	docs = slices.Clone(docs) // the tree's order stays
	slices.SortStableFunc(docs, func(a, b store.Document) int {
		return strings.Compare(max(b.Updated, changed[b.ID]), max(a.Updated, changed[a.ID]))
	})
	recent := make([]views.WikiRecent, 0, min(len(docs), maxRecent))
	for _, d := range docs[:min(len(docs), maxRecent)] {
		recent = append(recent, views.WikiRecent{DocItem: views.DocItem{ID: d.ID, Name: d.Name, DocumentType: d.DocumentType,
			ParentID: d.ParentID, Href: s.links().Doc(d.ID)}, Changed: moment(max(d.Updated, changed[d.ID]))})
	}
	return w.renderWiki(e, s, views.WikiHome(s.view(tree, ""), recent))
}

// wikiDocument is one published document: what a viewer of the app sees of it, without its
// secret sections, with links to the wiki's pages.
func (w *Web) wikiDocument(e *core.RequestEvent) error {
	s, err := w.wiki(e)
	if s == nil {
		return err
	}
	d, err := w.Store.Document(s.world.ID, e.Request.PathValue("id"), s.cfg.EraID)
	if err != nil {
		return w.wikiNotFound(e)
	}
	c, err := w.Store.Content(d, s.cfg.EraID)
	if err != nil {
		return err
	}
	// The content's own version too: a write committed after the sequences were read is
	// either in both or only in the version, never only in the sequences.
	if s.fresh(e, "doc", d.ID, d.Name, d.ParentID, d.Updated, c.Version) || w.cachedWiki(e, s) {
		return nil
	}
	_, tree, err := w.wikiTree(s)
	if err != nil {
		return err
	}
	links := s.links()
	b, err := w.documentBodyView(s.world, d, s.cfg.EraID, s.eraName, links)
	if err != nil {
		return err
	}
	b.Published = true
	h := views.WikiPageHead{Title: b.Name}
	switch {
	case b.Timeline != nil:
		h.Scripts = []string{static.URL("js/timeline_axis.js")}
	case b.Map != nil:
		h.Styles = []string{static.URL("vendor/leaflet/leaflet.css")}
		h.Scripts = []string{static.URL("vendor/leaflet/leaflet.js"), static.URL("js/map.js")}
		e.Response.Header().Set("Content-Security-Policy", mapCSP)
	case b.Animator != nil:
		h.Modules = []string{static.URL("vendor/model-viewer/model-viewer.min.js")}
		e.Response.Header().Set("Content-Security-Policy", modelViewerCSP)
	}
	// Backlinks from published documents only: a viewer's, without secret parts.
	backlinks, err := w.backlinksView(d, s.cfg.EraID, false, links.Doc)
	if err != nil {
		return err
	}
	return w.renderWiki(e, s, views.WikiDocument(s.view(tree, d.ID), h, w.crumbs(s.world, d, s.cfg.EraID, links.Doc), b, *backlinks))
}

// wikiSearch finds the wiki's published documents: the world in the wiki's era, as a viewer
// searches it (secret text is not searched, and snippets never show it).
func (w *Web) wikiSearch(e *core.RequestEvent) error {
	s, err := w.wiki(e)
	if s == nil {
		return err
	}
	q := e.Request.URL.Query().Get("q")
	if r := []rune(q); len(r) > search.MaxQuery {
		q = string(r[:search.MaxQuery])
	}
	// Results follow the search index, which catches up with the world a moment after a
	// change: no validator here, or a page read in that moment would be kept.
	if s.cfg.Visibility == store.VisibilityPublic {
		e.Response.Header().Set("Cache-Control", "public, no-cache")
	} else {
		e.Response.Header().Set("Cache-Control", "private, no-cache")
	}
	var hits []views.SearchHit
	state := views.SearchIdle
	if strings.TrimSpace(q) != "" {
		res, err := w.Search.Search(search.Query{WorldID: s.world.ID, EraID: s.cfg.EraID, Text: q, Page: store.Page{Page: 1, PerPage: 20}})
		switch {
		case search.Rebuilding(err):
			state = views.SearchRebuilding
			e.Response.Header().Set("Cache-Control", "no-store")
		case err != nil:
			return err
		default:
			state = views.SearchDone
		}
		// Query.Secrets is off: secret parts are neither matched nor quoted.
		for _, h := range res.Hits {
			hits = append(hits, views.SearchHit{Name: h.Name, DocumentType: h.DocumentType, Href: s.links().Doc(h.ID), Snippet: h.Snippet})
		}
	}
	_, tree, err := w.wikiTree(s)
	if err != nil {
		return err
	}
	return w.renderWiki(e, s, views.WikiSearch(s.view(tree, ""), q, hits, state))
}

// wikiFile serves one of the world's uploaded files (a map's image, a model) to the wiki's
// readers, as the REST API serves it to members.
func (w *Web) wikiFile(e *core.RequestEvent) error {
	s, err := w.wiki(e)
	if s == nil {
		return err
	}
	as, err := w.Store.Asset(s.world.ID, e.Request.PathValue("assetId"))
	if err != nil {
		return w.wikiNotFound(e)
	}
	f, err := w.Store.OpenAsset(as)
	if err != nil {
		return err
	}
	defer f.Close()
	h := e.Response.Header()
	h.Set("Content-Type", as.ContentType)
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	// A file never changes under its id; the wiki's visibility may, so a members wiki's files
	// stay in the reader's own cache.
	if s.cfg.Visibility == store.VisibilityPublic {
		h.Set("Cache-Control", "public, max-age=300")
	} else {
		h.Set("Cache-Control", "private, max-age=86400")
	}
	h.Set("ETag", `"`+as.ID+`"`)
	h.Set("Content-Disposition", "inline; filename=\"asset-"+as.ID+extOf(as.File)+"\"")
	http.ServeContent(e.Response, e.Request, "", f.ModTime(), f)
	return nil
}

// extOf is a stored file name's extension.
func extOf(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 && !strings.ContainsRune(name[i:], '/') {
		return name[i:]
	}
	return ""
}
