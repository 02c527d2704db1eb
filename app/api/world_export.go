package api

import (
	"bufio"
	"fmt"
	"net/http"
	"time"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// exportWorld streams the world's archive (docs/ARCHIVE.md). Owners and admins, on every
// plan: leaving with everything is never a paid feature.
func (a *API) exportWorld(e *core.RequestEvent) error {
	w, role, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.ReadMeta)
	if err != nil {
		return err
	}
	if !store.CanManage(role) {
		return apierr.Forbidden("your role in this world is %s; exporting it needs owner or admin", role)
	}
	return ServeArchive(e, a.Store, w)
}

// archiveWriteTimeout bounds each write of an archive to its client: a big export may take
// longer than the server's 5-minute write timeout in all, but a client that stops reading is
// let go.
const archiveWriteTimeout = time.Minute

// ServeArchive answers with the world's archive as an attachment, streamed as it is written
// (the web app's export route serves the same). An error before the first byte is answered
// as usual; after it, the connection is cut, so the client never mistakes a torn archive
// for a whole one (a torn zip has no central directory and no manifest).
func ServeArchive(e *core.RequestEvent, st *store.Store, w store.World) error {
	h := e.Response.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, ArchiveFileName(w, time.Now())))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	out := &deadlineWriter{w: e.Response, rc: http.NewResponseController(e.Response)}
	buf := bufio.NewWriterSize(out, 64<<10)
	_, err := st.ExportWorld(e.Request.Context(), w.ID, buf, nil)
	if err == nil {
		err = buf.Flush()
	}
	if err == nil {
		return nil
	}
	if !out.started {
		h.Del("Content-Disposition")
		return err
	}
	if e.Request.Context().Err() == nil {
		e.App.Logger().Error("api: export cut short", "world", w.ID, "error", err.Error())
	}
	panic(http.ErrAbortHandler)
}

// ArchiveFileName is the name an archive is offered under: the world's slug and the day.
func ArchiveFileName(w store.World, now time.Time) string {
	return w.Slug + "-" + now.UTC().Format("2006-01-02") + ".zip"
}

// deadlineWriter moves the connection's write deadline on before every write.
type deadlineWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	if !d.started {
		d.started = true
		d.w.WriteHeader(http.StatusOK)
	}
	_ = d.rc.SetWriteDeadline(time.Now().Add(archiveWriteTimeout))
	return d.w.Write(p)
}
