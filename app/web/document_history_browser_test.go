package web_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestBrowserDocumentHistory: from a card's page an editor opens its history (the versions'
// summaries in words, new versions arriving live), opens an old version (a banner says
// which), restores it after confirming, and is back on the card with the old text; another
// editor with the card open sees the restored text arrive.
func TestBrowserDocumentHistory(t *testing.T) {
	s := apptest.Start(t)
	ann, bob := s.NewUser("Ann Author"), s.NewUser("Bob Builder")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, bob, "editor")
	card := w.doc(t, "Vharn", "card", "", "")
	api := "/api/v1/worlds/" + w.ID + "/documents/" + card + "/content"
	var r struct{ Ops []map[string]any }
	s.Must(s.Post(ann.Key, api, map[string]any{"ops": []any{
		map[string]any{"op": "card.addSection", "title": "Biography", "body": "Born in the north."}}}), http.StatusOK).JSON(t, &r)
	sec := r.Ops[0]["id"]
	s.Must(s.Post(bob.Key, api, map[string]any{"ops": []any{
		map[string]any{"op": "card.updateSection", "id": sec, "body": "Moved south."}}}), http.StatusOK)
	path := "/w/" + w.Slug + "/d/" + card
	body := `CM.EditorView.findFromDOM(document.querySelector('[data-testid="section-body-editor"] .cm-content')).state.doc.toString()`

	b := browser(t)
	signInTo(t, b, s, bob, path, `[data-testid="section-body-editor"] .cm-content`)

	a := browser(t)
	signInTo(t, a, s, ann, path, `[data-testid="history-link"]`)
	openHistory(t, a)
	summaries := `Array.from(document.querySelectorAll('[data-testid="history-summary"]')).map(e => e.textContent).join(" | ")`
	if got := eval[string](t, a, summaries); got != "edited section “Biography” | added section “Biography”" {
		t.Fatalf("history summaries: %q", got)
	}
	who := eval[string](t, a, `document.querySelector('.history-who').textContent`)
	if who != "Bob Builder" {
		t.Fatalf("the newest version is by %q, want Bob Builder", who)
	}
	// New versions show up while the history is open.
	waitJS(t, a, "history live", `document.querySelector("[data-live-status]").textContent === "Live"`)
	s.Must(s.Post(bob.Key, api, map[string]any{"ops": []any{map[string]any{"op": "card.rename", "name": "Vharn the Bold"}}}), http.StatusOK)
	waitJS(t, a, "the new version listed", `document.querySelector('[data-testid="history-summary"]').textContent === "renamed to “Vharn the Bold”"`)

	do(t, a, chromedp.Click(chromedp.CSS(`[data-testid="history-item"][data-version="1"] [data-testid="history-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="version-banner"]`)))
	banner := eval[string](t, a, `document.querySelector('[data-testid="version-banner"] p').textContent.replace(/\s+/g, " ").trim()`)
	if want := "You are viewing version 1 from "; len(banner) < len(want) || banner[:len(want)] != want {
		t.Fatalf("banner: %q", banner)
	}
	if got := eval[string](t, a, `document.querySelector('[data-testid="section-body"]').textContent.trim()`); got != "Born in the north." {
		t.Fatalf("version 1 shows %q", got)
	}
	shots(t, a, "history-version")

	do(t, a, chromedp.Click(chromedp.CSS(`[data-testid="restore"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="confirm-dialog"]`)))
	shots(t, a, "history-confirm")
	do(t, a, chromedp.Click(chromedp.CSS(`[data-testid="confirm-go"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="section-body-editor"] .cm-content`)))
	waitJS(t, a, "Ann sees the restored text", body+` === "Born in the north."`)
	waitJS(t, b, "Bob sees the restored text", body+` === "Born in the north."`)
	shots(t, a, "history-document")

	openHistory(t, a)
	if got := eval[string](t, a, `document.querySelector('[data-testid="history-summary"]').textContent`); got != "restored version 1" {
		t.Fatalf("the newest version says %q, want restored version 1", got)
	}
	shots(t, a, "history-list")
}

// shots saves screenshots of the page at desktop and phone widths, light and dark (with
// LOREWEAVE_SCREENSHOTS set), checking it never scrolls sideways.
func shots(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	for _, width := range []int64{1366, 390} {
		for _, theme := range []string{"", "starlight"} {
			do(t, ctx, chromedp.EmulateViewport(width, 900))
			eval[bool](t, ctx, fmt.Sprintf(`(document.documentElement.dataset.theme = %q, true)`, theme))
			look(t, ctx, fmt.Sprintf("%s-%d-%s", name, width, map[string]string{"": "light", "starlight": "dark"}[theme]))
		}
	}
	do(t, ctx, chromedp.EmulateViewport(1200, 900))
	eval[bool](t, ctx, `(document.documentElement.dataset.theme = "", true)`)
}

// openHistory follows the document page's History link.
func openHistory(t *testing.T, ctx context.Context) {
	t.Helper()
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="history-link"]`)))
	eval[bool](t, ctx, `(document.querySelector('[data-testid="history-link"]').click(), true)`)
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="history-list"]`)))
}
