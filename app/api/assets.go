package api

import (
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// AssetListJSON is a page of a world's assets, with the size of all of them.
type AssetListJSON struct {
	List[store.AssetJSON]
	// TotalSize is the sum of the sizes of all the world's assets, in bytes.
	TotalSize int64 `json:"totalSize"`
}

// maxInUse bounds the documents a refused delete names.
const maxInUse = 20

func (a *API) uploadAsset(e *core.RequestEvent) error {
	p := auth.PrincipalOf(e)
	w, _, err := a.Access.World(p, e.Request.PathValue("worldId"), auth.Edit)
	if err != nil {
		return err
	}
	n, err := store.ReadUpload(e.Response, e.Request, store.UploadLimits{Image: a.Config.MaxImageBytes, Model: a.Config.MaxModelBytes})
	if err != nil {
		return err
	}
	n.WorldID, n.UploaderID = w.ID, p.UserID
	asset, err := a.Store.CreateAsset(n)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, asset.JSON())
}

func (a *API) listAssets(e *core.RequestEvent) error {
	worldID, l, err := worldPage(a, e, a.Store.Assets, store.Asset.JSON)
	if err != nil {
		return err
	}
	size, err := a.Store.AssetsSize(worldID)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, AssetListJSON{List: l, TotalSize: size})
}

// findAsset loads the asset named by the path for p, checking need in its world.
func (a *API) findAsset(e *core.RequestEvent, need auth.Need) (store.Asset, error) {
	w, _, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), need)
	if err != nil {
		return store.Asset{}, err
	}
	as, err := a.Store.Asset(w.ID, e.Request.PathValue("assetId"))
	if err != nil {
		if errors.Is(err, apierr.ErrNotFound) {
			return store.Asset{}, apierr.NotFound("asset")
		}
		return store.Asset{}, err
	}
	return as, nil
}

func (a *API) getAsset(e *core.RequestEvent) error {
	as, err := a.findAsset(e, auth.ReadMeta)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, as.JSON())
}

func (a *API) deleteAsset(e *core.RequestEvent) error {
	as, err := a.findAsset(e, auth.Edit)
	if err != nil {
		return err
	}
	users, err := a.Store.AssetUsers(as.WorldID, as.ID, maxInUse)
	if err != nil {
		return err
	}
	if len(users) > 0 {
		return apierr.New(http.StatusConflict, "asset_in_use", "documents of this world still use this asset (%s); point them at another file first", strings.Join(users, ", ")).
			With("documentIds", users)
	}
	if err := a.Store.DeleteAsset(as.WorldID, as.ID); err != nil {
		return err
	}
	return e.NoContent(http.StatusNoContent)
}

// assetFile serves the stored bytes with the type found at upload, never sniffed again by
// the browser; the content of an id never changes, so members' browsers may keep it.
func (a *API) assetFile(e *core.RequestEvent) error {
	as, err := a.findAsset(e, auth.ReadMeta)
	if err != nil {
		return err
	}
	f, err := a.Store.OpenAsset(as)
	if err != nil {
		return err
	}
	defer f.Close()
	h := e.Response.Header()
	h.Set("Content-Type", as.ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, max-age=31536000, immutable")
	h.Set("ETag", `"`+as.ID+`"`)
	// The stored name ends with the extension of the detected type; the uploaded name is never sent back here.
	h.Set("Content-Disposition", fmt.Sprintf(`inline; filename="asset-%s%s"`, as.ID, path.Ext(as.File)))
	http.ServeContent(e.Response, e.Request, "", f.ModTime(), f)
	return nil
}
