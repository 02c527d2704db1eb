package web

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/views"
)

// moveDocumentForm is the move form's page: the folders the document may go to (the tree's
// Move button without JavaScript; with it, organise.js shows the same form in a dialog).
func (w *Web) moveDocumentForm(e *core.RequestEvent) error {
	pl, d, err := w.editDocument(e)
	if pl == nil {
		return err
	}
	return w.renderMove(e, pl, d, http.StatusOK, nil)
}

// moveDocument files a document in the folder parentId ("" = the top level). Dropping a
// document on a folder in the tree posts here too.
func (w *Web) moveDocument(e *core.RequestEvent) error {
	pl, d, err := w.editDocument(e)
	if pl == nil {
		return err
	}
	parent := e.Request.PostFormValue("parentId")
	if _, err := w.Store.UpdateDocument(d, pl.eraID, store.MetaChange{ParentID: &parent}, principal(e).Actor()); err != nil {
		fe, status, err := refusal(err)
		if fe == nil {
			return err
		}
		return w.renderMove(e, pl, d, status, fe)
	}
	return afterChange(e, pl)
}

func (w *Web) renderMove(e *core.RequestEvent, pl *place, d store.Document, status int, fe *views.FormError) error {
	docs, _, err := w.Store.Documents(pl.world.ID, store.DocumentFilter{EraID: pl.eraID}, allRows)
	if err != nil {
		return err
	}
	a := documentAction(pl, d, "move")
	a.Err = fe
	a.Folders = folderChoices(docTree(docs, appLinks(pl.world, pl.eraID).Doc), d)
	return w.renderAction(e, pl, status, "Move "+d.Name, a, views.MoveForm)
}

// folderChoices are the folders of a tree that d may move into: all but d itself and the
// folders inside it.
func folderChoices(nodes []views.DocNode, d store.Document) []views.FolderChoice {
	var out []views.FolderChoice
	for _, n := range nodes {
		if n.DocumentType != "folder" || n.ID == d.ID {
			continue
		}
		out = append(out, views.FolderChoice{ID: n.ID, Name: n.Name, Current: n.ID == d.ParentID, Children: folderChoices(n.Children, d)})
	}
	return out
}
