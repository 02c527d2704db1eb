package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestBrowserCardEditorPasteWindowsLineEndings: a paragraph pasted with Windows line
// endings (\r\n, as many clipboards hold it) goes in with \n, as the server stores it, so
// the editor's text and the server's stay the same and later edits land where they are typed.
func TestBrowserCardEditorPasteWindowsLineEndings(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	card := w.doc(t, "Vharn", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Notes", "body": "Start."})
	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+card, `[data-testid="card-editor"]`)
	sel := `[data-testid="section-body-editor"] .cm-content`
	doc := `CM.EditorView.findFromDOM(document.querySelector('` + sel + `')).state.doc.toString()`
	do(t, ctx, chromedp.Click(chromedp.CSS(sel)), chromedp.KeyEvent(kb.End))
	eval[bool](t, ctx, `(() => { const dt = new DataTransfer(); dt.setData("text/plain", "\r\nThe tide came in.\r\nNobody rang the bells.\rEnd.");
		return document.querySelector('`+sel+`').dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true })) })()`)
	do(t, ctx, chromedp.KeyEvent(" Later."))
	want := "Start.\nThe tide came in.\nNobody rang the bells.\nEnd. Later."
	waitJS(t, ctx, "saved", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
	if got := eval[string](t, ctx, doc); got != want {
		t.Fatalf("editor %q, want %q", got, want)
	}
	if data, _ := cardData(t, s, ann.Key, w.ID, card); data.Sections[0].Body != want {
		t.Fatalf("server %q, want %q", data.Sections[0].Body, want)
	}
}
