package web

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
	"github.com/loreweave/loreweave/static"
	"github.com/loreweave/loreweave/views"
)

// modelViewerCSP is the page CSP plus what <model-viewer> needs, and nothing more: its shadow
// root carries one fixed stylesheet, allowed by its hash (that of the vendored 4.4.0 build:
// the browser test reports a CSP violation if an upgrade changes it), and three.js compiles
// WebAssembly decoders, which 'wasm-unsafe-eval' allows without allowing JavaScript eval. A
// model's textures, like a map's image, may come from wherever the model does.
var modelViewerCSP = strings.NewReplacer(
	"script-src 'self';", "script-src 'self' 'wasm-unsafe-eval';",
	"style-src 'self';", "style-src 'self' 'sha256-PXtZZkJMMyc18o/DN1ZEFOJ2qEGq95IQbVaJFMOXOb0=';",
	imgSrcSelf, imgSrcAny,
).Replace(contentSecurityPolicy)

// mapCSP is the page CSP of a map, whose image an editor sets by address, from any host.
var mapCSP = strings.Replace(contentSecurityPolicy, imgSrcSelf, imgSrcAny, 1)

// maxCrumbs bounds the folder trail walked above a document.
const maxCrumbs = 32

// documentPage shows one document, read-only, in the era of ?era=. The page renders fully on
// the server; its script (static/js/live.js) then follows the document's event stream and
// swaps in a fresh body (documentBody) after every change.
func (w *Web) documentPage(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	world, eraID, eraName := pl.world, pl.eraID, pl.eraName
	seq, err := w.Store.WorldEventHead(world.ID)
	if err != nil {
		return err
	}
	d, err := w.Store.Document(world.ID, e.Request.PathValue("id"), eraID)
	if err != nil {
		return w.notFound(e)
	}
	editable := store.CanEdit(pl.role)
	v, err := w.documentView(world, d, eraID, eraName, editable)
	if err != nil {
		return err
	}
	if d.DocumentType == "folder" {
		v.WorldStreamURL = "/api/v1/worlds/" + world.ID + "/events"
		v.WorldSeq = seq
	}
	if v.Backlinks, err = w.backlinksView(d, eraID, editable, appLinks(world, eraID).Doc); err != nil {
		return err
	}
	v.Backlinks.URL = backlinksURL(world, d, eraID)
	p := page(e, v.Title())
	p.Theme = world.Theme
	p.Era = eraBanner(pl, mainLineHref(world, d))
	p.Scripts = []string{static.URL("js/live.js"), static.URL("js/doclink_preview.js")}
	if v.Body.Timeline != nil {
		p.Scripts = append(p.Scripts, static.URL("js/timeline_axis.js"))
	}
	if v.Body.Timeline != nil && editable {
		v.TimelineEditor = &views.TimelineEditorView{ContentURL: editURL(world, d, eraID, "content"), CSRF: p.CSRF}
		p.Scripts = append(p.Scripts, static.URL("js/write.js"), static.URL("js/timeline_editor.js"))
	}
	if editable && (v.Body.Card != nil || v.Body.Folder != nil) {
		nonce, err := styleNonce()
		if err != nil {
			return err
		}
		scripts := []string{static.URL("vendor/codemirror/codemirror.js"), static.URL("js/cm_setup.js")}
		if v.Body.Card != nil {
			if v.Editor, err = w.cardEditor(world, d, eraID, p.CSRF, nonce); err != nil {
				return err
			}
			scripts = append(scripts, static.URL("js/ot.js"), static.URL("js/editor.js"))
		} else {
			c, err := w.Store.Content(d, eraID)
			if err != nil {
				return err
			}
			folder, err := ops.Decode("folder", c.Data)
			if err != nil {
				return err
			}
			v.FolderEditor = &views.FolderEditorView{ContentURL: editURL(world, d, eraID, "content"), CSRF: p.CSRF, StyleNonce: nonce,
				Description: folder.(*ops.Folder).Description}
			scripts = append(scripts, static.URL("js/folder_editor.js"))
		}
		if v.LinkEditor, err = w.linkEditor(world, d, eraID, p.CSRF); err != nil {
			return err
		}
		p.Scripts = append(p.Scripts, scripts...)
		// CodeMirror adds its own stylesheet: allowed by this page's nonce.
		e.Response.Header().Set("Content-Security-Policy", strings.Replace(contentSecurityPolicy, "style-src 'self';", "style-src 'self' 'nonce-"+nonce+"';", 1))
	}
	if editable && v.Body.Tool != nil {
		if tt, ok := w.Store.ToolType(world.ID, d.DocumentType); ok {
			nonce, err := styleNonce()
			if err != nil {
				return err
			}
			if v.ToolEditor, err = w.toolEditor(world, d, eraID, p.CSRF, nonce, tt); err != nil {
				return err
			}
			if v.ToolEditor != nil {
				if v.LinkEditor, err = w.linkEditor(world, d, eraID, p.CSRF); err != nil {
					return err
				}
				p.Scripts = append(p.Scripts, static.URL("vendor/codemirror/codemirror.js"), static.URL("js/cm_setup.js"),
					static.URL("js/ot.js"), static.URL("js/tool_editor.js"))
				e.Response.Header().Set("Content-Security-Policy", strings.Replace(contentSecurityPolicy, "style-src 'self';", "style-src 'self' 'nonce-"+nonce+"';", 1))
			}
		}
	}
	switch d.DocumentType {
	case "map":
		p.Styles = []string{static.URL("vendor/leaflet/leaflet.css")}
		p.Scripts = []string{static.URL("vendor/leaflet/leaflet.js"), static.URL("js/map.js"), static.URL("js/live.js")}
		e.Response.Header().Set("Content-Security-Policy", mapCSP)
		if editable {
			if v.MapEditor, err = w.mediaEditor(world, d, eraID, p.CSRF, store.AssetImage); err != nil {
				return err
			}
			// The writer first: map.js turns into the editor when it finds it.
			p.Scripts = slices.Insert(p.Scripts, 1, static.URL("js/write.js"))
		}
	case "animator":
		p.Modules = []string{static.URL("vendor/model-viewer/model-viewer.min.js")}
		e.Response.Header().Set("Content-Security-Policy", modelViewerCSP)
		if editable {
			if v.AnimatorEditor, err = w.mediaEditor(world, d, eraID, p.CSRF, store.AssetModel); err != nil {
				return err
			}
			p.Scripts = append(p.Scripts, static.URL("js/write.js"), static.URL("js/animator_editor.js"))
		}
	}
	return render(e, http.StatusOK, views.DocumentPage(p, v))
}

