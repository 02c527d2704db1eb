package web_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestBrowserSecretSections: an editor marks a section secret with its Secret toggle (from
// the keyboard); the viewer's open page loses the section live, and the mark another editor
// takes off shows in the editor's page live, giving the section back to the viewer.
func TestBrowserSecretSections(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann, ed, vi := s.NewUser("Ann Author"), s.NewUser("Ed Editor"), s.NewUser("Vi Viewer")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, ed, "editor")
	s.AddMember(ann, w.ID, vi, "viewer")
	card := w.doc(t, "Vharn", "card", "", "")
	w.apply(t, card, "",
		map[string]any{"op": "card.addSection", "title": "Early life", "body": "Born at sea, during the **Great Storm**."},
		map[string]any{"op": "card.addSection", "title": "Plot", "body": "She will sink the *zephyrword* fleet in the last act.", "secret": true})
	path := "/w/" + w.Slug + "/d/" + card
	first, second := `[data-testid="section-editor"]:nth-child(1)`, `[data-testid="section-editor"]:nth-child(2)`

	signInTo(t, ctx, s, ann, path, `[data-testid="card-editor"] .cm-content`)
	waitJS(t, ctx, "marks as loaded", `document.querySelector('`+second+` [data-testid="section-secret"]').getAttribute("aria-pressed") === "true" &&
		document.querySelector('`+first+` [data-testid="section-secret"]').getAttribute("aria-pressed") === "false" &&
		!document.querySelector('`+second+` [data-testid="section-secret-note"]').hidden && document.querySelector('`+first+` [data-testid="section-secret-note"]').hidden`)
	if label := eval[string](t, ctx, `document.querySelector('`+first+` [data-testid="section-secret"]').getAttribute("aria-label")`); label != "Secret: only editors see section Early life" {
		t.Fatalf("toggle label %q", label)
	}

	viCtx := browser(t)
	signInTo(t, viCtx, s, vi, path, `[data-testid="section"]`)
	waitJS(t, viCtx, "the viewer's one section", `document.querySelectorAll('[data-testid="section"]').length === 1 && !document.body.textContent.includes("zephyrword")`)
	streamOpen(t, viCtx)
	noReload(t, viCtx)

	// Ann marks "Early life" secret from the keyboard.
	do(t, ctx, chromedp.Focus(chromedp.CSS(first+` [data-testid="section-secret"]`)), chromedp.KeyEvent(kb.Enter))
	waitJS(t, ctx, "Early life marked", `document.querySelector('`+first+` [data-testid="section-secret"]').getAttribute("aria-pressed") === "true" && !document.querySelector('`+first+` [data-testid="section-secret-note"]').hidden`)
	data, _ := cardData(t, s, ann.Key, w.ID, card)
	var raw struct {
		Content struct {
			Data struct{ Sections []struct{ Secret bool } }
		}
	}
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card), http.StatusOK).JSON(t, &raw)
	if len(raw.Content.Data.Sections) != 2 || !raw.Content.Data.Sections[0].Secret || data.Sections[0].Title != "Early life" {
		t.Fatalf("after the toggle: %+v", raw.Content.Data.Sections)
	}
	waitJSFor(t, viCtx, liveWait, "the viewer's page loses the section", `document.querySelectorAll('[data-testid="section"]').length === 0 && !document.body.textContent.includes("Great Storm")`)
	stillSamePage(t, viCtx)

	// Ed takes the mark off "Plot": Ann's editor shows it, the viewer gets the section.
	s.Must(s.Post(ed.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.setSectionSecret", "id": data.Sections[1].ID, "secret": false}}}), http.StatusOK)
	waitJSFor(t, ctx, liveWait, "Plot unmarked in Ann's editor", `document.querySelector('`+second+` [data-testid="section-secret"]').getAttribute("aria-pressed") === "false" && document.querySelector('`+second+` [data-testid="section-secret-note"]').hidden`)
	waitJSFor(t, viCtx, liveWait, "the viewer gets Plot", `document.querySelectorAll('[data-testid="section"]').length === 1 && document.body.textContent.includes("zephyrword") && !document.body.textContent.includes("Great Storm")`)

	for _, width := range []int64{1366, 390} {
		for _, theme := range []string{"light", "starlight"} {
			do(t, ctx, chromedp.EmulateViewport(width, 900))
			do(t, viCtx, chromedp.EmulateViewport(width, 900))
			setTheme := `document.documentElement.dataset.theme = "` + theme + `"; true`
			if theme == "light" {
				setTheme = `delete document.documentElement.dataset.theme; true`
			}
			eval[bool](t, ctx, setTheme)
			eval[bool](t, viCtx, setTheme)
			look(t, ctx, fmt.Sprintf("secret-editor-%s-%d", theme, width))
			look(t, viCtx, fmt.Sprintf("secret-viewer-%s-%d", theme, width))
		}
	}
}
