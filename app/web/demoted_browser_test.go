package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// An editor made a viewer while writing is told in words that they can no longer edit, why it
// may be, and that what they wrote since the last save is still there to copy; the editor
// stops taking text.
func TestBrowserEditorMadeViewerWhileWriting(t *testing.T) {
	s := apptest.Start(t)
	ann, ed := s.NewUser("Ann Author"), s.NewUser("Ed Editor")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, ed, "editor")
	card := w.doc(t, "Vharn", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Biography", "body": "Born in the north."})

	ctx := browser(t)
	sel := `[data-testid="section-body-editor"] .cm-content`
	signInTo(t, ctx, s, ed, "/w/"+w.Slug+"/d/"+card, sel)
	streamOpen(t, ctx)
	saved := `document.querySelector("[data-save-status]").textContent === "All changes saved"`
	do(t, ctx, chromedp.Click(chromedp.CSS(sel)), chromedp.KeyEvent(kb.End), chromedp.KeyEvent(" She sailed"))
	waitJS(t, ctx, "saved", `CM.EditorView.findFromDOM(document.querySelector('`+sel+`')).state.doc.toString().endsWith("She sailed") && `+saved)

	s.Must(s.Do(apptest.Request{Method: http.MethodPatch, Path: "/api/v1/worlds/" + w.ID + "/members/" + ed.ID, Key: ann.Key,
		Body: map[string]any{"role": "viewer"}}), http.StatusOK)
	do(t, ctx, chromedp.KeyEvent(" south."))
	waitJS(t, ctx, "told", `document.querySelector("[data-save-status]").textContent.startsWith("You can no longer edit")`)
	got := eval[string](t, ctx, `document.querySelector("[data-save-status]").textContent`)
	if !strings.Contains(got, "your role in this world may have changed") || !strings.Contains(got, "What you wrote since the last save is still here") {
		t.Fatalf("the editor says %q", got)
	}
	if text := eval[string](t, ctx, `CM.EditorView.findFromDOM(document.querySelector('`+sel+`')).state.doc.toString()`); !strings.HasSuffix(text, "She sailed south.") {
		t.Fatalf("the section holds %q, not what was typed", text)
	}
	if eval[bool](t, ctx, `document.querySelector('`+sel+`').isContentEditable`) {
		t.Fatal("the section still takes text")
	}
}
