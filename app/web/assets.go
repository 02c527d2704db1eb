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
	u := user(e)
	if u == nil {
		return w.jsonError(e, apierr.New(http.StatusUnauthorized, "unauthenticated", "your session has ended; sign in again"))
	}
	p := auth.PrincipalOfUser(u)
	world, role, err := w.world(e, u)
	if err != nil {
		return w.jsonError(e, apierr.NotFound("world"))
	}
	if err := auth.Check(p, world, role, auth.Edit); err != nil {
		return w.jsonError(e, err)
	}
	n, err := store.ReadUpload(e.Response, e.Request, store.UploadLimits{Image: w.Config.MaxImageBytes, Model: w.Config.MaxModelBytes})
	if err != nil {
		return w.jsonError(e, err)
	}
	n.WorldID, n.UploaderID = world.ID, u.Id
	asset, err := w.Store.CreateAsset(n)
	if err != nil {
		return w.jsonError(e, err)
	}
	return e.JSON(http.StatusCreated, asset.JSON())
}
