package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// sectionBody is the first section's text in the card editor.
const sectionBody = `[data-testid="section-body-editor"] .cm-content`

// editorText is the first section editor's text, as CodeMirror holds it.
const editorText = `CM.EditorView.findFromDOM(document.querySelector('` + sectionBody + `')).state.doc.toString()`

// pickerOffers is true when the link picker is open with its selected option starting with name.
func pickerOffers(name string) string {
	return `(() => { const o = document.querySelector('.cm-tooltip-autocomplete [role=option][aria-selected=true]');
		return !!o && o.textContent.startsWith(` + fmt.Sprintf("%q", name) + `) })()`
}

// settle waits out the picker's interaction delay (CodeMirror ignores Enter and clicks for
// 75 ms after the options change, so that a keystroke meant for the text does not pick).
func settle(t *testing.T, ctx context.Context) {
	t.Helper()
	do(t, ctx, chromedp.Sleep(150*time.Millisecond))
}

// hover moves the mouse to the middle of the element sel.
func hover(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	xy := eval[[]float64](t, ctx, `(() => { const r = document.querySelector(`+fmt.Sprintf("%q", sel)+`).getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2] })()`)
	do(t, ctx, chromedp.MouseEvent(chromedp.MouseMoved, xy[0], xy[1]))
}

// TestBrowserLinkPicker: in a card's section, typing [[Vh offers Vharn in an ARIA combobox;
// Enter picks it; the stored text holds [[doc:ID]] while the editor shows a chip named
// Vharn, which Backspace deletes whole; @ opens the picker too, Escape closes it and the
// mouse picks.
func TestBrowserLinkPicker(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	vharn := w.doc(t, "Vharn", "card", "", "")
	salt := w.doc(t, "Saltmarsh", "card", "", "")
	card := w.doc(t, "Aria", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Life", "body": "Friend of "})
	s.WaitSearchable(ann.Key, w.ID, "Saltmarsh")
	path := "/w/" + w.Slug + "/d/" + card
	signInTo(t, ctx, s, ann, path, sectionBody)
	waitJS(t, ctx, "saved state", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)

	do(t, ctx, chromedp.Click(chromedp.CSS(sectionBody)), chromedp.KeyEvent(kb.End), chromedp.KeyEvent("[[Vh"))
	waitJS(t, ctx, "Vharn offered", pickerOffers("Vharn"))
	// A combobox: the text box owns the listbox and points at the selected option.
	if !eval[bool](t, ctx, `(() => { const c = document.querySelector('`+sectionBody+`'), l = document.querySelector('.cm-tooltip-autocomplete [role=listbox]');
		return c.getAttribute("aria-autocomplete") === "list" && c.getAttribute("aria-haspopup") === "listbox" && c.getAttribute("aria-controls") === l.id &&
			c.getAttribute("aria-activedescendant") === l.querySelector('[aria-selected=true]').id && l.getAttribute("aria-label") === "Documents to link" })()`) {
		t.Fatalf("not an ARIA combobox: %s", eval[string](t, ctx, `document.querySelector('.cm-tooltip-autocomplete').outerHTML`))
	}
	settle(t, ctx)
	do(t, ctx, enter)
	waitJS(t, ctx, "chip", `(() => { const c = document.querySelector('`+sectionBody+` .cm-doclink'); return !!c && c.textContent === "Vharn" })()`)
	if txt := eval[string](t, ctx, `document.querySelector('`+sectionBody+`').textContent`); strings.Contains(txt, "doc:") || txt != "Friend of Vharn" {
		t.Fatalf("the editor shows %q", txt)
	}
	waitJS(t, ctx, "saved", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
	if data, _ := cardData(t, s, ann.Key, w.ID, card); data.Sections[0].Body != "Friend of [[doc:"+vharn+"]]" {
		t.Fatalf("stored %q", data.Sections[0].Body)
	}
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="link-announcer"]').textContent`); got != "Linked to Vharn" {
		t.Fatalf("announced %q", got)
	}

	// The chip is one unit: Backspace deletes it whole.
	do(t, ctx, chromedp.KeyEvent(kb.Backspace))
	waitJS(t, ctx, "chip deleted", editorText+` === "Friend of "`)

	// @ opens the picker; Escape closes it and leaves the text.
	do(t, ctx, chromedp.KeyEvent("@Sal"))
	waitJS(t, ctx, "Saltmarsh offered", pickerOffers("Saltmarsh"))
	do(t, ctx, chromedp.KeyEvent(kb.Escape))
	waitJS(t, ctx, "closed", `!document.querySelector('.cm-tooltip-autocomplete') && `+editorText+` === "Friend of @Sal"`)
	// After @, a word that names nothing offers nothing (no "Create" alone, that Enter would pick).
	do(t, ctx, chromedp.KeyEvent(" @Zzq"))
	do(t, ctx, chromedp.Sleep(600*time.Millisecond))
	if eval[bool](t, ctx, `!!document.querySelector('.cm-tooltip-autocomplete')`) {
		t.Fatal("the picker offers something for @Zzq")
	}
	for range " @Zzq" {
		do(t, ctx, chromedp.KeyEvent(kb.Backspace))
	}
	// The mouse picks.
	do(t, ctx, chromedp.KeyEvent("t"))
	waitJS(t, ctx, "Saltmarsh offered", pickerOffers("Saltmarsh"))
	settle(t, ctx)
	do(t, ctx, chromedp.Click(chromedp.CSS(`.cm-tooltip-autocomplete [role=option]`)))
	waitJS(t, ctx, "linked by mouse", editorText+` === "Friend of [[doc:`+salt+`]]"`)
	waitJS(t, ctx, "saved", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)

	// A link the page did not know the name of, written by someone else, and a broken one.
	_, v := cardData(t, s, ann.Key, w.ID, card)
	data, _ := cardData(t, s, ann.Key, w.ID, card)
	w.apply(t, card, "", map[string]any{"op": "card.editSectionText", "id": data.Sections[0].ID, "baseVersion": v,
		"splices": []any{map[string]any{"pos": 0, "ins": "[[doc:" + vharn + "|the captain]] [[doc:" + vharn + "]] [[doc:gone123]] "}}})
	waitJS(t, ctx, "chips named", `Array.from(document.querySelectorAll('`+sectionBody+` .cm-doclink')).map(c => c.textContent).join("|") === "the captain|Vharn|missing document|Saltmarsh"`)
	waitJS(t, ctx, "broken chip", `document.querySelectorAll('`+sectionBody+` .cm-doclink-broken').length === 1`)
}

