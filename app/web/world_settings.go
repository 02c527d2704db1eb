package web

import (
	"errors"
	"math"
	"net/http"
	"net/url"
	"time"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/views"
)

// worldSettingsURL is a world's settings page.
func worldSettingsURL(slug string) string { return "/w/" + url.PathEscape(slug) + "/settings" }

// managePlace resolves /w/{slug}/… pages for managing a world (settings, webhooks) for its
// owner or an admin; other members get a 403 page saying why, everyone else the shared 404.
func (w *Web) managePlace(e *core.RequestEvent) (*place, error) {
	pl, err := w.place(e)
	if pl == nil {
		return nil, err
	}
	if err := auth.Check(principal(e), pl.world, pl.role, auth.Manage); err != nil {
		return nil, w.errorPage(e, http.StatusForbidden, "Not allowed", "Your role in this world is "+pl.role+"; this page is for its owner and admins.")
	}
	return pl, nil
}

// worldSettings shows a world's settings page.
func (w *Web) worldSettings(e *core.RequestEvent) error {
	pl, err := w.managePlace(e)
	if pl == nil {
		return err
	}
	return w.renderWorldSettings(e, pl, http.StatusOK, func(v *views.WorldSettings) {
		switch e.Request.URL.Query().Get("done") {
		case "saved":
			v.Notice = "Settings saved."
		case "era-renamed":
			v.Notice = "Era renamed."
		case "era-deleted":
			v.Notice = "Era deleted."
		}
	})
}

func (w *Web) renderWorldSettings(e *core.RequestEvent, pl *place, status int, set func(*views.WorldSettings)) error {
	base := worldSettingsURL(pl.world.Slug)
	slug := "/w/" + url.PathEscape(pl.world.Slug)
	v := views.WorldSettings{WorldName: pl.world.Name, WorldHref: worldURL(pl.world.Slug, store.MainLine),
		Name: pl.world.Name, Genre: pl.world.Genre, IsOwner: pl.role == "owner",
		Action: base, DeleteAction: base + "/delete",
		MembersHref: slug + "/members", WebhooksHref: slug + "/webhooks", ExportHref: slug + "/export"}
	eras, _, err := w.Store.Eras(pl.world.ID, allRows)
	if err != nil {
		return err
	}
	names, children := map[string]string{}, map[string]int{}
	for _, x := range eras {
		names[x.ID] = x.Name
		children[x.ParentID]++
	}
	for _, x := range eras {
		v.Eras = append(v.Eras, views.EraSetting{ID: x.ID, Name: x.Name, Parent: names[x.ParentID], Children: children[x.ID],
			RenameAction: base + "/eras/" + url.PathEscape(x.ID), DeleteAction: base + "/eras/" + url.PathEscape(x.ID) + "/delete"})
	}
	if set != nil {
		set(&v)
	}
	pg := page(e, "Settings · "+pl.world.Name)
	pg.Theme = pl.world.Theme
	return render(e, status, views.WorldSettingsPage(pg, v))
}

// formValues reads a POSTed form, or writes the bad form page.
func (w *Web) formValues(e *core.RequestEvent) (url.Values, error) {
	if err := e.Request.ParseForm(); err != nil {
		return nil, w.errorPage(e, http.StatusBadRequest, "Bad form", "This form could not be read. Go back, reload the page and try again.")
	}
	return e.Request.PostForm, nil
}

// saveWorldSettings renames the world and sets its genre through the same store call as the
// REST API's PATCH; a refusal shows next to its control.
func (w *Web) saveWorldSettings(e *core.RequestEvent) error {
	pl, err := w.managePlace(e)
	if pl == nil {
		return err
	}
	f, err := w.formValues(e)
	if f == nil {
		return err
	}
	name, genre := f.Get("name"), f.Get("genre")
	if _, err := w.Store.UpdateWorld(pl.world, store.WorldChange{Name: &name, Genre: &genre}); err != nil {
		field, _ := apierr.From(err).Details["field"].(string)
		fe, status, err := refusal(err)
		if fe == nil {
			return err
		}
		return w.renderWorldSettings(e, pl, status, func(v *views.WorldSettings) {
			v.Name, v.Genre, v.Err, v.Field = name, genre, fe, field
		})
	}
	return e.Redirect(http.StatusSeeOther, worldSettingsURL(pl.world.Slug)+"?done=saved")
}

