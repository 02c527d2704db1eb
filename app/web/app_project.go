package web

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
	"github.com/loreweave/loreweave/views"
)

// appProjectURL is the page of a project of a tool's app kind.
func appProjectURL(worldSlug, id string) string {
	return "/w/" + url.PathEscape(worldSlug) + "/p/" + url.PathEscape(id)
}

// appProject shows a project of a tool's app kind (docs/TOOLS.md, "App kinds") to the
// world's members: its view of the world's documents of one type, on the main line, as a
// table ("list") or as columns by the values of an enum field ("board"), each document
// linking to its page.
func (w *Web) appProject(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	world := pl.world
	p, err := w.Store.Project(world.ID, e.Request.PathValue("id"))
	if err != nil || p.Kind == store.KindWiki {
		return w.notFound(e)
	}
	v := views.AppProjectView{WorldName: world.Name, WorldHref: worldURL(world.Slug, pl.eraID), Name: p.Name, Kind: p.Kind, Title: p.Kind}
	if store.CanEdit(pl.role) {
		v.SettingsHref = projectSettingsURL(world.Slug, p.ID)
	}
	kind, tt, ok := w.Store.AppKind(world.ID, p.Kind)
	if !ok || tt == nil {
		v.Missing = true
	} else if err := w.fillAppView(&v, world, pl.eraID, kind, tt); err != nil {
		return err
	}
	pg := page(e, p.Name+" · "+world.Name)
	pg.Theme = world.Theme
	return render(e, http.StatusOK, views.AppProjectPage(pg, v))
}

// fillAppView reads the documents an app kind shows and writes out their fields.
func (w *Web) fillAppView(v *views.AppProjectView, world store.World, eraID string, kind ops.AppKind, tt *ops.ToolType) error {
	v.Title = cmp.Or(kind.Title, kind.Name)
	v.Description = kind.Description
	v.ViewType = kind.View.Type
	v.TypeTitle = cmp.Or(tt.Title, tt.Name)
	form := tt.Form()
	field := func(key string) ops.FormField {
		for _, f := range form {
			if f.Key == key {
				return f
			}
		}
		return ops.FormField{Key: key, Label: key, Kind: "string"}
	}
	for _, key := range kind.View.Fields {
		v.Columns = append(v.Columns, cmp.Or(field(key).Label, key))
	}
	docs, _, err := w.Store.Documents(world.ID, store.DocumentFilter{EraID: eraID, DocumentType: tt.Name}, allRows)
	if err != nil {
		return err
	}
	slices.SortFunc(docs, func(a, b store.Document) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.ID, b.ID))
	})
	links := newLinkRenderer(w.Store, world.ID, eraID, appLinks(world, eraID))
	var group ops.FormField
	if v.ViewType == "board" {
		group = field(kind.View.GroupBy)
		for _, value := range group.Enum {
			v.Groups = append(v.Groups, views.AppGroup{Value: value})
		}
	}
	for _, d := range docs {
		c, err := w.Store.Content(d, eraID)
		if err != nil {
			return err
		}
		var data map[string]any
		if doc, err := tt.Decode(c.Data); err == nil {
			data = ops.ToolData(doc)
		}
		row := views.AppRow{ID: d.ID, Name: d.Name, Href: documentURL(world.Slug, d.ID, eraID)}
		for _, key := range kind.View.Fields {
			row.Cells = append(row.Cells, toolField(field(key), data[key], links))
		}
		if v.ViewType != "board" {
			v.Rows = append(v.Rows, row)
			continue
		}
		value := scalarText(data[group.Key])
		i := slices.IndexFunc(v.Groups, func(g views.AppGroup) bool { return g.Value == value })
		if i < 0 { // a value the enum no longer has: a column of its own, at the end
			v.Groups = append(v.Groups, views.AppGroup{Value: value})
			i = len(v.Groups) - 1
		}
		v.Groups[i].Rows = append(v.Groups[i].Rows, row)
	}
	return nil
}
