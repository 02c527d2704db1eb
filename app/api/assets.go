package api

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// AssetJSON is an uploaded file's metadata. Width and height are read from an image's own
// header; a model has neither.
type AssetJSON struct {
	ID          string `json:"id"`
	URL         string `json:"url"`
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
	Width       int    `json:"width,omitempty"`
	Height      int    `json:"height,omitempty"`
	UploaderID  string `json:"uploaderId"`
	Created     string `json:"created"`
}

// AssetListJSON is a page of a world's assets, with the size of all of them.
type AssetListJSON struct {
	List[AssetJSON]
	// TotalSize is the sum of the sizes of all the world's assets, in bytes.
	TotalSize int64 `json:"totalSize"`
}

func assetJSON(a store.Asset) AssetJSON {
	return AssetJSON{ID: a.ID, URL: store.AssetPath(a.WorldID, a.ID), Name: a.Name, Kind: a.Kind, ContentType: a.ContentType,
		Size: a.Size, Width: a.Width, Height: a.Height, UploaderID: a.UploaderID, Created: apiTime(a.Created)}
}

// uploadOverhead is what a multipart body may carry beside the file (boundaries, headers).
const uploadOverhead = 1 << 20

// maxInUse bounds the documents a refused delete names.
const maxInUse = 20

func (a *API) limitFor(kind string) int {
	if kind == store.AssetModel {
		return a.Config.MaxModelBytes
	}
	return a.Config.MaxImageBytes
}

func (a *API) uploadAsset(e *core.RequestEvent) error {
	p := auth.PrincipalOf(e)
	w, _, err := a.Access.World(p, e.Request.PathValue("worldId"), auth.Edit)
	if err != nil {
		return err
	}
	e.Request.Body = http.MaxBytesReader(e.Response, e.Request.Body, int64(max(a.Config.MaxImageBytes, a.Config.MaxModelBytes)+uploadOverhead))
	mr, err := e.Request.MultipartReader()
	if err != nil {
		return apierr.New(http.StatusUnsupportedMediaType, "unsupported_media_type",
			"send the file as multipart/form-data in the field \"file\" (curl -F file=@map.png)")
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return apierr.Field("file", "the multipart body has no field \"file\"; send the file in it (curl -F file=@map.png)")
		}
		if err != nil {
			return uploadReadError(err, a.limitFor(store.AssetModel))
		}
		if part.FormName() != "file" {
			continue
		}
		n, err := a.readUpload(part)
		if err != nil {
			return err
		}
		n.WorldID, n.UploaderID = w.ID, p.UserID
		asset, err := a.Store.CreateAsset(n)
		if err != nil {
			return err
		}
		return e.JSON(http.StatusCreated, assetJSON(asset))
	}
}

// readUpload reads the file part, types it by content and checks its size and contents.
func (a *API) readUpload(part io.Reader) (store.NewAsset, error) {
	head := make([]byte, sniffHead)
	n, err := io.ReadFull(part, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return store.NewAsset{}, uploadReadError(err, a.limitFor(store.AssetModel))
	}
	head = head[:n]
	t := sniff(head)
	if t.kind == "" {
		return store.NewAsset{}, apierr.New(http.StatusUnsupportedMediaType, "unsupported_file_type",
			"this file's content is %s; upload a PNG, JPEG, WebP or GIF image or a glTF model (.glb, .gltf); SVG is not accepted because it can carry script", t.contentType).
			With("detectedType", t.contentType).With("supported", supportedTypes)
	}
	limit := a.limitFor(t.kind)
	rest, err := io.ReadAll(io.LimitReader(part, int64(limit-len(head)+1)))
	if err != nil {
		return store.NewAsset{}, uploadReadError(err, limit)
	}
	data := append(head, rest...)
	if len(data) > limit {
		return store.NewAsset{}, fileTooLarge(t.kind, limit)
	}
	width, height, problem := t.inspect(data)
	if problem != "" {
		return store.NewAsset{}, apierr.New(http.StatusUnsupportedMediaType, "unsupported_file_type", "%s", problem).
			With("detectedType", t.contentType).With("supported", supportedTypes)
	}
	var name string
	if p, ok := part.(interface{ FileName() string }); ok {
		name = cleanFileName(p.FileName())
	}
	return store.NewAsset{Name: name, Kind: t.kind, ContentType: t.contentType, Ext: t.ext, Width: width, Height: height, Data: data}, nil
}

// supportedTypes are the content types an upload may have.
var supportedTypes = []string{"image/png", "image/jpeg", "image/webp", "image/gif", "model/gltf-binary", "model/gltf+json"}

func fileTooLarge(kind string, limit int) error {
	return apierr.New(http.StatusRequestEntityTooLarge, "file_too_large", "this %s is larger than the %d-byte limit for %ss on this server", kind, limit, kind).
		With("limit", limit)
}

// uploadReadError names a body over its size cap; other read failures are the client's
// broken multipart.
func uploadReadError(err error, limit int) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return fileTooLarge(store.AssetModel, limit)
	}
	return apierr.New(http.StatusBadRequest, "malformed_multipart", "the multipart body could not be read: %v", err)
}

// cleanFileName keeps the base name a client sent, for display only: never a path, never
// used to store or serve the file.
func cleanFileName(s string) string {
	s = path.Base(strings.ReplaceAll(s, "\\", "/"))
	if s == "." || s == "/" || !utf8.ValidString(s) {
		return ""
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > 200 {
		s = s[:200]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

func (a *API) listAssets(e *core.RequestEvent) error {
	worldID, l, err := worldPage(a, e, a.Store.Assets, assetJSON)
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
	return e.JSON(http.StatusOK, assetJSON(as))
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
