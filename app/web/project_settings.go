package web

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/views"
)

// wikiURL is a wiki's home page.
func wikiURL(slug string) string { return "/wiki/" + url.PathEscape(slug) + "/" }

// projectSettingsURL is a project's settings page.
func projectSettingsURL(worldSlug, id string) string {
	return "/w/" + url.PathEscape(worldSlug) + "/projects/" + url.PathEscape(id)
}

// editProject resolves /w/{slug}/projects/{id} for an editor, like editDocument.
func (w *Web) editProject(e *core.RequestEvent) (*place, store.Project, error) {
	pl, err := w.editPlace(e)
	if pl == nil {
		return nil, store.Project{}, err
	}
	p, err := w.Store.Project(pl.world.ID, e.Request.PathValue("id"))
	if err != nil {
		return nil, store.Project{}, w.notFound(e)
	}
	return pl, p, nil
}

// projectSettings shows a project's settings: its name, and a wiki's era and visibility.
func (w *Web) projectSettings(e *core.RequestEvent) error {
	pl, p, err := w.editProject(e)
	if pl == nil {
		return err
	}
	return w.renderProjectSettings(e, pl, p, http.StatusOK, func(v *views.ProjectSettings) {
		v.Saved = e.Request.URL.Query().Get("saved") == "1"
	})
}

func (w *Web) renderProjectSettings(e *core.RequestEvent, pl *place, p store.Project, status int, set func(*views.ProjectSettings)) error {
	settingsURL := projectSettingsURL(pl.world.Slug, p.ID)
	v := views.ProjectSettings{WorldName: pl.world.Name, WorldHref: worldURL(pl.world.Slug, store.MainLine),
		ID: p.ID, Kind: p.Kind, Name: p.Name, Action: settingsURL, DeleteAction: settingsURL + "/delete"}
	if p.Kind == store.KindWiki {
		cfg := p.Wiki()
		v.WikiURL, v.Visibility, v.EraID = wikiURL(p.Slug), cfg.Visibility, cfg.EraID
		eras, _, err := w.Store.Eras(pl.world.ID, allRows)
		if err != nil {
			return err
		}
		for _, x := range eras {
			v.Eras = append(v.Eras, views.EraOption{ID: x.ID, Name: x.Name})
		}
	}
	if set != nil {
		set(&v)
	}
	pg := page(e, "Settings of "+p.Name+" · "+pl.world.Name)
	pg.Theme = pl.world.Theme
	return render(e, status, views.ProjectSettingsPage(pg, v))
}

// saveProject saves a project's settings through the same store call as the REST API's
// PATCH; a refusal shows next to its control.
func (w *Web) saveProject(e *core.RequestEvent) error {
	pl, p, err := w.editProject(e)
	if pl == nil {
		return err
	}
	if err := e.Request.ParseForm(); err != nil {
		return w.errorPage(e, http.StatusBadRequest, "Bad form", "This form could not be read. Go back, reload the page and try again.")
	}
	f := e.Request.PostForm
	name := f.Get("name")
	change := store.ProjectChange{Name: &name}
	if p.Kind == store.KindWiki {
		cfg, _ := json.Marshal(map[string]string{"visibility": f.Get("visibility"), "eraId": f.Get("eraId")}) // strings only
		change.Config = cfg
	}
	if _, err := w.Store.UpdateProject(p, change); err != nil {
		field, _ := apierr.From(err).Details["field"].(string)
		fe, status, err := refusal(err)
		if fe == nil {
			return err
		}
		return w.renderProjectSettings(e, pl, p, status, func(v *views.ProjectSettings) {
			v.Name, v.Err, v.Field = name, fe, field
			if p.Kind == store.KindWiki {
				v.Visibility, v.EraID = f.Get("visibility"), f.Get("eraId")
			}
		})
	}
	return e.Redirect(http.StatusSeeOther, projectSettingsURL(pl.world.Slug, p.ID)+"?saved=1")
}

// deleteProject deletes a project and goes back to the world page.
func (w *Web) deleteProject(e *core.RequestEvent) error {
	pl, p, err := w.editProject(e)
	if pl == nil {
		return err
	}
	if err := w.Store.DeleteProject(p); err != nil {
		return err
	}
	return e.Redirect(http.StatusSeeOther, worldURL(pl.world.Slug, store.MainLine))
}
