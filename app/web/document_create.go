package web

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/views"
)

// createDocument creates a document from the world page's form, in the era shown, at the top
// level or in a folder (parentId), and opens its page to write in. A refusal shows the world
// page again with the message next to the form. From a page's script (JSON, with the
// X-CSRF-Token header: the editors' link picker) it answers JSON instead (createDocumentJSON).
func (w *Web) createDocument(e *core.RequestEvent) error {
	if isJSON(e.Request) {
		return w.createDocumentJSON(e)
	}
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

// newDocumentJSON is the body of a document created from a page's script.
type newDocumentJSON struct {
	Name         string `json:"name"`
	DocumentType string `json:"documentType"`
	ParentID     string `json:"parentId"`
}

// createdDocumentJSON answers it: the new document and its page.
type createdDocumentJSON struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	DocumentType string `json:"documentType"`
	Href         string `json:"href"`
}

// createDocumentJSON creates a document for a page's script: 201 with the document, or the
// API's error shape (401 signed out, 404 not a member, 403 not an editor, 422 refused).
func (w *Web) createDocumentJSON(e *core.RequestEvent) error {
	p, world, err := w.scriptEditor(e)
	if err != nil {
		return w.jsonError(e, err)
	}
	eraID := e.Request.URL.Query().Get("era")
	if _, err := w.Store.EraChain(world.ID, eraID); err != nil {
		return w.jsonError(e, err)
	}
	var body newDocumentJSON
	if err := apierr.DecodeJSON(e.Response, e.Request, &body); err != nil {
		return w.jsonError(e, err)
	}
	d, err := w.Store.CreateDocument(world.ID, eraID, body.Name, body.DocumentType, body.ParentID, p.Actor())
	if err != nil {
		return w.jsonError(e, err)
	}
	e.Response.Header().Set("Cache-Control", "no-store")
	return e.JSON(http.StatusCreated, createdDocumentJSON{ID: d.ID, Name: d.Name, DocumentType: d.DocumentType,
		Href: documentURL(world.Slug, d.ID, eraID)})
}
