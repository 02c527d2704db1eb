package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
)

// Revoking a key and disconnecting an app ask first: cancelling leaves them be, confirming
// goes ahead.
func TestBrowserRevokingAsksFirst(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	connectApp(t, s, ann, "Quill")
	dialogOpen := `document.querySelector('[data-testid="confirm-dialog"]').open`

	cases := []struct{ path, button, says, done string }{
		{"/settings/api-keys", `[data-testid="key"] button.danger`, "Revoke the key", `!!document.querySelector('[data-testid="revoked"]')`},
		{"/settings/apps", `[data-testid="app"] button.danger`, "Disconnect “Quill”?", `!!document.querySelector('[data-testid="no-apps"]')`},
	}
	signInTo(t, ctx, s, ann, cases[0].path, cases[0].button)
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			do(t, ctx, chromedp.Navigate(s.URL+tc.path), chromedp.WaitVisible(chromedp.CSS(tc.button)))
			noReload(t, ctx)
			do(t, ctx, chromedp.Click(chromedp.CSS(tc.button)))
			waitJS(t, ctx, "confirmation", dialogOpen)
			if got := eval[string](t, ctx, `document.querySelector("#confirm-text").textContent`); !strings.HasPrefix(got, tc.says) {
				t.Fatalf("the confirmation says %q", got)
			}
			do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="confirm-cancel"]`)))
			waitJS(t, ctx, "confirmation closed", "!"+dialogOpen)
			stillSamePage(t, ctx)
			do(t, ctx, chromedp.Navigate(s.URL+tc.path), chromedp.WaitVisible(chromedp.CSS(tc.button)))
			if eval[bool](t, ctx, tc.done) {
				t.Fatal("cancelled, and it went ahead all the same")
			}
			do(t, ctx, chromedp.Click(chromedp.CSS(tc.button)))
			waitJS(t, ctx, "confirmation", dialogOpen)
			do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="confirm-go"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="notice"]`)))
			waitJS(t, ctx, "done", tc.done)
		})
	}
}

// reconnectWait is how long a browser may take to reconnect a stream the server closed
// (Chromium waits 3 s) and learn it is refused.
const reconnectWait = 6 * time.Second

// A reader removed from a world while watching its pages is told that their access was
// removed, not to reload (a reload would be refused).
func TestBrowserAccessRemovedWhileWatching(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann, vic := s.NewUser("Ann Author"), s.NewUser("Vic Viewer")
	w := newWorld(t, s, ann, "Eldoria")
	tl := w.doc(t, "History", "timeline", "", "")
	s.AddMember(ann, w.ID, vic, "viewer")
	const removed = "Not live: your access to this world was removed"

	signInTo(t, ctx, s, vic, "/w/"+w.Slug+"/d/"+tl, `[data-testid="timeline"], [data-testid="doc-title"]`)
	streamOpen(t, ctx)
	s.Must(s.Do(apptest.Request{Method: http.MethodDelete, Path: "/api/v1/worlds/" + w.ID + "/members/" + vic.ID, Key: ann.Key}), http.StatusNoContent)
	waitJSFor(t, ctx, reconnectWait, "access removed", `document.querySelector("[data-live-status]").textContent === "`+removed+`"`)
	if res := s.Do(apptest.Request{Method: http.MethodGet, Path: "/w/" + w.Slug + "/d/" + tl, Client: s.SignIn(vic)}); res.Status != http.StatusNotFound {
		t.Fatalf("the page, reloaded: %d, want 404", res.Status)
	}

	// The world page says the same.
	s.AddMember(ann, w.ID, vic, "viewer")
	do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug), chromedp.WaitVisible(chromedp.CSS(`#documents`)))
	streamOpen(t, ctx)
	s.Must(s.Do(apptest.Request{Method: http.MethodDelete, Path: "/api/v1/worlds/" + w.ID + "/members/" + vic.ID, Key: ann.Key}), http.StatusNoContent)
	waitJSFor(t, ctx, reconnectWait, "access removed", `document.querySelector("[data-live-status]").textContent === "`+removed+`"`)
}
