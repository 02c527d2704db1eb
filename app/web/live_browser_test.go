package web_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/live"
)

// deletedMessage is what a document page says once its document is gone.
const deletedMessage = "This document was deleted, or you can no longer see it"

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

	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+card, `[data-testid="doc-title"]`)

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

// Renames and moves show at once on an open document page: of the document (its metadata or,
// for a card, its own name), and of the folders above it. The heading, the breadcrumbs and
// the browser's title follow; names are text, never markup.
func TestBrowserDocumentPageRenames(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Eldoria")
	lore := w.doc(t, "Lore", "folder", "", "")
	people := w.doc(t, "People", "folder", lore, "")
	card := w.doc(t, "Aria", "card", people, "")
	docAPI := "/api/v1/worlds/" + w.ID + "/documents/"
	patch := func(id string, body map[string]any) {
		t.Helper()
		s.Must(s.Do(apptest.Request{Method: http.MethodPatch, Path: docAPI + id, Key: ann.Key, Body: body}), http.StatusOK)
	}
	shows := func(what, name, trail string) {
		t.Helper()
		waitJS(t, ctx, what, `(() => {
			const trail = Array.from(document.querySelectorAll('#doc-crumbs a')).map(a => a.textContent).join("|");
			return document.querySelector('[data-testid="doc-title"]').textContent === `+jsString(name)+`
				&& document.querySelector('[data-testid="crumb-current"]').textContent === `+jsString(name)+`
				&& document.title === `+jsString(name+" · Eldoria · Loreweave")+`
				&& trail === `+jsString(trail)+` })()`)
	}

	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+card, `[data-testid="doc-title"]`)
	noReload(t, ctx)
	streamOpen(t, ctx)
	shows("as rendered", "Aria", "Eldoria|Lore|People")

	patch(card, map[string]any{"name": "Aria the Bold"})
	shows("the document renamed", "Aria the Bold", "Eldoria|Lore|People")

	w.apply(t, card, "", map[string]any{"op": "card.rename", "name": "Aria the Brave"})
	shows("the card's own name changed", "Aria the Brave", "Eldoria|Lore|People")

	patch(lore, map[string]any{"name": "Annals"})
	shows("a folder two levels up renamed", "Aria the Brave", "Eldoria|Annals|People")

	patch(people, map[string]any{"parentId": ""})
	shows("its folder moved to the top", "Aria the Brave", "Eldoria|People")

	evil := `<img src=x onerror="window.pwned=1">`
	patch(people, map[string]any{"name": evil})
	shows("a name that looks like markup", "Aria the Brave", "Eldoria|"+evil)
	if eval[bool](t, ctx, `"pwned" in window || !!document.querySelector("#doc-crumbs img")`) {
		t.Fatal("a folder's name became markup")
	}
	if got := eval[string](t, ctx, `Array.from(document.querySelectorAll('#doc-crumbs a')).map(a => a.getAttribute("href")).join()`); got != "/w/"+w.Slug+",/w/"+w.Slug+"/d/"+people {
		t.Fatalf("crumb links %s", got)
	}
	stillSamePage(t, ctx)

	// The server drops the stream, as when it restarts; a folder renamed while the page is
	// disconnected shows once it has reconnected (metadata events are not replayed).
	s.LW.Live.Stop()
	waitConnections(t, s, 0)
	patch(people, map[string]any{"name": "Folk"})
	caughtUp := `Array.from(document.querySelectorAll('#doc-crumbs a')).map(a => a.textContent).join("|") === "Eldoria|Folk"`
	for deadline := time.Now().Add(live.RetryAfterShutdown + 3*time.Second); !eval[bool](t, ctx, caughtUp); time.Sleep(25 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the page did not catch up, once reconnected, with a folder renamed while it was disconnected")
		}
	}
	shows("a folder renamed while disconnected", "Aria the Brave", "Eldoria|Folk")
	stillSamePage(t, ctx)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A live update of a read page keeps the keyboard focus on an element without an id (a link
// in a viewer's card) and the text selection (in a timeline event's label), on their fresh
// copies.
func TestBrowserSwapKeepsFocusAndSelection(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann, vic := s.NewUser("Ann Author"), s.NewUser("Vic Viewer")
	w := newWorld(t, s, ann, "Eldoria")
	s.AddMember(ann, w.ID, vic, "viewer")
	card := w.doc(t, "Aria", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Biography", "body": "Born in [the harbour](https://example.com/harbour) and [the keep](https://example.com/keep)."})
	tl := w.doc(t, "History", "timeline", "", "")
	w.apply(t, tl, "", map[string]any{"op": "timeline.addEvent", "label": "Founding of the harbour", "dateMs": 0})

	signInTo(t, ctx, s, vic, "/w/"+w.Slug+"/d/"+card, `[data-testid="section-body"]`)
	streamOpen(t, ctx)
	link := `document.querySelector('[data-testid="section-body"] a[href$="/keep"]')`
	eval[bool](t, ctx, `(window.__old = `+link+`).focus(), document.activeElement === window.__old && !window.__old.id`)
	w.apply(t, card, "", map[string]any{"op": "card.setProperty", "key": "Born", "value": "Year 312"})
	waitJS(t, ctx, "property shown", `document.querySelector("main").textContent.includes("Year 312")`)
	if !eval[bool](t, ctx, `!window.__old.isConnected && document.activeElement === `+link) {
		t.Fatalf("focus after the update: %s", eval[string](t, ctx, `document.activeElement.outerHTML`))
	}

	do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug+"/d/"+tl), chromedp.WaitVisible(chromedp.CSS(`[data-testid="timeline"]`)))
	streamOpen(t, ctx)
	eval[bool](t, ctx, `(() => { const n = document.querySelector('[data-testid="event-label"]').firstChild;
		window.__old = n; getSelection().setBaseAndExtent(n, 12, n, 3); return true })()`)
	w.apply(t, tl, "", map[string]any{"op": "timeline.addEvent", "label": "Second landing", "dateMs": 86400000})
	waitJS(t, ctx, "new event shown", `document.querySelectorAll('[data-testid="event-label"]').length === 2`)
	if got := eval[string](t, ctx, `(() => { const s = getSelection();
		return [s.toString(), s.anchorNode !== window.__old && s.anchorNode.isConnected, s.anchorOffset, s.focusOffset].join("|") })()`); got != "nding of |true|12|3" {
		t.Fatalf("selection after the update (text|on the fresh node|anchor|focus): %s", got)
	}
}
