package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
)

// deletedMessage is what a document page says once its document is gone.
const deletedMessage = "This document was deleted, or you can no longer see it"

// signInTo signs u in through the form and lands on path, waiting for sel.
func signInTo(t *testing.T, ctx context.Context, s *apptest.Server, u apptest.User, path, sel string) {
	t.Helper()
	do(t, ctx,
		chromedp.Navigate(s.URL+"/login?next="+url.QueryEscape(path)),
		chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), u.Email),
		chromedp.SendKeys(chromedp.CSS(`#password`), u.Password),
		chromedp.Submit(chromedp.CSS(`form[data-testid="login-form"]`)),
		chromedp.WaitVisible(chromedp.CSS(sel)),
	)
}

// waitConnections waits until the server holds n stream connections.
func waitConnections(t *testing.T, s *apptest.Server, n int) {
	t.Helper()
	for deadline := time.Now().Add(liveWait); s.LW.Live.Connections() != n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d stream connections open, want %d", s.LW.Live.Connections(), n)
		}
	}
}

// An open document page learns at once that its document was deleted, says so, and stops
// following it: no stream stays open and none is reopened.
func TestBrowserDocumentPageDeleted(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Eldoria")
	card := w.doc(t, "Aria", "card", "", "")
	places := w.doc(t, "Places", "folder", "", "")
	age := w.era(t, "Age")
	var later struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/eras", map[string]any{"name": "Later Age", "parentId": age}), http.StatusCreated).JSON(t, &later)
	docAPI := "/api/v1/worlds/" + w.ID + "/documents/"

	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+card, `#doc-body`)

	t.Run("main-line delete", func(t *testing.T) {
		noReload(t, ctx)
		streamOpen(t, ctx)
		s.Must(s.Do(apptest.Request{Method: http.MethodDelete, Path: docAPI + card, Key: ann.Key}), http.StatusNoContent)
		waitJS(t, ctx, "deleted message", `document.querySelector("[data-live-status]").textContent === "`+deletedMessage+`"
			&& document.querySelector("[data-doc-live]").hasAttribute("data-deleted")`)
		waitConnections(t, s, 0)
		stillSamePage(t, ctx)
	})

	t.Run("delete in an era the page's era descends from", func(t *testing.T) {
		// A folder page follows two streams: the document's and the world's.
		do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug+"/d/"+places+"?era="+later.ID), chromedp.WaitVisible(chromedp.CSS(`#doc-body`)))
		noReload(t, ctx)
		streamOpen(t, ctx)
		waitConnections(t, s, 2)
		s.Must(s.Do(apptest.Request{Method: http.MethodDelete, Path: docAPI + places + "?era=" + age, Key: ann.Key}), http.StatusNoContent)
		waitJS(t, ctx, "deleted message", `document.querySelector("[data-live-status]").textContent === "`+deletedMessage+`"`)
		waitConnections(t, s, 0)
		// Longer than a browser waits before reconnecting a stream the server closed.
		time.Sleep(3500 * time.Millisecond)
		if got := eval[string](t, ctx, `document.querySelector("[data-live-status]").textContent`); got != deletedMessage {
			t.Fatalf("status %q after the delete, want %q", got, deletedMessage)
		}
		if n := s.LW.Live.Connections(); n != 0 {
			t.Fatalf("the page reopened %d streams", n)
		}
		stillSamePage(t, ctx)
	})
}
