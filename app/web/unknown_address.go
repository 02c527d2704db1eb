package web

import (
	"net/http"
	"strings"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

// unknownAddress answers every address no other route takes (it replaces PocketBase's own
// catch-all): a browser asking for a page gets the app's 404 page; PocketBase's API and
// dashboard, and any method but GET and HEAD, keep PocketBase's JSON 404.
func (w *Web) unknownAddress(e *core.RequestEvent) error {
	if !pageRequest(e.Request) {
		return router.NewNotFoundError("", nil)
	}
	return w.errorPage(e, http.StatusNotFound, "Page not found", "There is no page at this address. Check the link, or go back to your worlds.")
}

// unknownAddressMiddleware runs the pages' middleware (headers, session, CSRF cookie) for the
// requests unknownAddress answers with a page.
func (w *Web) unknownAddressMiddleware(e *core.RequestEvent) error {
	if !pageRequest(e.Request) {
		return e.Next()
	}
	return w.middleware(e)
}

// pageRequest reports whether r is a GET or HEAD outside PocketBase's /api/ and /_/.
func pageRequest(r *http.Request) bool {
	p := r.URL.Path
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return p != "/api" && !strings.HasPrefix(p, "/api/") && p != "/_" && !strings.HasPrefix(p, "/_/")
}
