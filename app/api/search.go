package api

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/search"
	"github.com/loreweave/loreweave/app/store"
)

func (a *API) search(e *core.RequestEvent) error {
	w, role, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.ReadContent)
	if err != nil {
		return err
	}
	// q keeps its trailing space: it tells a finished last word from one being typed. The
	// searcher checks it (required, at most search.MaxQuery characters).
	q := e.Request.URL.Query().Get("q")
	if _, err := a.Store.EraChain(w.ID, era(e)); err != nil {
		return err
	}
	pg, err := page(e)
	if err != nil {
		return err
	}
	res, err := a.Search.Search(search.Query{WorldID: w.ID, EraID: era(e), Text: q, DocumentType: e.Request.URL.Query().Get("documentType"), Page: pg, Secrets: store.CanEdit(role)})
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, list(res.Hits, pg, res.Total))
}
