package web_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestBrowserCardEditorRedoAfterRemoteTyping: text undone, then someone else types in the
// same section, comes back whole on redo, at its place in the changed text.
func TestBrowserCardEditorRedoAfterRemoteTyping(t *testing.T) {
	s := apptest.Start(t)
	ann, bob := s.NewUser("Ann Author"), s.NewUser("Bob Builder")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, bob, "editor")
	card := w.doc(t, "Vharn", "card", "", "")
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.addSection", "title": "Notes", "body": "Hello world."}}}), http.StatusOK)
	path := "/w/" + w.Slug + "/d/" + card
	a, b := browser(t), browser(t)
	sel := `[data-testid="section-body-editor"] .cm-content`
	doc := `CM.EditorView.findFromDOM(document.querySelector('` + sel + `')).state.doc.toString()`
	signInTo(t, a, s, ann, path, sel)
	signInTo(t, b, s, bob, path, sel)
	do(t, a, chromedp.Click(chromedp.CSS(sel)), chromedp.KeyEvent(kb.End), chromedp.KeyEvent(" Tidal"))
	waitJS(t, b, "Bob sees Ann's typing", doc+` === "Hello world. Tidal"`)
	do(t, a, chromedp.KeyEvent("z", chromedp.KeyModifiers(kb.ModifierCtrl)))
	waitJS(t, a, "undone", doc+` === "Hello world."`)
	waitJS(t, b, "Bob sees the undo", doc+` === "Hello world."`)
	do(t, b, chromedp.Click(chromedp.CSS(sel)), chromedp.KeyEvent(kb.Home), chromedp.KeyEvent("Oh, "),
		chromedp.KeyEvent(kb.End), chromedp.KeyEvent(" Bye."))
	waitJS(t, a, "Ann sees Bob's typing", doc+` === "Oh, Hello world. Bye."`)
	time.Sleep(300 * time.Millisecond)
	do(t, a, chromedp.KeyEvent("Z", chromedp.KeyModifiers(kb.ModifierCtrl, kb.ModifierShift)))
	waitJS(t, a, "redone", `["Oh, Hello world. Tidal Bye.", "Oh, Hello world. Bye. Tidal"].includes(`+doc+`)`)
	waitJS(t, b, "Bob in step", doc+` === `+jsString(eval[string](t, a, doc)))
}

// TestBrowserCardEditorFolderRedoAfterTheirDescription: in the folder description (set
// whole, taken in with LoreCM.replace), a word undone comes back on redo at its place after
// someone else changed the text before and after it.
func TestBrowserCardEditorFolderRedoAfterTheirDescription(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	folder := w.doc(t, "Places", "folder", "", "")
	w.apply(t, folder, "", map[string]any{"op": "folder.setDescription", "description": "Where ships rest."})
	sel := `[data-testid="folder-description-editor"] .cm-content`
	doc := `CM.EditorView.findFromDOM(document.querySelector('` + sel + `')).state.doc.toString()`
	saved := `document.querySelector('[data-testid="folder-editor"] [data-testid="save-status"]').textContent === "All changes saved"`
	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+folder, sel)
	streamOpen(t, ctx)
	do(t, ctx, chromedp.Click(chromedp.CSS(sel)), chromedp.KeyEvent(kb.Home), chromedp.KeyEvent(kb.ArrowRight))
	for range 4 {
		do(t, ctx, chromedp.KeyEvent(kb.ArrowRight))
	}
	do(t, ctx, chromedp.KeyEvent(" tall"))
	waitJS(t, ctx, "typed", doc+` === "Where tall ships rest."`)
	waitJSFor(t, ctx, 5*time.Second, "saved", saved)
	do(t, ctx, chromedp.KeyEvent("z", chromedp.KeyModifiers(kb.ModifierCtrl)))
	waitJS(t, ctx, "undone", doc+` === "Where ships rest."`)
	waitJSFor(t, ctx, 5*time.Second, "undo saved", saved)
	w.apply(t, folder, "", map[string]any{"op": "folder.setDescription", "description": "Oh! Where ships rest. Bye."})
	waitJS(t, ctx, "their description", doc+` === "Oh! Where ships rest. Bye."`)
	do(t, ctx, chromedp.KeyEvent("Z", chromedp.KeyModifiers(kb.ModifierCtrl, kb.ModifierShift)))
	t.Logf("after redo: %q", eval[string](t, ctx, doc))
	waitJS(t, ctx, "redone in place", doc+` === "Oh! Where tall ships rest. Bye."`)
}
