package store

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/filesystem"

	"github.com/loreweave/loreweave/app/apierr"
)

// Asset kinds: what an uploaded file is for.
const (
	AssetImage = "image" // a map image
	AssetModel = "model" // an animator's 3D model
)

// Asset is one uploaded file of a world. Its bytes live in PocketBase's file storage (local
// disk or S3) under the record's own folder; the row says what they are.
type Asset struct {
	ID          string `db:"id"`
	WorldID     string `db:"world"`
	File        string `db:"file"` // the stored file name inside the record's folder
	Name        string `db:"name"` // the name it was uploaded with, for people
	Kind        string `db:"kind"`
	ContentType string `db:"contentType"`
	Size        int64  `db:"size"`
	Width       int    `db:"width"`
	Height      int    `db:"height"`
	UploaderID  string `db:"uploader"`
	Created     string `db:"created"`
}

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

// JSON is the asset as the API and the web app answer it.
func (a Asset) JSON() AssetJSON {
	return AssetJSON{ID: a.ID, URL: AssetPath(a.WorldID, a.ID), Name: a.Name, Kind: a.Kind, ContentType: a.ContentType,
		Size: a.Size, Width: a.Width, Height: a.Height, UploaderID: a.UploaderID, Created: strings.Replace(a.Created, " ", "T", 1)}
}

// NewAsset is a checked upload, ready to store.
type NewAsset struct {
	WorldID, UploaderID string
	Name, Kind          string
	ContentType         string
	// Ext is the extension the stored file gets (".png"), from its detected type.
	Ext           string
	Width, Height int
	Data          []byte
}

// AssetPath is an asset's stable URL on this server, the one documents reference
// (map.setImage, animator.setModel) and members load with their session.
func AssetPath(worldID, id string) string {
	return "/api/v1/worlds/" + worldID + "/assets/" + id + "/file"
}

const assetColumns = "id, world, file, name, kind, contentType, size, width, height, uploader, created"

// CreateAsset stores an upload: the record and its file together (PocketBase removes the
// file again if the record cannot be saved).
func (s *Store) CreateAsset(n NewAsset) (Asset, error) {
	col, err := s.app.FindCachedCollectionByNameOrId("assets")
	if err != nil {
		return Asset{}, fmt.Errorf("store: assets collection: %w", err)
	}
	f, err := filesystem.NewFileFromBytes(n.Data, "asset"+n.Ext)
	if err != nil {
		return Asset{}, fmt.Errorf("store: asset file: %w", err)
	}
	rec := core.NewRecord(col)
	rec.Set("world", n.WorldID)
	rec.Set("file", f)
	rec.Set("name", n.Name)
	rec.Set("kind", n.Kind)
	rec.Set("contentType", n.ContentType)
	rec.Set("size", len(n.Data))
	rec.Set("width", n.Width)
	rec.Set("height", n.Height)
	rec.Set("uploader", n.UploaderID)
	if err := s.app.Save(rec); err != nil {
		return Asset{}, fmt.Errorf("store: create asset: %w", err)
	}
	return s.Asset(n.WorldID, rec.Id)
}

// Assets lists a world's assets, oldest first.
func (s *Store) Assets(worldID string, p Page) ([]Asset, int, error) {
	var total int
	if err := s.app.DB().NewQuery("SELECT COUNT(*) FROM assets WHERE world = {:w}").Bind(dbx.Params{"w": worldID}).Row(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count assets: %w", err)
	}
	items := []Asset{}
	err := s.app.DB().NewQuery("SELECT " + assetColumns + " FROM assets WHERE world = {:w} ORDER BY created, rowid LIMIT {:limit} OFFSET {:offset}").
		Bind(dbx.Params{"w": worldID, "limit": p.PerPage, "offset": p.offset()}).All(&items)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list assets: %w", err)
	}
	return items, total, nil
}

// AssetsOfKind returns a world's newest assets of one kind, at most limit of them.
func (s *Store) AssetsOfKind(worldID, kind string, limit int) ([]Asset, error) {
	items := []Asset{}
	err := s.app.DB().NewQuery("SELECT " + assetColumns + " FROM assets WHERE world = {:w} AND kind = {:kind} ORDER BY created DESC, rowid DESC LIMIT {:limit}").
		Bind(dbx.Params{"w": worldID, "kind": kind, "limit": limit}).All(&items)
	if err != nil {
		return nil, fmt.Errorf("store: list %s assets: %w", kind, err)
	}
	return items, nil
}

