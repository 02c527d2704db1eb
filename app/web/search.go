package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/search"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/views"
)

// searchWorld answers the world page's search box: an htmx fragment of results as the user
// types, or the world's search page without JavaScript. The web app is never plan-gated.
// While the search index is rebuilt, both say so (the page with 503 and Retry-After).
func (w *Web) searchWorld(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	world, eraID := pl.world, pl.eraID
	q := e.Request.URL.Query().Get("q")
	if r := []rune(q); len(r) > search.MaxQuery {
		q = string(r[:search.MaxQuery])
	}
	var hits []views.SearchHit
	state := views.SearchIdle
	if strings.TrimSpace(q) != "" {
		res, err := w.Search.Search(search.Query{WorldID: world.ID, EraID: eraID, Text: q, Page: store.Page{Page: 1, PerPage: 20}, Secrets: store.CanEdit(pl.role)})
		switch {
		case search.Rebuilding(err):
			state = views.SearchRebuilding
		case err != nil:
			return err
		default:
			state = views.SearchDone
		}
		for _, h := range res.Hits {
			hits = append(hits, views.SearchHit{Name: h.Name, DocumentType: h.DocumentType, Href: documentURL(world.Slug, h.ID, eraID), Snippet: h.Snippet})
		}
	}
	if e.Request.Header.Get("HX-Request") == "true" {
		// 200 even while rebuilding: htmx swaps in only successful answers.
		return render(e, http.StatusOK, views.SearchResults(q, hits, state))
	}
	status := http.StatusOK
	if state == views.SearchRebuilding {
		status = http.StatusServiceUnavailable
		e.Response.Header().Set("Retry-After", strconv.Itoa(search.RetryRebuilding))
	}
	p := page(e, "Search "+world.Name)
	p.Theme = world.Theme
	return render(e, status, views.SearchPage(p, world.Name, worldURL(world.Slug, eraID), views.SearchBox(world.Slug, eraID, q, hits, state)))
}
