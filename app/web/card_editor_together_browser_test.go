package web_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestBrowserTypingAtTheSamePlace: two people typing at the end of the same line keep their
// words in one piece each (not interleaved), and undo and redo then take back and bring back
// only one's own typing.
func TestBrowserTypingAtTheSamePlace(t *testing.T) {
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
	signInTo(t, a, s, ann, path, sel)
	signInTo(t, b, s, bob, path, sel)
	do(t, a, chromedp.Click(chromedp.CSS(sel)), chromedp.KeyEvent(kb.End))
	do(t, b, chromedp.Click(chromedp.CSS(sel)), chromedp.KeyEvent(kb.End))
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); chromedp.Run(a, chromedp.KeyEvent(strings.Repeat("A", 20))) }()
	go func() { defer wg.Done(); chromedp.Run(b, chromedp.KeyEvent(strings.Repeat("b", 20))) }()
	wg.Wait()
	time.Sleep(1500 * time.Millisecond)
	do(t, a, chromedp.KeyEvent(" undo-me"))
	time.Sleep(1000 * time.Millisecond) // undo-me becomes its own history event
	doc := `CM.EditorView.findFromDOM(document.querySelector('` + sel + `')).state.doc.toString()`
	// Each person's words stay in one piece: where both type at one point, the writer with
	// the smaller client id goes first every time (ops/ot.go).
	count := func(c string) string { return doc + `.split("` + c + `").length - 1` }
	waitJS(t, a, "all typed", count("A")+` === 20 && `+count("b")+` === 20 && `+doc+`.includes(" undo-me")`)
	if got := eval[string](t, a, doc); !strings.Contains(got, strings.Repeat("A", 20)) || !strings.Contains(got, strings.Repeat("b", 20)) {
		t.Fatalf("the two runs of typing are interleaved: %q", got)
	}
	t.Logf("together: %q", eval[string](t, a, doc))
	do(t, a, chromedp.KeyEvent("z", chromedp.KeyModifiers(kb.ModifierCtrl)))
	waitJS(t, a, "undone", `!`+doc+`.includes("undo-me") && `+count("A")+` === 20 && `+count("b")+` === 20`)
	do(t, a, chromedp.KeyEvent("Z", chromedp.KeyModifiers(kb.ModifierCtrl, kb.ModifierShift)))
	waitJS(t, a, "redone", doc+`.includes(" undo-me") && `+count("A")+` === 20 && `+count("b")+` === 20`)
	waitJS(t, b, "Bob in step", doc+` === `+jsString(eval[string](t, a, doc)))
}

// TestBrowserSectionRemovedWhileTyping: Bob, on a phone, is writing in a section when Ann
// removes it. The notice that says so takes his focus and stays in view while he types on
// for a moment (a space on it used to scroll the page away from it), and names her.
func TestBrowserSectionRemovedWhileTyping(t *testing.T) {
	s := apptest.Start(t)
	ann, bob := s.NewUser("Ann Author"), s.NewUser("Bob Builder")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, bob, "editor")
	card := w.doc(t, "Vharn", "card", "", "")
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.addSection", "title": "Biography", "body": strings.Repeat("Born in the north, raised by the tide.\n\n", 8)},
		map[string]any{"op": "card.addSection", "title": "Legends", "body": "Some say she still walks the shore."}}}), http.StatusOK)
	path := "/w/" + w.Slug + "/d/" + card
	a, b := browser(t), browser(t)
	do(t, b, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch))
	legends := `[data-testid="section-editor"]:nth-child(2) .cm-content`
	signInTo(t, a, s, ann, path, legends)
	signInTo(t, b, s, bob, path, legends)
	streamOpen(t, b)
	do(t, b, chromedp.Click(chromedp.CSS(legends)), chromedp.KeyEvent(kb.End), chromedp.KeyEvent(" Others say"))
	do(t, a, chromedp.Click(chromedp.CSS(`[data-testid="section-editor"]:nth-child(2) [data-testid="section-remove"]`)))
	waitJS(t, a, "confirmation", `document.querySelector("#remove-section-dialog").open`)
	do(t, a, chromedp.Click(chromedp.CSS(`[data-testid="confirm-remove"]`)))
	waitJS(t, b, "focus on the notice", `document.activeElement.matches('[data-testid="section-removed"]')`)
	if got := eval[string](t, b, `document.querySelector('[data-testid="section-removed"] p').textContent`); !strings.HasPrefix(got, "Ann Author removed the section “Legends”") {
		t.Fatalf("notice %q", got)
	}
	do(t, b, chromedp.KeyEvent(" she drowned at sea and was never found"))
	time.Sleep(600 * time.Millisecond) // a page scroll is smooth: let one end
	if !eval[bool](t, b, `(() => { const r = document.querySelector('[data-testid="section-removed"]').getBoundingClientRect();
		return r.top >= 0 && r.bottom <= innerHeight })()`) {
		t.Fatalf("the notice is out of view: %v", eval[any](t, b, `[document.querySelector('[data-testid="section-removed"]').getBoundingClientRect().top, scrollY, innerHeight]`))
	}
}
