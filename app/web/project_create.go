package web

import (
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/views"
)

// createProject creates a project of one of the world's app kinds.
func (w *Web) createProject(e *core.RequestEvent) error {
	pl, err := w.editPlace(e)
	if pl == nil {
		return err
	}
	f := views.ProjectForm{Name: e.Request.PostFormValue("name"), Kind: e.Request.PostFormValue("kind")}
	if _, err := w.Store.CreateProject(pl.world.ID, f.Kind, f.Name); err != nil {
		fe, status, err := refusal(err)
		if fe == nil {
			return err
		}
		f.Err = fe
		return w.renderWorld(e, pl, status, func(ed *views.WorldEdit) { ed.NewProject = f })
	}
	return afterChange(e, pl)
}
