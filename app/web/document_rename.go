package web

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/views"
)

// renameDocumentForm is the rename form's page (the tree's Rename button without JavaScript;
// with it, organise.js shows the same form in the tree).
func (w *Web) renameDocumentForm(e *core.RequestEvent) error {
	pl, d, err := w.editDocument(e)
	if pl == nil {
		return err
	}
	a := documentAction(pl, d, "rename")
	a.Name = d.Name
	return w.renderAction(e, pl, http.StatusOK, "Rename "+d.Name, a, views.RenameForm)
}

// renameDocument renames a document (its name is the same in every era).
func (w *Web) renameDocument(e *core.RequestEvent) error {
	pl, d, err := w.editDocument(e)
	if pl == nil {
		return err
	}
	name := e.Request.PostFormValue("name")
	if _, err := w.Store.UpdateDocument(d, pl.eraID, store.MetaChange{Name: &name}, principal(e).Actor()); err != nil {
		fe, status, err := refusal(err)
		if fe == nil {
			return err
		}
		a := documentAction(pl, d, "rename")
		a.Name, a.Err = name, fe
		return w.renderAction(e, pl, status, "Rename "+d.Name, a, views.RenameForm)
	}
	return afterChange(e, pl)
}
