package api

import (
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/auth"
)

// documentEvents streams a document's changes (Server-Sent Events). Same visibility and plan
// rules as a content read.
func (a *API) documentEvents(e *core.RequestEvent) error {
	_, d, err := a.document(e, auth.ReadContent)
	if err != nil {
		return err
	}
	return a.Live.ServeDocument(e, auth.PrincipalOf(e), d, era(e))
}

// worldEvents streams a world's structural changes (Server-Sent Events): metadata only, so
// every plan may watch it.
func (a *API) worldEvents(e *core.RequestEvent) error {
	w, _, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.ReadMeta)
	if err != nil {
		return err
	}
	return a.Live.ServeWorld(e, auth.PrincipalOf(e), w)
}
