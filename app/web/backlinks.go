package web

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/views"
)

// maxBacklinksShown is how many linking documents a page lists; it counts the rest.
const maxBacklinksShown = 50

// backlinksView is a document's "Linked from" in an era: the documents that link to it, each
// leading where href says, with the sentence around its link. Links that only secret parts
// hold are listed for the world's editors only (secrets).
func (w *Web) backlinksView(d store.Document, eraID string, secrets bool, href func(string) string) (*views.BacklinksView, error) {
	items, total, err := w.Store.Backlinks(d, eraID, secrets, store.Page{Page: 1, PerPage: maxBacklinksShown})
	if err != nil {
		return nil, err
	}
	v := &views.BacklinksView{Total: total}
	for _, b := range items {
		v.Items = append(v.Items, views.BacklinkItem{Name: b.Source.Name, Href: href(b.Source.ID), DocumentType: b.Source.DocumentType,
			Context: w.Store.LinkContext(d.WorldID, eraID, b.Context)})
	}
	return v, nil
}

// documentBacklinks is the HTML fragment of a document's "Linked from", which the page's
// script fetches again when a write links or unlinks the document.
func (w *Web) documentBacklinks(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	d, err := w.Store.Document(pl.world.ID, e.Request.PathValue("id"), pl.eraID)
	if err != nil {
		return w.notFound(e)
	}
	v, err := w.backlinksView(d, pl.eraID, store.CanEdit(pl.role), appLinks(pl.world, pl.eraID).Doc)
	if err != nil {
		return err
	}
	v.URL = backlinksURL(pl.world, d, pl.eraID)
	return render(e, http.StatusOK, views.Backlinks(*v))
}

func backlinksURL(world store.World, d store.Document, eraID string) string {
	return "/w/" + world.Slug + "/d/" + d.ID + "/backlinks" + eraQuery(eraID)
}
