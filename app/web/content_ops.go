package web

import (
	"net/http"
	"regexp"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/live"
	"github.com/loreweave/loreweave/app/store"
)

// The browser editor's writes: JSON in and out, the same bodies, answers and error codes as
// the REST API (POST /api/v1/worlds/{w}/documents/{d}/content), on the session cookie with
// the X-CSRF-Token header. A non-member gets 404, a viewer 403; nothing is written then.

// editTarget resolves the signed-in editor, the document of /w/{slug}/d/{id} and its era
// (?era=) for a JSON write.
func (w *Web) editTarget(e *core.RequestEvent) (auth.Principal, store.Document, string, error) {
	u := user(e)
	if u == nil {
		return auth.Principal{}, store.Document{}, "", apierr.New(http.StatusUnauthorized, "unauthenticated", "your session has ended; sign in again (your unsent text stays in the editor)")
	}
	p := auth.PrincipalOfUser(u)
	world, role, err := w.world(e, u)
	if err != nil {
		return p, store.Document{}, "", apierr.NotFound("world")
	}
	if err := auth.Check(p, world, role, auth.EditContent); err != nil {
		return p, store.Document{}, "", err
	}
	eraID := e.Request.URL.Query().Get("era")
	if _, err := w.Store.EraChain(world.ID, eraID); err != nil {
		return p, store.Document{}, "", err
	}
	d, err := w.Store.Document(world.ID, e.Request.PathValue("id"), eraID)
	if err != nil {
		return p, store.Document{}, "", apierr.NotFound("document")
	}
	return p, d, eraID, nil
}

// applyContentOps applies content operations from the browser editor through the one write
// path (store.ApplyOps).
func (w *Web) applyContentOps(e *core.RequestEvent) error {
	p, d, eraID, err := w.editTarget(e)
	if err != nil {
		return w.jsonError(e, err)
	}
	body, err := store.DecodeContentBody(e.Response, e.Request)
	if err != nil {
		return w.jsonError(e, err)
	}
	req, err := body.WriteRequest(d, eraID, p.Actor())
	if err != nil {
		return w.jsonError(e, err)
	}
	res, err := w.Store.ApplyOps(req)
	if err != nil {
		return w.jsonError(e, err)
	}
	e.Response.Header().Set("Cache-Control", "no-store")
	return api.RespondWrite(e, res)
}

var fieldPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{0,64}$`)

// publishCursor relays where an editor's cursor is to the document's other watchers
// (live.Cursor); nothing is stored.
func (w *Web) publishCursor(e *core.RequestEvent) error {
	p, d, eraID, err := w.editTarget(e)
	if err != nil {
		return w.jsonError(e, err)
	}
	var c live.Cursor
	if err := apierr.DecodeJSON(e.Response, e.Request, &c); err != nil {
		return w.jsonError(e, err)
	}
	content, err := w.Store.Content(d, eraID)
	if err != nil {
		return w.jsonError(e, err)
	}
	switch {
	case !fieldPattern.MatchString(c.ClientID) || c.ClientID == "":
		err = apierr.Field("clientId", "\"clientId\" must be 1 to 64 letters, digits, '-' or '_'")
	case !fieldPattern.MatchString(c.Field):
		err = apierr.Field("field", "\"field\" must be a section id or empty")
	case c.Anchor < 0 || c.Head < 0:
		err = apierr.Field("anchor", "\"anchor\" and \"head\" must not be negative")
	case c.Version < 0 || c.Version > content.Version:
		err = apierr.Field("version", "\"version\" must be a version the document has had (it is at %d)", content.Version)
	}
	if err != nil {
		return w.jsonError(e, err)
	}
	w.Live.PublishCursor(p, d, eraID, content.Version, c)
	return e.NoContent(http.StatusNoContent)
}

// jsonError writes err in the API's one error shape.
func (w *Web) jsonError(e *core.RequestEvent, err error) error {
	apierr.Write(e.Response, e.Request, e.App.Logger(), err)
	return nil
}
