package web

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// uploadAsset takes a file from the map and animator editors (multipart, field "file", with
// the X-CSRF-Token header) through the same checks as the REST API's upload, and answers the
// same JSON. A non-member gets 404, a viewer 403; nothing is stored then.
func (w *Web) uploadAsset(e *core.RequestEvent) error {
	p, world, err := w.scriptEditor(e)
	if err != nil {
		return w.jsonError(e, err)
	}
	n, err := store.ReadUpload(e.Response, e.Request, store.UploadLimits{Image: w.Config.MaxImageBytes, Model: w.Config.MaxModelBytes})
	if err != nil {
		return w.jsonError(e, err)
	}
	n.WorldID, n.UploaderID = world.ID, p.UserID
	asset, err := w.Store.CreateAsset(n)
	if err != nil {
		return w.jsonError(e, err)
	}
	return e.JSON(http.StatusCreated, asset.JSON())
}

// scriptEditor is the signed-in editor of the world a page's script writes to, with the API's
// errors: 401 signed out, 404 not a member, 403 not an editor.
func (w *Web) scriptEditor(e *core.RequestEvent) (auth.Principal, store.World, error) {
	u := user(e)
	if u == nil {
		return auth.Principal{}, store.World{}, apierr.New(http.StatusUnauthorized, "unauthenticated", "your session has ended; sign in again")
	}
	p := auth.PrincipalOfUser(u)
	world, role, err := w.world(e, u)
	if err != nil {
		return auth.Principal{}, store.World{}, apierr.NotFound("world")
	}
	if err := auth.Check(p, world, role, auth.Edit); err != nil {
		return auth.Principal{}, store.World{}, err
	}
	return p, world, nil
}
