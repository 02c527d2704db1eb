package web

import (
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/views"
)

// The world page's organising routes (document_create.go, document_rename.go,
// document_move.go, document_delete.go, era_create.go, project_create.go) change a world
// through the same store calls as the REST API, so its rules, error codes and live events are
// the API's. Each is a plain form posting to the server, which answers with a redirect
// (303) on success and the form again, with the refusal next to the control, otherwise.

// editPlace resolves /w/{slug}[?era=] for a member who may change the world, with the REST
// API's own role check. When it returns a nil place the response is already written: a
// redirect to sign in, the shared 404, or 403 for a viewer.
func (w *Web) editPlace(e *core.RequestEvent) (*place, error) {
	pl, err := w.place(e)
	if pl == nil {
		return nil, err
	}
	if err := auth.Check(principal(e), pl.world, pl.role, auth.Edit); err != nil {
		return nil, w.errorPage(e, http.StatusForbidden, "Not allowed", sentence(apierr.From(err).Message))
	}
	return pl, nil
}

// principal is the signed-in user as the store records the changes they make.
func principal(e *core.RequestEvent) auth.Principal {
	return auth.PrincipalOfUser(user(e))
}

// editDocument resolves /w/{slug}/d/{id}[?era=] for an editor, like editPlace; a document
// not visible in the era gets the shared 404.
func (w *Web) editDocument(e *core.RequestEvent) (*place, store.Document, error) {
	pl, err := w.editPlace(e)
	if pl == nil {
		return nil, store.Document{}, err
	}
	d, err := w.Store.Document(pl.world.ID, e.Request.PathValue("id"), pl.eraID)
	if err != nil {
		return nil, store.Document{}, w.notFound(e)
	}
	return pl, d, nil
}

// refusal turns a store error into what a form shows next to its control, and the status to
// answer with: the REST API's code and message for the same refusal. Errors that are not the
// caller's to fix come back as err, for the server's error page.
func refusal(err error) (*views.FormError, int, error) {
	ae := apierr.From(err)
	if ae.Status >= http.StatusInternalServerError {
		return nil, 0, err
	}
	return &views.FormError{Code: ae.Code, Message: sentence(ae.Message)}, ae.Status, nil
}

// sentence starts a message with a capital letter and ends it with a full stop, as the page
// shows it; the API's messages are clauses ("the folder still holds …").
func sentence(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// worldEdit is an editor's part of the world page in the era of pl.
func (w *Web) worldEdit(pl *place, tree []views.DocNode) (*views.WorldEdit, error) {
	types, err := w.Store.DocumentTypes(pl.world.ID)
	if err != nil {
		return nil, err
	}
	kinds, err := w.Store.AppKinds(pl.world.ID)
	if err != nil {
		return nil, err
	}
	base := "/w/" + url.PathEscape(pl.world.Slug)
	ed := &views.WorldEdit{DocumentTypes: types, AppKinds: kinds, EraBase: "the main line",
		WorldHref: worldURL(pl.world.Slug, pl.eraID), DocBase: base + "/d/", EraQuery: eraQuery(pl.eraID),
		NewDocumentURL: base + "/documents" + eraQuery(pl.eraID),
		NewEraURL:      base + "/eras" + eraQuery(pl.eraID),
		NewProjectURL:  base + "/projects" + eraQuery(pl.eraID),
		NewDocument:    views.NewDocumentForm{DocumentType: "card"},
	}
	if pl.eraID != store.MainLine {
		ed.EraBase = "“" + pl.eraName + "”"
	}
	if len(kinds) > 0 {
		ed.NewProject.Kind = kinds[0]
	}
	var walk func(nodes []views.DocNode, path string)
	walk = func(nodes []views.DocNode, path string) {
		for _, n := range nodes {
			if n.DocumentType == "folder" {
				ed.Folders = append(ed.Folders, views.FolderOption{ID: n.ID, Path: path + n.Name})
				walk(n.Children, path+n.Name+" › ")
			}
		}
	}
	walk(tree, "")
	return ed, nil
}

// eraBanner is the layout's era notice for a page of pl, or nil on the main line; mainHref is
// the same page on the main line.
func eraBanner(pl *place, mainHref string) *views.EraBanner {
	if pl.eraID == store.MainLine {
		return nil
	}
	return &views.EraBanner{Name: pl.eraName, MainHref: mainHref, Editing: store.CanEdit(pl.role)}
}

// documentAction is the state of a document's action form, before its action's own fields.
func documentAction(pl *place, d store.Document, action string) views.DocumentAction {
	return views.DocumentAction{
		Doc: views.DocItem{ID: d.ID, Name: d.Name, DocumentType: d.DocumentType, ParentID: d.ParentID,
			Href: documentURL(pl.world.Slug, d.ID, pl.eraID)},
		WorldName: pl.world.Name, WorldHref: worldURL(pl.world.Slug, pl.eraID), EraName: pl.eraName,
		Action: "/w/" + url.PathEscape(pl.world.Slug) + "/d/" + url.PathEscape(d.ID) + "/" + action + eraQuery(pl.eraID),
	}
}

// renderAction writes a document action's page around its form.
func (w *Web) renderAction(e *core.RequestEvent, pl *place, status int, title string, a views.DocumentAction,
	form func(csrf string, a views.DocumentAction) templ.Component) error {
	p := page(e, title+" · "+pl.world.Name)
	p.Theme = pl.world.Theme
	p.Era = eraBanner(pl, worldURL(pl.world.Slug, store.MainLine))
	return render(e, status, views.DocumentActionPage(p, a, form(p.CSRF, a)))
}

// afterChange answers a change made from the world page: back to the world page in the era
// shown. Scripts that posted the form read the fresh tree from the page it leads to.
func afterChange(e *core.RequestEvent, pl *place) error {
	return e.Redirect(http.StatusSeeOther, worldURL(pl.world.Slug, pl.eraID))
}