// Asset returns one asset of a world.
func (s *Store) Asset(worldID, id string) (Asset, error) {
	var a Asset
	err := s.app.DB().NewQuery("SELECT " + assetColumns + " FROM assets WHERE id = {:id} AND world = {:w}").
		Bind(dbx.Params{"id": id, "w": worldID}).One(&a)
	return a, notFound(err)
}

// AssetsSize is the sum of the sizes of a world's assets, in bytes.
func (s *Store) AssetsSize(worldID string) (int64, error) {
	var total int64
	if err := s.app.DB().NewQuery("SELECT COALESCE(SUM(size), 0) FROM assets WHERE world = {:w}").Bind(dbx.Params{"w": worldID}).Row(&total); err != nil {
		return 0, fmt.Errorf("store: assets size: %w", err)
	}
	return total, nil
}

// AssetUsers returns the ids of the world's documents whose content (on the main line or in
// any era) mentions the asset's URL, at most limit of them. Deleted documents do not count.
func (s *Store) AssetUsers(worldID, id string, limit int) ([]string, error) {
	ids := []string{}
	err := s.app.DB().NewQuery(`SELECT DISTINCT d.id FROM document_states st JOIN documents d ON d.id = st.document
		WHERE d.world = {:w} AND st.deleted = FALSE AND (instr(st.data, {:ref}) > 0 OR instr(st.text, {:ref}) > 0)
		ORDER BY d.id LIMIT {:limit}`).
		Bind(dbx.Params{"w": worldID, "ref": "/assets/" + id + "/file", "limit": limit}).Column(&ids)
	if err != nil {
		return nil, fmt.Errorf("store: asset users %s: %w", id, err)
	}
	return ids, nil
}

// DeleteAsset removes an asset's record and its file.
func (s *Store) DeleteAsset(worldID, id string) error {
	rec, err := s.app.FindRecordById("assets", id)
	if err != nil || rec.GetString("world") != worldID {
		return notFound(err)
	}
	if err := s.app.Delete(rec); err != nil {
		return fmt.Errorf("store: delete asset %s: %w", id, err)
	}
	return nil
}

// AssetFile is an open stored file: read or seek it, then Close it.
type AssetFile interface {
	io.ReadSeekCloser
	ModTime() time.Time
}

// OpenAsset opens an asset's stored file.
func (s *Store) OpenAsset(a Asset) (AssetFile, error) {
	fsys, err := s.app.NewFilesystem()
	if err != nil {
		return nil, fmt.Errorf("store: open file storage: %w", err)
	}
	col, err := s.app.FindCachedCollectionByNameOrId("assets")
	if err != nil {
		fsys.Close()
		return nil, fmt.Errorf("store: assets collection: %w", err)
	}
	r, err := fsys.GetReader(col.Id + "/" + a.ID + "/" + a.File)
	if err != nil {
		fsys.Close()
		if errors.Is(err, filesystem.ErrNotFound) {
			// The database knows the asset but the file storage lacks its file: a data
			// directory restored without its storage folder (a database replica alone).
			s.app.Logger().Warn("store: an asset's file is missing from the file storage", "asset", a.ID, "world", a.WorldID, "file", a.File)
			return nil, apierr.New(http.StatusNotFound, "asset_file_missing",
				"the file of asset %s is missing from the server's file storage (the data directory's storage folder was not restored with its database?); upload it again", a.ID).With("id", a.ID)
		}
		return nil, fmt.Errorf("store: open asset %s: %w", a.ID, err)
	}
	return &assetFile{AssetFile: r, fsys: fsys}, nil
}

// assetFile closes the file storage with the file.
type assetFile struct {
	AssetFile
	fsys io.Closer
}

func (f *assetFile) Close() error {
	err := f.AssetFile.Close()
	if cerr := f.fsys.Close(); err == nil {
		err = cerr
	}
	return err
}
