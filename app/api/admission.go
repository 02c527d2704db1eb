package api

import (
	"net/http"
	"runtime"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
)

// Admission. A search or a page of a document list costs tens of times a content write's CPU.
// Under a load of many clients every request in progress shares the cores, so a write that
// needs a fraction of a millisecond waited behind every search and list running beside it
// (82 ms at p50 with 100 clients, against 0.2 ms alone). The expensive routes therefore run
// at most a few at a time; the others wait for a turn without using any CPU, and writes,
// reads of one document and everything else go straight through. The searches and lists
// wait longer under such a load, which is the trade: an interactive write must not wait
// behind a search.

// expensiveRoutes are the routes that take a turn ("METHOD path", as in Routes).
var expensiveRoutes = map[string]bool{
	"GET /api/v1/worlds/{worldId}/search":                 true,
	"GET /api/v1/worlds/{worldId}/documents":              true,
	"GET /api/v1/worlds/{worldId}/documents/{documentId}": true,
}

// turns hands out the turns of the expensive routes: one per core, so that they keep every
// core busy when nothing else runs, and never crowd out the cheap requests.
type turns chan struct{}

func newTurns() turns { return make(turns, max(runtime.GOMAXPROCS(0), 1)) }

// take waits for a turn, or for the request to end.
func (t turns) take(e *core.RequestEvent) error {
	select {
	case t <- struct{}{}:
		return nil
	case <-e.Request.Context().Done():
		return apierr.New(http.StatusServiceUnavailable, "request_cancelled", "the request ended while it waited for its turn")
	}
}

func (t turns) give() { <-t }