// editURL is the address of one of a document page's JSON writes (content, cursor) in the era.
func editURL(world store.World, d store.Document, eraID, action string) string {
	return "/w/" + world.Slug + "/d/" + d.ID + "/" + action + eraQuery(eraID)
}

// maxAssetChoices bounds the files an editor's chooser lists.
const maxAssetChoices = 200

// mediaEditor is what the map and animator editors need: the write and upload addresses and
// the world's files of the kind they take.
func (w *Web) mediaEditor(world store.World, d store.Document, eraID, csrf, kind string) (*views.MediaEditorView, error) {
	assets, err := w.Store.AssetsOfKind(world.ID, kind, maxAssetChoices)
	if err != nil {
		return nil, err
	}
	m := &views.MediaEditorView{
		ContentURL:   editURL(world, d, eraID, "content"),
		UploadURL:    "/w/" + world.Slug + "/assets",
		CSRF:         csrf,
		SearchURL:    "/api/v1/worlds/" + world.ID + "/search" + eraQuery(eraID),
		DocumentAPI:  "/api/v1/worlds/" + world.ID + "/documents/{id}" + eraQuery(eraID),
		DocumentPage: "/w/" + world.Slug + "/d/{id}" + eraQuery(eraID),
	}
	for _, a := range assets {
		m.Assets = append(m.Assets, views.AssetOption{URL: store.AssetPath(world.ID, a.ID), Name: a.Name, Width: a.Width, Height: a.Height, Size: a.Size})
	}
	return m, nil
}

// mainLineHref is where a document page's era notice leads back to: the document on the main
// line when it exists there, else the world.
func mainLineHref(world store.World, d store.Document) string {
	if d.EraID == store.MainLine {
		return documentURL(world.Slug, d.ID, store.MainLine)
	}
	return worldURL(world.Slug, store.MainLine)
}

