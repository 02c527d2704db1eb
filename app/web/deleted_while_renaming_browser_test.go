package web_test

import (
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
)

// A document someone else deletes while its rename box is open on the world page: the page
// says so and the keyboard lands on the list's heading, not nowhere.
func TestBrowserDeletedWhileRenaming(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann, bob := s.NewUser("Ann Author"), s.NewUser("Bob Builder")
	w := newWorld(t, s, ann, "Eldoria")
	s.AddMember(ann, w.ID, bob, "editor")
	scratch := w.doc(t, "Scratch", "card", "", "")
	signInTo(t, ctx, s, bob, "/w/"+w.Slug, `#documents`)
	streamOpen(t, ctx)
	do(t, ctx, chromedp.Click(chromedp.CSS(`#act-rename-`+scratch)))
	field := `#documents li[data-id="` + scratch + `"] form[data-organise-form="rename"] input[name="name"]`
	waitJS(t, ctx, "rename field focused", `document.activeElement === document.querySelector('`+field+`')`)

	s.Must(s.Do(apptest.Request{Method: http.MethodDelete, Path: "/api/v1/worlds/" + w.ID + "/documents/" + scratch, Key: ann.Key}), http.StatusNoContent)
	waitJS(t, ctx, "told, and the focus on the heading", `!document.querySelector("#doc-`+scratch+`")
		&& document.querySelector('[data-testid="organise-status"]').textContent === "“Scratch” was deleted meanwhile."
		&& document.activeElement === document.getElementById("docs-title")`)
}
