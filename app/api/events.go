package api

import (
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// documentEvents streams a document's changes (Server-Sent Events). Same visibility and plan
// rules as a content read; a viewer of the world gets the document's public stream (without
// secret parts).
func (a *API) documentEvents(e *core.RequestEvent) error {
	_, d, role, err := a.documentAs(e, auth.ReadContent)
	if err != nil {
		return err
	}
	return a.Live.ServeDocument(e, auth.PrincipalOf(e), d, era(e), !store.CanEdit(role))
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
