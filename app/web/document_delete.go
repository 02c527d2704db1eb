package web

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/views"
)

// deleteDocumentForm asks to confirm a delete, naming the document and saying what deleting
// means in the era shown (the tree's Delete button without JavaScript; with it, organise.js
// shows the same form in a dialog).
func (w *Web) deleteDocumentForm(e *core.RequestEvent) error {
	pl, d, err := w.editDocument(e)
	if pl == nil {
		return err
	}
	return w.renderAction(e, pl, http.StatusOK, "Delete "+d.Name, documentAction(pl, d, "delete"), views.DeleteForm)
}

// deleteDocument deletes a document: everywhere on the main line, from the era (and those
// branched from it) in an era. A folder must be empty first (folder_not_empty).
func (w *Web) deleteDocument(e *core.RequestEvent) error {
	pl, d, err := w.editDocument(e)
	if pl == nil {
		return err
	}
	if err := w.Store.DeleteDocument(d, pl.eraID, principal(e).Actor()); err != nil {
		fe, status, err := refusal(err)
		if fe == nil {
			return err
		}
		a := documentAction(pl, d, "delete")
		a.Err = fe
		return w.renderAction(e, pl, status, "Delete "+d.Name, a, views.DeleteForm)
	}
	return afterChange(e, pl)
}
