package web_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestBrowserDocumentHistory: from a card's page an editor opens its history (the versions'
// summaries in words, new versions arriving live, a person's versions one after another in
// one row, which the keyboard opens to reach each of them), opens an old version (a banner
// says which), restores it after confirming, and is back on the card with the old text;
// another editor with the card open sees the restored text arrive.
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
	// New versions show up while the history is open: Bob's second joins his row.
	waitJS(t, a, "history live", `document.querySelector("[data-live-status]").textContent === "Live"`)
	s.Must(s.Post(bob.Key, api, map[string]any{"ops": []any{map[string]any{"op": "card.rename", "name": "Vharn the Bold"}}}), http.StatusOK)
	waitJS(t, a, "the new version listed", `document.querySelector('[data-testid="history-summary"]').textContent === "renamed to “Vharn the Bold”; edited section “Biography”"`)
	if n := eval[int](t, a, `document.querySelectorAll('[data-testid="history-item"]').length`); n != 2 {
		t.Fatalf("%d rows after Bob's second version, want his and Ann's", n)
	}

	// The keyboard opens Bob's row and reaches each of his versions.
	do(t, a, chromedp.Focus(chromedp.CSS(`[data-testid="history-open"]`)), chromedp.KeyEvent(kb.Tab))
	waitJS(t, a, "tab to the row's versions", `document.activeElement.matches('[data-testid="history-group-toggle"]') && document.activeElement.textContent === "2 changes, one by one"`)
	do(t, a, chromedp.KeyEvent(kb.Enter))
	waitJS(t, a, "the row opened", `document.querySelector('[data-testid="history-group"]').open`)
	do(t, a, chromedp.KeyEvent(kb.Tab))
	waitJS(t, a, "tab to the newest version", `document.activeElement.getAttribute("aria-label") === "Version 3, as it was"`)
	do(t, a, chromedp.KeyEvent(kb.Tab))
	waitJS(t, a, "tab to the next", `document.activeElement.getAttribute("aria-label") === "Version 2, as it was"`)
	if got := eval[string](t, a, `Array.from(document.querySelectorAll('[data-testid="history-entry-summary"]')).map(e => e.textContent).join(" | ")`); got != "renamed to “Vharn the Bold” | edited section “Biography”" {
		t.Fatalf("Bob's versions one by one: %q", got)
	}
	// Another version by Bob while his row is open: it stays open, and the focus where it was.
	s.Must(s.Post(bob.Key, api, map[string]any{"ops": []any{map[string]any{"op": "card.setProperty", "key": "Home", "value": "Tidewater"}}}), http.StatusOK)
	waitJS(t, a, "the row grew", `document.querySelector('[data-testid="history-group-toggle"]').textContent === "3 changes, one by one"`)
	if !eval[bool](t, a, `document.querySelector('[data-testid="history-group"]').open && document.activeElement.getAttribute("aria-label") === "Version 2, as it was"`) {
		t.Fatal("a new version closed the open row or moved the focus")
	}
	axe := axeSource(t)
	accessible(t, a, axe, "history with a row open")
	eval[bool](t, a, `(document.documentElement.dataset.theme = "starlight", true)`)
	accessible(t, a, axe, "history with a row open, dark")
	eval[bool](t, a, `(document.documentElement.dataset.theme = "", true)`)
	shots(t, a, "history-groups")

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

// TestBrowserDocumentHistorySittings: the history of a card two people wrote over four days,
// as a writer sees it (screenshots with LOREWEAVE_SCREENSHOTS): a row a sitting, with its
// times and what it changed; a row opened shows its versions one by one; Older versions.
func TestBrowserDocumentHistorySittings(t *testing.T) {
	s := apptest.Start(t)
	ann, bob := s.NewUser("Ann Author"), s.NewUser("Bob Builder")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, bob, "editor")
	card := w.doc(t, "Vharn", "card", "", "")
	api := "/api/v1/worlds/" + w.ID + "/documents/" + card + "/content"
	sections := map[string]any{}
	write := func(u apptest.User, op map[string]any) {
		var r struct{ Ops []map[string]any }
		s.Must(s.Post(u.Key, api, map[string]any{"ops": []any{op}}), http.StatusOK).JSON(t, &r)
		if op["op"] == "card.addSection" {
			sections[op["title"].(string)] = r.Ops[0]["id"]
		}
	}
	add := func(u apptest.User, title string) {
		write(u, map[string]any{"op": "card.addSection", "title": title, "body": "…"})
	}
	edit := func(u apptest.User, title string, n int) {
		for i := range n {
			write(u, map[string]any{"op": "card.updateSection", "id": sections[title], "body": fmt.Sprintf("Draft %d", i)})
		}
	}
	var created []time.Time
	sitting := func(start time.Time, write func()) {
		from := s.Count("document_ops", "document = '"+card+"'")
		write()
		for i := range s.Count("document_ops", "document = '"+card+"'") - from {
			created = append(created, start.Add(time.Duration(i)*47*time.Second))
		}
	}
	now := time.Now()
	for i := range 22 {
		sitting(now.Add(-time.Duration(100-i)*time.Hour), func() {
			write([]apptest.User{ann, bob}[i%2], map[string]any{"op": "card.setProperty", "key": "Notes", "value": fmt.Sprint(i)})
		})
	}
	sitting(now.Add(-50*time.Hour), func() { add(ann, "Biography"); add(ann, "Appearance"); edit(ann, "Biography", 6) })
	sitting(now.Add(-26*time.Hour), func() {
		for _, k := range []string{"Born", "Home", "Eyes", "Height", "Ship", "Rank", "Crew"} {
			write(bob, map[string]any{"op": "card.setProperty", "key": k, "value": "?"})
		}
	})
	sitting(now.Add(-3*time.Hour), func() { add(ann, "Backstory"); edit(ann, "Backstory", 12); edit(ann, "Appearance", 2) })
	sitting(now.Add(-40*time.Minute), func() { write(bob, map[string]any{"op": "card.rename", "name": "Vharn the Bold"}) })
	sitting(now.Add(-5*time.Minute), func() { edit(ann, "Biography", 4) })
	backdate(t, s, card, created)

	ctx := browser(t)
	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+card+"/history", `[data-testid="history-list"]`)
	rows := `Array.from(document.querySelectorAll('[data-testid="history-item"]')).slice(0, 5).map(e => e.querySelector(".history-who").textContent + ": " + e.querySelector('[data-testid="history-summary"]').textContent).join(" | ")`
	want := "Ann Author: edited section “Biography” | Bob Builder: renamed to “Vharn the Bold” | " +
		"Ann Author: edited section “Appearance”; edited section “Backstory”; added section “Backstory” | " +
		"Bob Builder: set property “Crew”; set property “Rank”; set property “Ship”; set property “Height”; and 3 more | " +
		"Ann Author: edited section “Biography”; added section “Appearance”; added section “Biography”"
	if got := eval[string](t, ctx, rows); got != want {
		t.Fatalf("rows:\n%s\nwant\n%s", got, want)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="history-item"]:nth-child(3) [data-testid="history-group-toggle"]`)))
	waitJS(t, ctx, "the row opened", `document.querySelector('[data-testid="history-item"]:nth-child(3) details').open`)
	shots(t, ctx, "history-sittings")
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="history-older"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="history-newest"]`)))
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="history-item"]').dataset.version`); got != "2" {
		t.Fatalf("the second page starts at version %s, want 2", got)
	}
	shots(t, ctx, "history-sittings-older")
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
