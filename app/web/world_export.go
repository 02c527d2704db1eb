package web

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/store"
)

// exportWorld downloads the world's archive, as GET /api/v1/worlds/{worldId}/export does:
// the world settings page links here. Owners and admins.
func (w *Web) exportWorld(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	if !store.CanManage(pl.role) {
		return w.errorPage(e, http.StatusForbidden, "Not allowed", "Your role in this world is "+pl.role+"; exporting it needs owner or admin.")
	}
	return api.ServeArchive(e, w.Store, pl.world)
}
