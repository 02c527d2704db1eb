package web

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/views"
)

// createDocument creates a document from the world page's form, in the era shown, at the top
// level or in a folder (parentId), and opens its page to write in. A refusal shows the world
// page again with the message next to the form.
func (w *Web) createDocument(e *core.RequestEvent) error {
	pl, err := w.editPlace(e)
	if pl == nil {
		return err
	}
	f := views.NewDocumentForm{Name: e.Request.PostFormValue("name"), DocumentType: e.Request.PostFormValue("documentType"),
		ParentID: e.Request.PostFormValue("parentId")}
	d, err := w.Store.CreateDocument(pl.world.ID, pl.eraID, f.Name, f.DocumentType, f.ParentID, principal(e).Actor())
	if err != nil {
		fe, status, err := refusal(err)
		if fe == nil {
			return err
		}
		f.Err = fe
		return w.renderWorld(e, pl, status, func(ed *views.WorldEdit) { ed.NewDocument = f })
	}
	return e.Redirect(http.StatusSeeOther, documentURL(pl.world.Slug, d.ID, pl.eraID))
}