// documentBody is the HTML fragment of a document's breadcrumbs and body, what documentPage
// shows of it; the page's script fetches it when the document, or a folder above it, changes.
// Signed-out callers get 401 (a script cannot follow a redirect to the sign-in page usefully).
func (w *Web) documentBody(e *core.RequestEvent) error {
	u := user(e)
	if u == nil {
		return e.String(http.StatusUnauthorized, "sign in again to follow this document")
	}
	world, role, err := w.world(e, u)
	if err != nil {
		return e.String(http.StatusNotFound, "not found")
	}
	eraID, eraName, _, err := w.eraOf(e, world.ID)
	if err != nil {
		return e.String(http.StatusNotFound, "not found")
	}
	d, err := w.Store.Document(world.ID, e.Request.PathValue("id"), eraID)
	if err != nil {
		return e.String(http.StatusNotFound, "not found")
	}
	v, err := w.documentView(world, d, eraID, eraName, store.CanEdit(role))
	if err != nil {
		return err
	}
	return render(e, http.StatusOK, views.DocumentFragment(v))
}

// documentView is what a document page shows of d in an era, and where it follows it;
// editable shows the editing controls of the read view (a timeline's events) and the
// document's secret parts (marked); without it the page shows the public form.
func (w *Web) documentView(world store.World, d store.Document, eraID, eraName string, editable bool) (views.DocumentView, error) {
	links := appLinks(world, eraID)
	links.Public = !editable
	body, err := w.documentBodyView(world, d, eraID, eraName, links)
	body.Editable = editable
	if err != nil {
		return views.DocumentView{}, err
	}
	return views.DocumentView{
		WorldSlug: world.Slug, WorldName: world.Name, WorldHref: worldURL(world.Slug, eraID),
		Crumbs:      w.crumbs(world, d, eraID, links.Doc),
		Body:        body,
		StreamURL:   "/api/v1/worlds/" + world.ID + "/documents/" + d.ID + "/events" + eraQuery(eraID),
		BodyURL:     "/w/" + world.Slug + "/d/" + d.ID + "/body" + eraQuery(eraID),
		HistoryHref: historyBase(world.Slug, d.ID) + "/history" + eraQuery(eraID),
	}, nil
}

// crumbs returns the folders above d, outermost first; href is a folder's page.
func (w *Web) crumbs(world store.World, d store.Document, eraID string, href func(docID string) string) []views.Crumb {
	var out []views.Crumb
	seen := map[string]bool{d.ID: true}
	for id := d.ParentID; id != "" && !seen[id] && len(out) < maxCrumbs; {
		seen[id] = true
		f, err := w.Store.Document(world.ID, id, eraID)
		if err != nil {
			break
		}
		out = append([]views.Crumb{{Name: f.Name, Href: href(f.ID)}}, out...)
		id = f.ParentID
	}
	return out
}

// docLinks says where a rendered document's links lead and what of it is shown: the app's
// own pages (appLinks) or a wiki's (wikiSite.links). The document views take it, so the app
// and a wiki render documents with the same code.
type docLinks struct {
	// Doc is the page of a document of the same world, by id.
	Doc func(docID string) string
	// Asset is the address a file the content names (a map's image, a model) is shown from;
	// nil shows it as stored.
	Asset func(url string) string
	// Public leaves out what only the world's editors may see (secret sections).
	Public bool
}

// appLinks leads to the app's pages of a world in an era.
func appLinks(world store.World, eraID string) docLinks {
	return docLinks{Doc: func(id string) string { return documentURL(world.Slug, id, eraID) }}
}

func (l docLinks) asset(url string) string {
	if l.Asset == nil || url == "" {
		return url
	}
	return l.Asset(url)
}

