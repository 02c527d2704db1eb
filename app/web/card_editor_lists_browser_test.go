package web_test

import (
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestBrowserCardEditorListMarkers: Enter in a list item starts the next item with the same
// marker; a writer who types the marker anyway gets one marker, not two; Enter on an empty
// item ends the list; a marker typed on a line Enter did not start stays as typed.
func TestBrowserCardEditorListMarkers(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	card := w.doc(t, "Vharn", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Cargo", "body": "Holds:\n\n- salt\n\n1. one"})
	sel := `[data-testid="section-body-editor"] .cm-content`
	doc := `CM.EditorView.findFromDOM(document.querySelector('` + sel + `')).state.doc.toString()`
	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+card, sel)
	// End of "- salt".
	do(t, ctx, chromedp.Click(chromedp.CSS(sel)), chromedp.KeyEvent(kb.Home, chromedp.KeyModifiers(kb.ModifierCtrl)),
		chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.End))
	do(t, ctx, enter)
	waitJS(t, ctx, "list continued", doc+` === "Holds:\n\n- salt\n- \n\n1. one"`)
	do(t, ctx, chromedp.KeyEvent("- pepper"), enter, chromedp.KeyEvent("* rope"))
	waitJS(t, ctx, "typed markers kept single", doc+` === "Holds:\n\n- salt\n- pepper\n* rope\n\n1. one"`)
	do(t, ctx, enter, enter, chromedp.KeyEvent("- - -"))
	t.Logf("after the list: %q", eval[string](t, ctx, doc))
	waitJS(t, ctx, "list ended, a rule typed by hand", doc+`.startsWith("Holds:\n\n- salt\n- pepper\n* rope\n") && `+doc+`.endsWith("\n- - -\n\n1. one") && !`+doc+`.includes("rope\n- \n")`)
	do(t, ctx, chromedp.KeyEvent(kb.End, chromedp.KeyModifiers(kb.ModifierCtrl)), enter, chromedp.KeyEvent("2. two"))
	waitJS(t, ctx, "numbered item kept single", doc+`.endsWith("\n1. one\n2. two")`)
}

// enter presses Enter as a keyboard does: one keydown that carries the new line, which a
// page that handles the key (CodeMirror's keymap) cancels. chromedp.KeyEvent sends the
// text as a separate char event instead, which nothing cancels: every Enter would insert a
// second line break.
var enter = chromedp.KeyEvent(kb.Enter, func(k *input.DispatchKeyEventParams) {
	switch k.Type {
	case kb.KeyDown:
		k.Text, k.UnmodifiedText = "\r", "\r"
	case kb.KeyChar:
		k.Modifiers |= int64(kb.ModifierAlt) // KeyEvent drops a char event with Alt held
	}
})