// TestBrowserLinkCreate: when nothing matches, the picker's last option creates a card of
// the typed name and links it.
func TestBrowserLinkCreate(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	card := w.doc(t, "Aria", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Life", "body": "Sailed to "})
	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+card, sectionBody)
	waitJS(t, ctx, "saved state", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)

	do(t, ctx, chromedp.Click(chromedp.CSS(sectionBody)), chromedp.KeyEvent(kb.End), chromedp.KeyEvent("[[Nowhere Isle"))
	waitJS(t, ctx, "create offered", `(() => { const o = Array.from(document.querySelectorAll('.cm-tooltip-autocomplete [role=option]'));
		return o.length > 0 && o[o.length - 1].textContent.startsWith("Create “Nowhere Isle”") })()`)
	settle(t, ctx)
	do(t, ctx, chromedp.KeyEvent(kb.ArrowUp)) // from the first option round to the last
	waitJS(t, ctx, "create selected", pickerOffers("Create “Nowhere Isle”"))
	do(t, ctx, enter)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const c = document.querySelector('`+sectionBody+` .cm-doclink'); return !!c && c.textContent === "Nowhere Isle" && !c.matches(".cm-doclink-creating") })()`, chromedp.WithPollingTimeout(liveWait))); err != nil {
		t.Fatalf("no chip: text %q, announced %q", eval[string](t, ctx, editorText), eval[string](t, ctx, `(document.querySelector('[data-testid="link-announcer"]') || {}).textContent`))
	}
	waitJS(t, ctx, "saved", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)

	var list struct {
		Items []struct{ ID, Name, DocumentType string }
	}
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/documents"), http.StatusOK).JSON(t, &list)
	id := ""
	for _, d := range list.Items {
		if d.Name == "Nowhere Isle" && d.DocumentType == "card" {
			id = d.ID
		}
	}
	if id == "" {
		t.Fatalf("no card Nowhere Isle: %+v", list.Items)
	}
	if data, _ := cardData(t, s, ann.Key, w.ID, card); data.Sections[0].Body != "Sailed to [[doc:"+id+"]]" {
		t.Fatalf("stored %q", data.Sections[0].Body)
	}
}

// TestBrowserLinkPreview: hovering or focusing a link to a document shows a preview of it
// (name, type, the start of its text) that the link is described by; Escape closes it. In
// the editor, hovering a link chip does too.
func TestBrowserLinkPreview(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann, vi := s.NewUser("Ann Author"), s.NewUser("Vi Viewer")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, vi, "viewer")
	vharn := w.doc(t, "Vharn", "card", "", "")
	w.apply(t, vharn, "", map[string]any{"op": "card.addSection", "title": "Life", "body": "Born at sea, **raised** by the tide-priests of the sunken gate."})
	card := w.doc(t, "Aria", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Friends", "body": "She sailed with [[doc:" + vharn + "]] for years."})
	path := "/w/" + w.Slug + "/d/" + card
	link := `[data-testid="section-body"] a.doclink`
	tip := `document.querySelector('[data-testid="doclink-preview"]')`
	shown := `(() => { const t = ` + tip + `; return !!t && !t.hidden && t.querySelector('[data-testid="preview-name"]').textContent === "Vharn" &&
		t.querySelector('[data-testid="preview-text"]').textContent.startsWith("Born at sea, raised by the tide-priests") })()`

	signInTo(t, ctx, s, vi, path, link)
	hover(t, ctx, link)
	waitJS(t, ctx, "preview on hover", shown)
	if !eval[bool](t, ctx, `document.querySelector('`+link+`').getAttribute("aria-describedby") === "doclink-preview" && `+tip+`.getAttribute("role") === "tooltip"`) {
		t.Fatal("the link is not described by its preview")
	}
	if eval[bool](t, ctx, tip+`.contains(document.activeElement)`) {
		t.Fatal("the preview took the focus")
	}
	do(t, ctx, chromedp.KeyEvent(kb.Escape))
	waitJS(t, ctx, "closed by Escape", tip+`.hidden && !document.querySelector('`+link+`').hasAttribute("aria-describedby")`)
	do(t, ctx, chromedp.MouseEvent(chromedp.MouseMoved, 1, 1))

	// Focus shows it too.
	do(t, ctx, chromedp.Focus(chromedp.CSS(link)))
	waitJS(t, ctx, "preview on focus", shown)
	// The editor's chip.
	do(t, ctx, chromedp.EmulateViewport(1366, 800))
	editorCtx := browser(t)
	signInTo(t, editorCtx, s, ann, path, sectionBody+` .cm-doclink`)
	hover(t, editorCtx, sectionBody+` .cm-doclink`)
	waitJS(t, editorCtx, "preview of the chip", shown)
}

// TestBrowserLinkLook looks at the open picker and an open preview on a desktop and a phone,
// in a light and a dark theme: no sideways scrolling, nothing serious for axe-core.
func TestBrowserLinkLook(t *testing.T) {
	s := apptest.Start(t)
	ann, vi := s.NewUser("Ann Author"), s.NewUser("Vi Viewer")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, vi, "viewer")
	vharn := w.doc(t, "Vharn", "card", "", "")
	w.apply(t, vharn, "", map[string]any{"op": "card.addSection", "title": "Life", "body": "Born at sea, **raised** by the tide-priests of the sunken gate, " + strings.Repeat("and sworn to the drowned kings ", 12)})
	w.doc(t, "Vharn's Landing", "card", "", "")
	w.doc(t, "Vharnholt", "folder", "", "")
	card := w.doc(t, "Aria", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Friends", "body": "She sailed with [[doc:" + vharn + "]] for years, and with [[doc:gone123|a ghost]]."})
	s.WaitSearchable(ann.Key, w.ID, "Vharnholt")
	path := "/w/" + w.Slug + "/d/" + card
	axe := axeSource(t)
	link := `[data-testid="section-body"] a.doclink`
	for _, width := range []int64{1366, 390} {
		ctx := browser(t)
		do(t, ctx, chromedp.EmulateViewport(width, 800))
		signInTo(t, ctx, s, ann, path, sectionBody)
		for _, theme := range []string{"light", "dark"} {
			do(t, ctx, chromedp.Navigate(s.URL+path), chromedp.WaitVisible(chromedp.CSS(sectionBody)))
			waitJS(t, ctx, "saved state", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
			if theme == "dark" {
				eval[bool](t, ctx, `(document.documentElement.dataset.theme = "starlight", true)`)
			}
			do(t, ctx, chromedp.Click(chromedp.CSS(sectionBody)), chromedp.KeyEvent(kb.End, chromedp.KeyModifiers(kb.ModifierCtrl)), chromedp.KeyEvent(" [[Vh"))
			waitJS(t, ctx, "Vharn offered", pickerOffers("Vharn"))
			accessible(t, ctx, axe, fmt.Sprintf("link-picker-%s-%d", theme, width))
			do(t, ctx, chromedp.KeyEvent(kb.Escape))
			for range " [[Vh" {
				do(t, ctx, chromedp.KeyEvent(kb.Backspace))
			}
			waitJS(t, ctx, "saved", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
		}
		ctx = browser(t)
		do(t, ctx, chromedp.EmulateViewport(width, 800))
		signInTo(t, ctx, s, vi, path, link)
		for _, theme := range []string{"light", "dark"} {
			do(t, ctx, chromedp.Navigate(s.URL+path), chromedp.WaitVisible(chromedp.CSS(link)))
			if theme == "dark" {
				eval[bool](t, ctx, `(document.documentElement.dataset.theme = "starlight", true)`)
			}
			// The page gets the window's focus first (a click), or no focus events fire.
			do(t, ctx, chromedp.Click(chromedp.CSS(`#doc-title`)), chromedp.Focus(chromedp.CSS(link)))
			if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector('[data-testid="doclink-preview"]') && !document.querySelector('[data-testid="doclink-preview"]').hidden`, chromedp.WithPollingTimeout(liveWait))); err != nil {
				t.Fatalf("no preview: focus %v, active %s", eval[bool](t, ctx, `document.hasFocus()`), eval[string](t, ctx, `document.activeElement.outerHTML`))
			}
			accessible(t, ctx, axe, fmt.Sprintf("link-preview-%s-%d", theme, width))
		}
	}
}

// TestBrowserLinkFolder: a folder's description editor has the picker and the chips too.
func TestBrowserLinkFolder(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	vharn := w.doc(t, "Vharn", "card", "", "")
	folder := w.doc(t, "People", "folder", "", "")
	w.apply(t, folder, "", map[string]any{"op": "folder.setDescription", "description": "Led by "})
	s.WaitSearchable(ann.Key, w.ID, "Vharn")
	editor := `[data-testid="folder-editor"] .cm-content`
	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+folder, editor)
	do(t, ctx, chromedp.Click(chromedp.CSS(editor)), chromedp.KeyEvent(kb.End), chromedp.KeyEvent("@Vh"))
	waitJS(t, ctx, "Vharn offered", pickerOffers("Vharn"))
	settle(t, ctx)
	do(t, ctx, chromedp.KeyEvent(kb.Tab))
	waitJS(t, ctx, "chip", `(() => { const c = document.querySelector('`+editor+` .cm-doclink'); return !!c && c.textContent === "Vharn" })()`)
	waitJS(t, ctx, "saved", `document.querySelector('[data-testid="folder-editor"] [data-testid="save-status"]').textContent === "All changes saved"`)
	var d struct {
		Content struct{ Data struct{ Description string } }
	}
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+folder), http.StatusOK).JSON(t, &d)
	if d.Content.Data.Description != "Led by [[doc:"+vharn+"]]" {
		t.Fatalf("stored %q", d.Content.Data.Description)
	}
}