// settingsEra resolves the {id} era of a settings form.
func (w *Web) settingsEra(e *core.RequestEvent) (*place, store.Era, error) {
	pl, err := w.managePlace(e)
	if pl == nil {
		return nil, store.Era{}, err
	}
	era, err := w.Store.Era(pl.world.ID, e.Request.PathValue("id"))
	if err != nil {
		return nil, store.Era{}, w.notFound(e)
	}
	return pl, era, nil
}

// eraRefused shows the settings page again with a refused rename or delete next to its era.
func (w *Web) eraRefused(e *core.RequestEvent, pl *place, eraID string, err error, typed *string) error {
	fe, status, err := refusal(err)
	if fe == nil {
		return err
	}
	return w.renderWorldSettings(e, pl, status, func(v *views.WorldSettings) {
		for i := range v.Eras {
			if v.Eras[i].ID == eraID {
				v.Eras[i].Err = fe
				if typed != nil {
					v.Eras[i].Name = *typed
				}
			}
		}
	})
}

// renameEra renames an era from the settings page.
func (w *Web) renameEra(e *core.RequestEvent) error {
	pl, era, err := w.settingsEra(e)
	if pl == nil {
		return err
	}
	f, err := w.formValues(e)
	if f == nil {
		return err
	}
	name := f.Get("name")
	if _, err := w.Store.RenameEra(era, name); err != nil {
		return w.eraRefused(e, pl, era.ID, err, &name)
	}
	return e.Redirect(http.StatusSeeOther, worldSettingsURL(pl.world.Slug)+"?done=era-renamed")
}

// deleteEra deletes an era from the settings page; one with child eras is refused next to it.
func (w *Web) deleteEra(e *core.RequestEvent) error {
	pl, era, err := w.settingsEra(e)
	if pl == nil {
		return err
	}
	if err := w.Store.DeleteEra(era); err != nil {
		return w.eraRefused(e, pl, era.ID, err, nil)
	}
	return e.Redirect(http.StatusSeeOther, worldSettingsURL(pl.world.Slug)+"?done=era-deleted")
}

// deleteWorld moves the world to the trash (its owner only) and goes to the worlds page,
// where the trash lists it.
func (w *Web) deleteWorld(e *core.RequestEvent) error {
	pl, err := w.managePlace(e)
	if pl == nil {
		return err
	}
	if pl.role != "owner" {
		return w.errorPage(e, http.StatusForbidden, "Not allowed", "Only the owner of this world can delete it.")
	}
	if err := w.Store.TrashWorld(pl.world.ID); err != nil {
		return err
	}
	return e.Redirect(http.StatusSeeOther, "/?done=trashed")
}

// restoreWorld takes a world out of the signed-in user's trash and opens it.
func (w *Web) restoreWorld(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	world, err := w.Store.RestoreWorld(u.Id, e.Request.PathValue("id"))
	if errors.Is(err, apierr.ErrNotFound) || apierr.From(err).Status == http.StatusNotFound {
		return w.notFound(e)
	} else if err != nil {
		return err
	}
	return e.Redirect(http.StatusSeeOther, worldURL(world.Slug, store.MainLine))
}

// trashItems lists userID's trash for the worlds page.
func (w *Web) trashItems(userID string) ([]views.TrashItem, error) {
	trash, err := w.Store.TrashedWorlds(userID)
	if err != nil {
		return nil, err
	}
	items := make([]views.TrashItem, len(trash))
	for i, t := range trash {
		left := int(math.Ceil(time.Until(t.PurgeAt).Hours() / 24))
		items[i] = views.TrashItem{ID: t.ID, Name: t.Name, Genre: t.Genre, Deleted: t.DeletedAt().Format("2 January 2006"),
			DaysLeft: max(left, 0), RestoreAction: "/trash/" + url.PathEscape(t.ID) + "/restore"}
	}
	return items, nil
}
