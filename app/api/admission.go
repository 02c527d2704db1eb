package api

import (
	"bytes"
	"net/http"
	"runtime"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
)

// Admission. Under a load of many clients every request in progress shares the cores, so a
// content write that needs a fraction of a millisecond waited behind every read, search and
// list running beside it (82 ms at p50 with 100 clients, against 0.2 ms alone). The read
// routes below therefore run a few at a time, on half the cores; the others wait for a turn
// without using any CPU, while writes, creates and everything else go straight through on
// the other half. The reads wait longer under such a load, which is the trade: an
// interactive write must not wait behind a search.
//
// A turn covers the CPU work only: the response is built in memory and sent after the turn
// is given back, so a client that reads its answer slowly holds up nobody else.

// turnRoutes are the routes that take a turn ("METHOD path", as in Routes).
var turnRoutes = map[string]bool{
	"GET /api/v1/worlds/{worldId}/search":                 true,
	"GET /api/v1/worlds/{worldId}/documents":              true,
	"GET /api/v1/worlds/{worldId}/documents/{documentId}": true,
}

// turns hands out the turns of turnRoutes.
type turns chan struct{}

// newTurns gives half the cores to the routes that take turns (one on one or two cores).
func newTurns() turns { return make(turns, max(runtime.GOMAXPROCS(0)/2, 1)) }

// run runs h in a turn, once one is free, and then sends what h answered.
func (t turns) run(e *core.RequestEvent, h func(e *core.RequestEvent) error) error {
	select {
	case t <- struct{}{}:
	case <-e.Request.Context().Done():
		return apierr.New(http.StatusServiceUnavailable, "request_cancelled", "the request ended while it waited for its turn")
	}
	w := e.Response
	buf := &bufferedResponse{header: w.Header()}
	err := func() error {
		// Given back even if h panics (PocketBase recovers from it): a turn lost for good
		// would stop every read.
		defer func() { e.Response = w; <-t }()
		e.Response = buf
		return h(e)
	}()
	if buf.status != 0 || buf.body.Len() > 0 {
		w.WriteHeader(max(buf.status, http.StatusOK))
		_, _ = w.Write(buf.body.Bytes()) // the client went away: nothing left to tell it
	}
	return err
}

// bufferedResponse keeps a response in memory; its headers are the real response's.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}
