package api

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"time"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// ImportResultJSON is what an import made: the world, as its new owner sees it, and what
// became of the archive's members.
type ImportResultJSON struct {
	World   WorldJSON           `json:"world"`
	Mode    store.ImportMode    `json:"mode"`
	Counts  store.ArchiveCounts `json:"counts"`
	Members ImportMembersJSON   `json:"members"`
}

// ImportMembersJSON lists the archive's members by what the import did with them (emails).
type ImportMembersJSON struct {
	Added   []string `json:"added"`
	Invited []string `json:"invited"`
	Skipped []string `json:"skipped"`
}

// ImportResultOf is the answer to an import.
func ImportResultOf(r store.ImportResult) ImportResultJSON {
	return ImportResultJSON{World: worldJSON(r.World, "owner"), Mode: r.Mode, Counts: r.Counts,
		Members: ImportMembersJSON{Added: r.MembersAdded, Invited: r.MembersInvited, Skipped: r.MembersSkipped}}
}

// archiveReadTimeout bounds each read of an archive from its client: a big upload may take
// longer than the server's read timeout in all, but a client that stops sending is let go.
const archiveReadTimeout = time.Minute

// importWorld serves POST /api/v1/worlds/import?mode=restore|copy: the body is a world
// archive (docs/ARCHIVE.md), which any signed-in caller may import, as when creating a world;
// they own the result. The body goes to a temporary file in the data directory (up to
// Config.MaxImportBytes; larger is 413 archive_too_large) and is imported from there.
func (a *API) importWorld(e *core.RequestEvent) error {
	mode := store.ImportMode(e.Request.URL.Query().Get("mode"))
	if mode == "" {
		mode = store.ImportRestore
	}
	if mode != store.ImportRestore && mode != store.ImportCopy {
		return apierr.Field("mode", "mode must be restore (keep the archive's ids) or copy (new ids)")
	}
	if ct, _, _ := mime.ParseMediaType(e.Request.Header.Get("Content-Type")); ct != "application/zip" && ct != "application/octet-stream" {
		return apierr.New(http.StatusUnsupportedMediaType, "unsupported_media_type", "send the archive as the body, with Content-Type: application/zip")
	}
	limit := int64(a.Config.MaxImportBytes)
	tooLarge := apierr.New(http.StatusRequestEntityTooLarge, "archive_too_large",
		"the archive is larger than this server's limit of %d MiB (the operator sets it with LOREWEAVE_MAX_IMPORT_MIB); nothing was imported", limit>>20).With("limit", limit)
	if e.Request.ContentLength > limit {
		return tooLarge
	}
	f, err := os.CreateTemp(e.App.DataDir(), ".import-*.zip")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	rc := http.NewResponseController(e.Response)
	body := &deadlineReader{r: e.Request.Body, rc: rc}
	n, err := io.Copy(f, io.LimitReader(body, limit+1))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge
		}
		return apierr.New(http.StatusBadRequest, "malformed_body", "the archive could not be read to its end (%v); nothing was imported", err)
	}
	if n > limit {
		return tooLarge
	}
	res, err := a.Store.ImportWorld(e.Request.Context(), f, n, mode, auth.PrincipalOf(e).UserID)
	// A big import may outlast the server's write timeout: the answer gets its own time.
	_ = rc.SetWriteDeadline(time.Now().Add(archiveReadTimeout))
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, ImportResultOf(res))
}

// deadlineReader moves the connection's read deadline on before every read.
type deadlineReader struct {
	r  io.Reader
	rc *http.ResponseController
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	_ = d.rc.SetReadDeadline(time.Now().Add(archiveReadTimeout))
	return d.r.Read(p)
}
