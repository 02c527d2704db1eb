package web_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
)

// The world settings page in a real browser: renaming the world and changing its genre, and
// renaming and deleting an era, show at once on the world page open in another tab; deleting
// the world (after confirming) ends that tab's live view and puts the world in the trash on
// the worlds page, and Restore opens it again. The settings page and the trash pass axe-core.
func TestBrowserWorldSettings(t *testing.T) {
	axe := axeSource(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Eldoria")
	var age, late struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/eras", map[string]any{"name": "Bronze Age"}), http.StatusCreated).JSON(t, &age)
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/eras", map[string]any{"name": "Late Bronze", "parentId": age.ID}), http.StatusCreated).JSON(t, &late)
	w.doc(t, "Harbour", "card", "", "")
	worldPage := "/w/" + w.Slug

	a := browser(t)
	signInTo(t, a, s, ann, worldPage, `#documents`)
	waitJS(t, a, "world page live", `document.querySelector("[data-live-status]").textContent === "Live"`)

	b := browser(t)
	signInTo(t, b, s, ann, worldPage, `[data-testid="world-settings"]`)
	look(t, b, "world-page-with-settings-link")
	do(t, b, chromedp.Click(chromedp.CSS(`[data-testid="world-settings"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="world-settings-form"]`)))
	accessible(t, b, axe, "world-settings")
	shots(t, b, "world-settings")

	// Rename and a new genre: the other tab's heading, tab title and theme follow.
	setValue := func(sel, v string) {
		eval[bool](t, b, fmt.Sprintf(`(document.querySelector(%q).value = %q, true)`, sel, v))
	}
	setValue("#settings-name", "Eldoria Reborn")
	setValue("#settings-genre", "sci-fi")
	do(t, b, chromedp.Click(chromedp.CSS(`[data-testid="settings-save"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="notice"]`)))
	waitJS(t, a, "the new name on the world page", `document.querySelector('[data-testid="world-name"]').textContent === "Eldoria Reborn"`)
	waitJS(t, a, "the new tab title", `document.title.startsWith("Eldoria Reborn")`)
	waitJS(t, a, "the new theme", `document.documentElement.dataset.theme === "starlight"`)
	waitJS(t, a, "the new genre", `document.querySelector("[data-world-genre]").textContent.trim() === "sci-fi ·"`)

	// A blank name is refused in words next to the field.
	setValue("#settings-name", " ")
	eval[bool](t, b, `(document.querySelector('[data-testid="world-settings-form"]').noValidate = true, true)`)
	do(t, b, chromedp.Click(chromedp.CSS(`[data-testid="settings-save"]`)), chromedp.WaitVisible(chromedp.CSS(`#settings-name-error`)))
	shots(t, b, "world-settings-refused")

	// Eras: renamed, then the child deleted after confirming.
	era := `li[data-id="` + age.ID + `"] `
	eval[bool](t, b, fmt.Sprintf(`(document.querySelector(%q).value = "Iron Age", true)`, era+`[data-testid="era-name"]`))
	do(t, b, chromedp.Click(chromedp.CSS(era+`[data-testid="era-rename"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="notice"]`)))
	waitJS(t, a, "the renamed era", `document.querySelector('#eras li[data-id="`+age.ID+`"] a').textContent === "Iron Age"`)
	do(t, b, chromedp.Click(chromedp.CSS(`li[data-id="`+late.ID+`"] [data-testid="era-delete"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="confirm-dialog"]`)))
	do(t, b, chromedp.Click(chromedp.CSS(`[data-testid="confirm-go"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="notice"]`)))
	waitJS(t, a, "the deleted era gone", `!document.querySelector('#eras li[data-id="`+late.ID+`"]')`)

	// Delete the world: the other tab's live view ends, the trash lists it, Restore brings it back.
	do(t, b, chromedp.Click(chromedp.CSS(`[data-testid="world-delete"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="confirm-dialog"]`)))
	shots(t, b, "world-delete-confirm")
	do(t, b, chromedp.Click(chromedp.CSS(`[data-testid="confirm-go"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="trash"]`)))
	waitJS(t, a, "the world page told", `document.querySelector("[data-live-status]").textContent === "Not live: this world was deleted"`)
	if got := eval[string](t, b, `document.querySelector('[data-testid="trash-days-left"]').textContent.replace(/\s+/g, " ").trim()`); got == "" {
		t.Fatal("the trash does not say how long is left")
	}
	accessible(t, b, axe, "worlds-trash")
	shots(t, b, "worlds-trash")
	do(t, b, chromedp.Click(chromedp.CSS(`[data-testid="trash-restore"]`)), chromedp.WaitVisible(chromedp.CSS(`#documents`)))
	if got := eval[string](t, b, `document.querySelector('[data-testid="world-name"]').textContent`); got != "Eldoria Reborn" {
		t.Fatalf("restored world page shows %q", got)
	}
	waitJS(t, b, "the restored world's document", `!!document.querySelector('[data-testid="document"]')`)
	var st struct{ TotalItems int }
	s.Must(s.Get(ann.Key, "/api/v1/trash"), http.StatusOK).JSON(t, &st)
	if st.TotalItems != 0 {
		t.Fatalf("trash after restore: %+v", st)
	}
}
