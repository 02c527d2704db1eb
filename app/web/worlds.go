package web

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/views"
)

func (w *Web) home(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	return w.renderWorlds(e, u, http.StatusOK, views.WorldsForm{})
}

func (w *Web) renderWorlds(e *core.RequestEvent, u *core.Record, status int, f views.WorldsForm) error {
	ws, _, err := w.Store.WorldsOf(u.Id, store.Page{Page: 1, PerPage: 1000})
	if err != nil {
		return err
	}
	items := make([]views.WorldItem, len(ws))
	for i, x := range ws {
		items[i] = views.WorldItem{Slug: x.Slug, Name: x.Name, Genre: x.Genre, Plan: x.Plan, Role: x.Role}
	}
	return render(e, status, views.WorldsPage(page(e, "Your worlds"), items, f))
}

func (w *Web) createWorld(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	f := views.WorldsForm{Name: e.Request.PostFormValue("name"), Genre: e.Request.PostFormValue("genre")}
	name, err := store.CleanName("name", f.Name)
	genre := ""
	if err == nil {
		genre, err = store.CleanOptional("genre", f.Genre)
	}
	if err != nil {
		f.Error = apierr.From(err).Message
		return w.renderWorlds(e, u, http.StatusUnprocessableEntity, f)
	}
	world, err := w.Store.CreateWorld(u.Id, name, genre, w.Config.DefaultPlan)
	if err != nil {
		return err
	}
	return e.Redirect(http.StatusSeeOther, "/w/"+world.Slug)
}

// world resolves /w/{slug} for the signed-in user; non-members get the same 404 as a
// world that does not exist.
func (w *Web) world(e *core.RequestEvent, u *core.Record) (store.World, string, error) {
	world, err := w.Store.WorldBySlug(e.Request.PathValue("slug"))
	if err != nil {
		return store.World{}, "", apierr.ErrNotFound
	}
	role, err := w.Store.Role(world.ID, u.Id)
	if err != nil {
		return store.World{}, "", err
	}
	if role == "" {
		return store.World{}, "", apierr.ErrNotFound
	}
	return world, role, nil
}

func (w *Web) worldPage(e *core.RequestEvent) error {
	u, err := requireUser(e)
	if u == nil {
		return err
	}
	world, role, err := w.world(e, u)
	if err != nil {
		return w.errorPage(e, http.StatusNotFound, "Not found", "There is no such world, or you are not a member of it.")
	}
	all := store.Page{Page: 1, PerPage: 10000}
	docs, _, err := w.Store.Documents(world.ID, store.DocumentFilter{}, all)
	if err != nil {
		return err
	}
	eras, _, err := w.Store.Eras(world.ID, all)
	if err != nil {
		return err
	}
	projects, _, err := w.Store.Projects(world.ID, all)
	if err != nil {
		return err
	}
	v := views.WorldView{ID: world.ID, Slug: world.Slug, Name: world.Name, Genre: world.Genre, Role: role, Plan: world.Plan}
	for _, d := range docs {
		v.Documents = append(v.Documents, views.DocItem{ID: d.ID, Name: d.Name, DocumentType: d.DocumentType, ParentID: d.ParentID})
	}
	for _, x := range eras {
		v.Eras = append(v.Eras, views.EraItem{ID: x.ID, Name: x.Name})
	}
	for _, x := range projects {
		v.Projects = append(v.Projects, views.ProjectItem{ID: x.ID, Kind: x.Kind, Name: x.Name})
	}
	p := page(e, world.Name)
	p.Theme = world.Theme
	return render(e, http.StatusOK, views.WorldPage(p, v))
}