// documentBodyView reads a document's content in an era and shapes it for its type, its
// links as l builds them.
func (w *Web) documentBodyView(world store.World, d store.Document, eraID, eraName string, l docLinks) (views.DocumentBody, error) {
	c, err := w.Store.Content(d, eraID)
	if err != nil {
		return views.DocumentBody{}, err
	}
	if l.Public {
		c = c.Public(d)
	}
	b := views.DocumentBody{ID: d.ID, DocumentType: d.DocumentType, Name: d.Name, EraName: eraName,
		Version: c.Version, Source: c.Source, Text: c.Text}
	if !ops.IsBuiltin(d.DocumentType) {
		return w.toolBody(world, d, eraID, b, c, l), nil
	}
	doc, err := ops.Decode(d.DocumentType, c.Data)
	if err != nil {
		if l.Public {
			b.Text = "" // the projection could hold secret parts
		}
		return b, nil // a stored copy that no longer decodes: its text projection
	}
	return w.shapeBody(world, d, eraID, b, doc, l)
}

// shapeBody fills in b, a document's body view, from its content doc, by type; its links
// as l builds them.
func (w *Web) shapeBody(world store.World, d store.Document, eraID string, b views.DocumentBody, doc ops.Document, l docLinks) (views.DocumentBody, error) {
	links := newLinkRenderer(w.Store, world.ID, eraID, l)
	switch x := doc.(type) {
	case *ops.Timeline:
		t := &views.TimelineView{}
		for _, ev := range x.Events {
			when, dt := humanDate(ev.DateMs, ev.Precision)
			t.Events = append(t.Events, views.TimelineEvent{ID: ev.ID, Label: ev.Label, When: when, Datetime: dt, DateMs: ev.DateMs,
				Precision: ev.Precision, Description: ev.Description, DescriptionHTML: links.linksHTML(ev.Description)})
		}
		b.Timeline = t
	case *ops.Card:
		if x.Name != "" {
			b.Name = x.Name
		}
		cv := &views.CardView{Aliases: x.Aliases}
		for _, p := range x.Properties {
			cv.Properties = append(cv.Properties, views.PropertyView{Key: p.Key, Value: p.Value})
		}
		for _, s := range x.Sections {
			cv.Sections = append(cv.Sections, views.SectionView{ID: s.ID, Title: s.Title, HTML: links.markdown(sectionMarkdown, s.Body), Secret: s.Secret})
		}
		b.Card = cv
	case *ops.Map:
		m := &views.MapView{Image: views.MapImage{URL: l.asset(x.Image.URL), Width: x.Image.Width, Height: x.Image.Height}, Pins: []views.PinView{}}
		for _, p := range x.Pins {
			pin := views.PinView{ID: p.ID, X: p.X, Y: p.Y, Label: p.Label, DocumentID: p.DocumentID}
			if p.DocumentID != "" {
				pin.Href = l.Doc(p.DocumentID)
			}
			m.Pins = append(m.Pins, pin)
		}
		b.Map = m
	case *ops.Animator:
		a := &views.AnimatorView{ModelURL: l.asset(x.Model.URL), ModelName: x.Model.Name, ActiveClipID: x.ActiveClipID}
		for _, cl := range x.Clips {
			a.Clips = append(a.Clips, cl.ID)
		}
		b.Animator = a
	case *ops.Folder:
		children, _, err := w.Store.Documents(world.ID, store.DocumentFilter{EraID: eraID, ParentID: &d.ID}, allRows)
		if err != nil {
			return views.DocumentBody{}, err
		}
		b.Folder = &views.FolderView{DescriptionHTML: links.markdown(descriptionMarkdown, x.Description), Children: docTree(children, l.Doc)}
	}
	return b, nil
}

// cardEditor is what the card editor needs: where it writes, and the card it starts from.
func (w *Web) cardEditor(world store.World, d store.Document, eraID, csrf, nonce string) (*views.CardEditorView, error) {
	c, err := w.Store.Content(d, eraID)
	if err != nil {
		return nil, err
	}
	return &views.CardEditorView{
		ContentURL:  editURL(world, d, eraID, "content"),
		CursorURL:   editURL(world, d, eraID, "cursor"),
		DocumentAPI: "/api/v1/worlds/" + world.ID + "/documents/" + d.ID + eraQuery(eraID),
		CSRF:        csrf,
		StyleNonce:  nonce,
		Data:        views.CardEditorData{Version: c.Version, Name: d.Name, Data: json.RawMessage(c.Data)},
	}, nil
}

// styleNonce is a fresh nonce for a page's CSP style-src.
func styleNonce() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("web: nonce: %w", err)
	}
	return base64.RawStdEncoding.EncodeToString(b), nil
}
