package web

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/views"
)

// createEra creates an era branching from the era shown (or the main line) and switches to
// it.
func (w *Web) createEra(e *core.RequestEvent) error {
	pl, err := w.editPlace(e)
	if pl == nil {
		return err
	}
	f := views.EraForm{Name: e.Request.PostFormValue("name")}
	era, err := w.Store.CreateEra(pl.world.ID, f.Name, pl.eraID)
	if err != nil {
		fe, status, err := refusal(err)
		if fe == nil {
			return err
		}
		f.Err = fe
		return w.renderWorld(e, pl, status, func(ed *views.WorldEdit) { ed.NewEra = f })
	}
	return e.Redirect(http.StatusSeeOther, worldURL(pl.world.Slug, era.ID))
}
