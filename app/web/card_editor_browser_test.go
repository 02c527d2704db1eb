package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/ops"
)

// cardData reads a card's content through the API.
func cardData(t *testing.T, s *apptest.Server, key, worldID, docID string) (data struct {
	Name       string
	Aliases    []string
	Properties []struct{ Key, Value string }
	Sections   []struct{ ID, Title, Body string }
}, version int64) {
	t.Helper()
	var d struct {
		Version int64
		Content struct{ Data json.RawMessage }
	}
	s.Must(s.Get(key, "/api/v1/worlds/"+worldID+"/documents/"+docID), http.StatusOK).JSON(t, &d)
	if err := json.Unmarshal(d.Content.Data, &data); err != nil {
		t.Fatal(err)
	}
	return data, d.Version
}

// TestBrowserCardEditor edits every field of a card in the browser, and reads it back
// through the API.
func TestBrowserCardEditor(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	card := w.doc(t, "Vharn", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Early life", "body": "Born at sea."})
	path := "/w/" + w.Slug + "/d/" + card
	signInTo(t, ctx, s, ann, path, `[data-testid="card-editor"]`)
	waitJS(t, ctx, "saved state", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)

	// Name, an alias, a property.
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`#card-name`), "Vharn the Tidecaller\n"),
		chromedp.SendKeys(chromedp.CSS(`#alias-new`), "The Tidecaller\n"),
		chromedp.SendKeys(chromedp.CSS(`#prop-new-key`), "Born"),
		chromedp.SendKeys(chromedp.CSS(`#prop-new-value`), "Year 312\n"),
	)
	waitJS(t, ctx, "alias chip", `Array.from(document.querySelectorAll('[data-testid="alias-chip"] span')).map(e => e.textContent).join() === "The Tidecaller"`)
	waitJS(t, ctx, "property row", `document.querySelectorAll('[data-testid="property"]').length === 1`)
	waitJS(t, ctx, "heading", `document.querySelector('#editor-title').textContent === "Vharn the Tidecaller"`)

	// Type into the section, add a second one, title it, move it up.
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="section-body-editor"] .cm-content`)),
		chromedp.KeyEvent("\uE010"), // End
		chromedp.SendKeys(chromedp.CSS(`[data-testid="section-body-editor"] .cm-content`), " A storm **named** her."),
		chromedp.Click(chromedp.CSS(`[data-testid="section-add"]`)),
	)
	waitJS(t, ctx, "second section", `document.querySelectorAll('[data-testid="section-editor"]').length === 2 && document.activeElement.matches('[data-testid="section-editor"]:nth-child(2) .section-title')`)
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`[data-testid="section-editor"]:nth-child(2) .section-title`), "Legends\n"),
	)
	waitJS(t, ctx, "focus in the new body", `document.activeElement.matches('[data-testid="section-editor"]:nth-child(2) .cm-content')`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`[data-testid="section-editor"]:nth-child(2) .cm-content`), "She sang to the tide."))
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="section-editor"]:nth-child(2) [data-testid="section-up"]`)))
	waitJS(t, ctx, "moved up", `document.querySelector('[data-testid="section-editor"]:first-child .section-title').value === "Legends"`)
	waitJS(t, ctx, "saved", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)

	data, _ := cardData(t, s, ann.Key, w.ID, card)
	if data.Name != "Vharn the Tidecaller" || len(data.Aliases) != 1 || data.Aliases[0] != "The Tidecaller" ||
		len(data.Properties) != 1 || data.Properties[0].Key != "Born" || data.Properties[0].Value != "Year 312" {
		t.Fatalf("card = %+v", data)
	}
	if len(data.Sections) != 2 || data.Sections[0].Title != "Legends" || data.Sections[0].Body != "She sang to the tide." ||
		data.Sections[1].Title != "Early life" || data.Sections[1].Body != "Born at sea. A storm **named** her." {
		t.Fatalf("sections = %+v", data.Sections)
	}

	// Undo takes back Ann's own typing only, not someone else's written meanwhile.
	legends := data.Sections[0].ID
	first := `[data-testid="section-editor"]:first-child .cm-content`
	do(t, ctx, chromedp.Click(chromedp.CSS(first)), chromedp.KeyEvent(kb.End), chromedp.KeyEvent(" Mine."))
	waitJS(t, ctx, "saved", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
	_, v := cardData(t, s, ann.Key, w.ID, card)
	w.apply(t, card, "", map[string]any{"op": "card.editSectionText", "id": legends, "baseVersion": v, "splices": []any{map[string]any{"pos": 0, "ins": "Theirs. "}}})
	waitJS(t, ctx, "their text", `CM.EditorView.findFromDOM(document.querySelector('`+first+`')).state.doc.toString() === "Theirs. She sang to the tide. Mine."`)
	do(t, ctx, chromedp.KeyEvent("z", chromedp.KeyModifiers(kb.ModifierCtrl)))
	waitJS(t, ctx, "undone", `CM.EditorView.findFromDOM(document.querySelector('`+first+`')).state.doc.toString() === "Theirs. She sang to the tide."`)
	do(t, ctx, chromedp.KeyEvent("Z", chromedp.KeyModifiers(kb.ModifierCtrl, kb.ModifierShift)))
	waitJS(t, ctx, "redone", `CM.EditorView.findFromDOM(document.querySelector('`+first+`')).state.doc.toString() === "Theirs. She sang to the tide. Mine."`)

	// Someone else removes a section: Ann may restore it as she had it.
	var extra struct{ Created []struct{ ID string } }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.addSection", "title": "Rumours", "body": "Whispers."}}}), http.StatusOK).JSON(t, &extra)
	waitJS(t, ctx, "third section", `document.querySelectorAll('[data-testid="section-editor"]').length === 3`)
	// Ann is writing in it when it goes: the notice takes her focus, and her next keystrokes
	// do nothing (on the "Add section" button, a space pressed it).
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="section-editor"]:nth-child(3) .cm-content`)))
	waitJS(t, ctx, "writing in Rumours", `document.activeElement.matches('[data-testid="section-editor"]:nth-child(3) .cm-content')`)
	w.apply(t, card, "", map[string]any{"op": "card.removeSection", "id": extra.Created[0].ID})
	waitJS(t, ctx, "removal notice", `document.querySelectorAll('[data-testid="section-editor"]').length === 2 && !!document.querySelector('[data-testid="section-restore"]')`)
	waitJS(t, ctx, "focus on the notice", `document.activeElement.matches('[data-testid="section-removed"]')`)
	lookWide(t, ctx, "card-editor-section-removed")
	do(t, ctx, chromedp.KeyEvent(" and more"), chromedp.KeyEvent(kb.Enter))
	time.Sleep(300 * time.Millisecond)
	waitJS(t, ctx, "no section made by typing", `document.querySelectorAll('[data-testid="section-editor"]').length === 2 && !!document.querySelector('[data-testid="section-removed"]')`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="section-restore"]`)))
	waitJS(t, ctx, "restored", `document.querySelectorAll('[data-testid="section-editor"]').length === 3 && !document.querySelector('[data-testid="section-removed"]')`)
	waitJS(t, ctx, "focus on Add section, not lost", `document.activeElement === document.querySelector('#section-add')`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="section-editor"]:nth-child(3) [data-testid="section-remove"]`)))
	waitJS(t, ctx, "confirmation", `document.querySelector("#remove-section-dialog").open`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="confirm-remove"]`)))
	waitJS(t, ctx, "own removal, no notice", `document.querySelectorAll('[data-testid="section-editor"]').length === 2 && !document.querySelector('[data-testid="section-removed"]')`)

	// Remove the alias, the property and a section (after its confirmation).
	// One at a time: each removal redraws its part of the editor, and a click sent while a
	// redraw is under way can land on the element being replaced (seen once in CI).
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="alias-chip"] button`)))
	waitJS(t, ctx, "alias removed", `!document.querySelector('[data-testid="alias-chip"]')`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="property"] button`)))
	waitJS(t, ctx, "property removed", `!document.querySelector('[data-testid="property"]')`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="section-editor"]:nth-child(2) [data-testid="section-remove"]`)))
	waitJS(t, ctx, "confirmation", `document.querySelector("#remove-section-dialog").open && document.querySelector("#remove-section-dialog [data-section-name]").textContent === "Early life"`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="confirm-remove"]`)))
	waitJS(t, ctx, "removed", `document.querySelectorAll('[data-testid="section-editor"]').length === 1 && !document.querySelector('[data-testid="alias-chip"]') && !document.querySelector('[data-testid="property"]')`)
	waitJS(t, ctx, "saved", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
	data, _ = cardData(t, s, ann.Key, w.ID, card)
	if len(data.Aliases) != 0 || len(data.Properties) != 0 || len(data.Sections) != 1 || data.Sections[0].Body != "Theirs. She sang to the tide. Mine." {
		t.Fatalf("after removals: %+v", data)
	}
}

// TestBrowserCardViewer: a viewer gets the read view, with no editor and no editing script.
func TestBrowserCardViewer(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann, vic := s.NewUser("Ann Author"), s.NewUser("Vic Viewer")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, vic, "viewer")
	card := w.doc(t, "Vharn", "card", "", "")
	folder := w.doc(t, "Places", "folder", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Life", "body": "Born at sea."})
	signInTo(t, ctx, s, vic, "/w/"+w.Slug+"/d/"+card, `[data-testid="section-body"]`)
	for _, path := range []string{"/w/" + w.Slug + "/d/" + card, "/w/" + w.Slug + "/d/" + folder} {
		do(t, ctx, chromedp.Navigate(s.URL+path), chromedp.WaitVisible(chromedp.CSS(`#doc-body`)))
		if n := eval[int](t, ctx, `document.querySelectorAll('[data-card-editor], [data-folder-editor], .cm-editor, main input, main button, script[src*="editor"]').length`); n != 0 {
			t.Fatalf("%s: a viewer sees %d editing elements", path, n)
		}
	}
}

// TestBrowserCardEditorLayout looks at the card editor on a desktop and a phone, in a light
// and a dark theme: no sideways scrolling, every control named.
func TestBrowserCardEditorLayout(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	var light, dark struct{ ID, Slug string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "The Drowned Kingdoms", "genre": "fantasy"}), http.StatusCreated).JSON(t, &light)
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Outer Rim", "genre": "sci-fi"}), http.StatusCreated).JSON(t, &dark)
	paths := map[string]string{}
	for theme, x := range map[string]struct{ ID, Slug string }{"light": light, "dark": dark} {
		w := world{s: s, u: ann, ID: x.ID, Slug: x.Slug}
		card := w.doc(t, "Aria Stormborn", "card", "", "")
		w.apply(t, card, "",
			map[string]any{"op": "card.setAliases", "aliases": []string{"The Tidecaller", "Warden of the Sunken Gate"}},
			map[string]any{"op": "card.setProperty", "key": "Born", "value": "Year 312 of the Long Tide"},
			map[string]any{"op": "card.setProperty", "key": "House", "value": "Stormborn"},
			map[string]any{"op": "card.addSection", "title": "Early life", "body": "## Childhood\n\nAria was born during the **Great Storm**, on a ship that never reached port.\n\n- raised by the tide-priests\n- learned to *read the currents*"},
			map[string]any{"op": "card.addSection", "title": "Legends", "body": "Sailors say she can call the tide by name."},
		)
		paths[theme] = "/w/" + x.Slug + "/d/" + card
	}
	signInTo(t, ctx, s, ann, paths["light"], `[data-testid="card-editor"]`)
	for _, width := range []int64{1366, 390} {
		if width < 500 { // a phone: a touch screen
			do(t, ctx, chromedp.EmulateViewport(width, 900, chromedp.EmulateMobile, chromedp.EmulateTouch))
		} else {
			do(t, ctx, chromedp.EmulateViewport(width, 900))
		}
		for _, theme := range []string{"light", "dark"} {
			do(t, ctx, chromedp.Navigate(s.URL+paths[theme]), chromedp.WaitVisible(chromedp.CSS(`[data-testid="card-editor"] .cm-content`)))
			waitJS(t, ctx, "saved state", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
			unnamed := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('[data-card-editor] input, [data-card-editor] button, [data-card-editor] .cm-content'))
				.filter(e => !e.closest("dialog") && !(e.getAttribute("aria-label") || (e.labels && e.labels.length) || e.textContent.trim()))
				.map(e => e.outerHTML.slice(0, 80))`)
			if len(unnamed) > 0 {
				t.Errorf("%s %d: controls without a name: %v", theme, width, unnamed)
			}
			look(t, ctx, fmt.Sprintf("card-editor-%s-%d", theme, width))
		}
	}

	// Two people in one section: Bob types at the end of "Legends" while Ann watches his
	// cursor arrive in her editor.
	bob := s.NewUser("Bob Builder")
	s.AddMember(ann, light.ID, bob, "editor")
	do(t, ctx, chromedp.EmulateViewport(1366, 900), chromedp.Navigate(s.URL+paths["light"]), chromedp.WaitVisible(chromedp.CSS(`[data-testid="card-editor"] .cm-content`)))
	bobCtx := browser(t)
	legends := `[data-testid="section-editor"]:nth-child(2) .cm-content`
	signInTo(t, bobCtx, s, bob, paths["light"], legends)
	do(t, bobCtx, chromedp.Click(chromedp.CSS(legends)), chromedp.KeyEvent(kb.End), chromedp.KeyEvent(" Nobody knows her true name"))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`CM.EditorView.findFromDOM(document.querySelector('`+legends+`')).state.doc.toString().endsWith("true name")`, chromedp.WithPollingTimeout(liveWait))); err != nil {
		t.Fatalf("Bob's text: Ann has %q, Bob has %q (%s)", eval[string](t, ctx, `CM.EditorView.findFromDOM(document.querySelector('`+legends+`')).state.doc.toString()`),
			eval[string](t, bobCtx, `CM.EditorView.findFromDOM(document.querySelector('`+legends+`')).state.doc.toString()`), eval[string](t, bobCtx, `document.querySelector('[data-testid="save-status"]').textContent`))
	}
	// His cursor, at the end of what he typed.
	waitJS(t, ctx, "Bob's cursor", `(() => { const c = document.querySelector('`+legends+` .remote-caret');
		return c && c.textContent === "Bob Builder" && c.closest(".cm-line").textContent.endsWith("true nameBob Builder") })()`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="section-editor"]:nth-child(1) .cm-line`)))
	look(t, ctx, "card-editor-together")
}

// typistJS types into the first section of the card editor, as a person would with the
// keyboard (through CodeMirror's input path): `count` keystrokes at random places, each
// either a character (letters, accents, emoji, an astral musical sign, Enter) or a
// Backspace/Delete over up to three characters, with a unique marker character in every
// insert. It resolves to the markers it inserted and the markers it deleted (ones it saw).
const typistJS = `(async (seed, count, markerBase) => {
	let s = seed >>> 0;
	const rnd = n => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s % n; };
	const view = CM.EditorView.findFromDOM(document.querySelector('[data-testid="section-body-editor"] .cm-editor'));
	const fillers = ["a", "e", "é", "😀", "𝄞", "\n", " ", "ß"];
	// Every writer's markers: two browsers' and the API's.
	const isMarker = c => { const p = c.codePointAt(0); return (p >= 0x4E00 && p < 0x4E00 + 0x8000) || (p >= 0x20000 && p < 0x24000); };
	const inserted = [], deleted = [];
	let next = 0;
	for (let i = 0; i < count; i++) {
		const doc = view.state.doc.toString();
		// Positions between characters (never inside a surrogate pair).
		const bounds = [0];
		for (let j = 0; j < doc.length;) { j += doc.codePointAt(j) > 0xFFFF ? 2 : 1; bounds.push(j); }
		const at = bounds[rnd(bounds.length)];
		if (rnd(3) === 0 && bounds.length > 1) {
			const k = bounds.indexOf(at), n = 1 + rnd(3);
			const from = bounds[Math.max(0, k - n)], to = at;
			if (from < to) {
				for (const c of doc.slice(from, to)) if (isMarker(c)) deleted.push(c);
				view.dispatch({ changes: { from, to }, selection: { anchor: from }, userEvent: "delete.backward", scrollIntoView: true });
			}
		} else {
			const m = String.fromCodePoint(markerBase + next++);
			inserted.push(m);
			const text = (rnd(2) ? fillers[rnd(fillers.length)] : "") + m;
			view.dispatch({ changes: { from: at, insert: text }, selection: { anchor: at + text.length }, userEvent: "input.type", scrollIntoView: true });
		}
		await new Promise(r => setTimeout(r, 2 + rnd(20)));
	}
	return { inserted, deleted };
})`

type typistResult struct {
	Inserted []string
	Deleted  []string
}

// TestBrowserConvergence has two people in two browsers and a script on the API type into
// the same section at once, deleting across each other's text; then every copy must hold
// the same text, with every character someone typed and nobody who saw it deleted.
func TestBrowserConvergence(t *testing.T) {
	s := apptest.Start(t)
	ann, bob := s.NewUser("Ann Author"), s.NewUser("Bob Builder")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, bob, "editor")
	card := w.doc(t, "Vharn", "card", "", "")
	var added struct{ Created []struct{ ID string } }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.addSection", "title": "Notes", "body": "Shared notes.\n"}}}), http.StatusOK).JSON(t, &added)
	sec := added.Created[0].ID
	path := "/w/" + w.Slug + "/d/" + card

	ctxA, ctxB := browser(t), browser(t)
	signInTo(t, ctxA, s, ann, path, `[data-testid="card-editor"] .cm-content`)
	signInTo(t, ctxB, s, bob, path, `[data-testid="card-editor"] .cm-content`)
	for _, ctx := range []context.Context{ctxA, ctxB} {
		waitJS(t, ctx, "saved state", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
		do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="section-body-editor"] .cm-content`)))
	}
	// Each sees where the other's cursor is, with their name.
	waitJS(t, ctxB, "Ann's cursor", `Array.from(document.querySelectorAll(".remote-name")).some(e => e.textContent === "Ann Author")`)
	waitJS(t, ctxA, "Bob's cursor", `Array.from(document.querySelectorAll(".remote-name")).some(e => e.textContent === "Bob Builder")`)

	const keystrokes = 320
	results := make([]typistResult, 2)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i, ctx := range []context.Context{ctxA, ctxB} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = chromedp.Run(ctx, chromedp.Evaluate[typistResult](fmt.Sprintf("%s(%d, %d, %d)", typistJS, 17+i, keystrokes, 0x4E00+0x4000*i), chromedp.EvalAwaitPromise))
		}()
	}
	// The API writer: reads, edits what it read, sends with that version.
	var apiInserted, apiDeleted []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := rand.New(rand.NewPCG(5, 9))
		for n := 0; n < keystrokes; n++ {
			var doc struct {
				Version int64
				Content struct {
					Data struct{ Sections []struct{ Body string } }
				}
			}
			if err := json.Unmarshal(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card).Body, &doc); err != nil || len(doc.Content.Data.Sections) == 0 {
				errs[2] = fmt.Errorf("API read: %v", err)
				return
			}
			version := doc.Version
			body := []rune(doc.Content.Data.Sections[0].Body)
			units := func(rs []rune) int { return len(utf16.Encode(rs)) }
			at := r.IntN(len(body) + 1)
			var sp map[string]any
			if r.IntN(3) == 0 && at > 0 {
				from := max(0, at-1-r.IntN(3))
				for _, c := range body[from:at] {
					if c >= 0x20000 && c < 0x24000 || c >= 0x4E00 && c < 0x4E00+0x8000 {
						apiDeleted = append(apiDeleted, string(c))
					}
				}
				sp = map[string]any{"pos": units(body[:from]), "del": units(body[from:at]), "ins": ""}
			} else {
				m := string(rune(0x20000 + n))
				apiInserted = append(apiInserted, m)
				sp = map[string]any{"pos": units(body[:at]), "del": 0, "ins": "·" + m}
			}
			res := s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card+"/content", map[string]any{"ops": []any{
				map[string]any{"op": "card.editSectionText", "id": sec, "baseVersion": version, "splices": []any{sp}}}})
			if res.Status != http.StatusOK {
				errs[2] = fmt.Errorf("API write: %d %s", res.Status, res.Body)
				return
			}
			time.Sleep(time.Duration(r.IntN(12)) * time.Millisecond)
		}
	}()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}

	// Within a few seconds everyone holds the same text.
	var final string
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := cardData(t, s, ann.Key, w.ID, card)
		final = data.Sections[0].Body
		a := eval[string](t, ctxA, `CM.EditorView.findFromDOM(document.querySelector('[data-testid="section-body-editor"] .cm-editor')).state.doc.toString()`)
		b := eval[string](t, ctxB, `CM.EditorView.findFromDOM(document.querySelector('[data-testid="section-body-editor"] .cm-editor')).state.doc.toString()`)
		saved := eval[bool](t, ctxA, `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`) &&
			eval[bool](t, ctxB, `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
		if a == final && b == final && saved {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the copies differ after 10 s:\nAPI %q\nAnn %q\nBob %q", final, a, b)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// Every marker typed is there exactly once, unless someone who saw it deleted it.
	deleted := map[string]bool{}
	for _, m := range append(append(results[0].Deleted, results[1].Deleted...), apiDeleted...) {
		deleted[m] = true
	}
	for _, m := range append(append(results[0].Inserted, results[1].Inserted...), apiInserted...) {
		n := strings.Count(final, m)
		if deleted[m] && n != 0 || !deleted[m] && n != 1 {
			t.Fatalf("marker %q appears %d times (deleted: %v) in %q", m, n, deleted[m], final)
		}
	}
	if len(results[0].Inserted) < 150 || len(results[1].Inserted) < 150 {
		t.Fatalf("too few inserts: %d, %d", len(results[0].Inserted), len(results[1].Inserted))
	}
	t.Logf("converged on %d characters; %d+%d+%d markers typed, %d deleted", utf8.RuneCountInString(final),
		len(results[0].Inserted), len(results[1].Inserted), len(apiInserted), len(deleted))
}

// cutter is a TCP proxy in front of the server whose connections the test can cut: a
// dropped network, for the browser, with the server still up.
type cutter struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]bool
}

func newCutter(t *testing.T, target string) *cutter {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cutter{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); c.cut() })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			go c.pipe(in)
		}
	}()
	return c
}

func (c *cutter) URL() string { return "http://" + c.ln.Addr().String() }

func (c *cutter) pipe(in net.Conn) {
	c.mu.Lock()
	if c.down {
		c.mu.Unlock()
		in.Close()
		return
	}
	c.mu.Unlock()
	out, err := net.Dial("tcp", c.target)
	if err != nil {
		in.Close()
		return
	}
	c.mu.Lock()
	c.conns[in], c.conns[out] = true, true
	c.mu.Unlock()
	go func() { io.Copy(out, in); out.Close() }()
	io.Copy(in, out)
	in.Close()
}

// cut closes every connection and refuses new ones until restore.
func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = true
	for conn := range c.conns {
		conn.Close()
	}
	c.conns = map[net.Conn]bool{}
}

func (c *cutter) restore() {
	c.mu.Lock()
	c.down = false
	c.mu.Unlock()
}

// TestBrowserOffline cuts a typing editor's network for a few seconds: it says it is
// offline, keeps what is typed, and once back sends it all: nothing is lost, nothing doubled,
// and someone else's edits made meanwhile are merged in.
func TestBrowserOffline(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	card := w.doc(t, "Vharn", "card", "", "")
	var added struct{ Created []struct{ ID string } }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.addSection", "title": "Notes", "body": "Start.\n"}}}), http.StatusOK).JSON(t, &added)
	sec := added.Created[0].ID
	proxy := newCutter(t, strings.TrimPrefix(s.URL, "http://"))
	path := "/w/" + w.Slug + "/d/" + card

	ctx := browser(t)
	signInTo(t, ctx, &apptest.Server{URL: proxy.URL()}, ann, path, `[data-testid="card-editor"] .cm-content`)
	waitJS(t, ctx, "saved state", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)

	typist := func(seed, count int) typistResult {
		t.Helper()
		base := 0x4E00 + 0x2000*(seed-1) // markers of its own for each run
		r, err := chromedp.Run(ctx, chromedp.Evaluate[typistResult](fmt.Sprintf("%s(%d, %d, %d)", typistJS, seed, count, base), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	before := typist(1, 40)
	proxy.cut()
	waitJS(t, ctx, "offline shown", `document.querySelector('[data-testid="save-status"]').textContent.startsWith("Offline")`)
	during := typist(2, 80)
	// Someone else writes meanwhile, through the API.
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.editSectionText", "id": sec, "baseVersion": 1, "splices": []any{map[string]any{"pos": 0, "del": 0, "ins": "API⊕"}}}}}), http.StatusOK)
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="save-status"]').textContent`); !strings.HasPrefix(got, "Offline") {
		t.Fatalf("status while offline: %q", got)
	}
	// Leaving now would lose the unsent edits: the page asks first.
	if !eval[bool](t, ctx, `(() => { const e = new Event("beforeunload", { cancelable: true }); window.dispatchEvent(e); return e.defaultPrevented })()`) {
		t.Fatal("leaving with unsent edits does not warn")
	}
	time.Sleep(2 * time.Second)
	proxy.restore()

	var final string
	deadline := time.Now().Add(15 * time.Second)
	for {
		data, _ := cardData(t, s, ann.Key, w.ID, card)
		final = data.Sections[0].Body
		local := eval[string](t, ctx, `CM.EditorView.findFromDOM(document.querySelector('[data-testid="section-body-editor"] .cm-editor')).state.doc.toString()`)
		saved := eval[string](t, ctx, `document.querySelector('[data-testid="save-status"]').textContent`) == "All changes saved"
		if saved && local == final {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not in step 15 s after the network came back:\nAPI   %q\nlocal %q", final, local)
		}
		time.Sleep(200 * time.Millisecond)
	}
	deleted := map[string]bool{}
	for _, m := range append(before.Deleted, during.Deleted...) {
		deleted[m] = true
	}
	for _, m := range append(before.Inserted, during.Inserted...) {
		if n := strings.Count(final, m); deleted[m] && n != 0 || !deleted[m] && n != 1 {
			t.Fatalf("marker %q appears %d times (deleted: %v) in %q", m, n, deleted[m], final)
		}
	}
	if !strings.Contains(final, "API⊕") {
		t.Fatalf("the API's edit made while offline is missing: %q", final)
	}
}

// TestBrowserFolderDescription edits a folder's description in the Markdown editor, takes in
// someone else's, and previews the sanitised rendering.
func TestBrowserFolderDescription(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	folder := w.doc(t, "Places", "folder", "", "")
	w.doc(t, "Harbour", "card", folder, "")
	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+folder, `[data-testid="folder-editor"] .cm-content`)
	streamOpen(t, ctx)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`[data-testid="folder-description-editor"] .cm-content`), "Where **ships** rest."))
	waitJS(t, ctx, "saved", `document.querySelector('[data-testid="folder-editor"] [data-testid="save-status"]').textContent === "All changes saved"`)
	description := func() string {
		var d struct {
			Content struct{ Data struct{ Description string } }
		}
		s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+folder), http.StatusOK).JSON(t, &d)
		return d.Content.Data.Description
	}
	if got := description(); got != "Where **ships** rest." {
		t.Fatalf("description = %q", got)
	}
	// Someone else's description shows in the editor; the list of documents stays.
	w.apply(t, folder, "", map[string]any{"op": "folder.setDescription", "description": "All the *ports*."})
	waitJS(t, ctx, "their description", `document.querySelector('[data-testid="folder-description-editor"] .cm-content').textContent === "All the *ports*."`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="folder-preview"]`)))
	waitJS(t, ctx, "preview", `(document.querySelector('[data-testid="folder-preview-html"] em') || {}).textContent === "ports"`)
	if n := eval[int](t, ctx, `document.querySelectorAll('[data-testid="children"] li').length`); n != 1 {
		t.Fatalf("%d documents listed in the folder", n)
	}
}

// lookWide looks at the page on a desktop (1366 px) and on a phone (390 px), as
// name-1366 and name-390, and leaves the desktop width.
func lookWide(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	for _, width := range []int64{390, 1366} {
		do(t, ctx, chromedp.EmulateViewport(width, 900))
		look(t, ctx, fmt.Sprintf("%s-%d", name, width))
	}
}

// TestBrowserCardEditorRefusedAlias: an alias the server refuses (the 51st) is shown refused
// next to the box, and what was typed comes back into the box instead of being lost.
func TestBrowserCardEditorRefusedAlias(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	card := w.doc(t, "Vharn", "card", "", "")
	aliases := make([]any, 50)
	for i := range aliases {
		aliases[i] = fmt.Sprintf("Alias %d", i)
	}
	w.apply(t, card, "", map[string]any{"op": "card.setAliases", "aliases": aliases})
	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+card, `[data-testid="card-editor"]`)
	waitJS(t, ctx, "saved state", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#alias-new`), "The Drowned Girl\n"))
	waitJS(t, ctx, "refusal shown", `(function () {
		var p = document.querySelector('#aliases').closest('.field').querySelector(':scope > .field-error');
		return p && !p.hidden && /50 aliases/.test(p.textContent);
	})()`)
	waitJS(t, ctx, "typed alias kept", `document.querySelector('#alias-new').value === "The Drowned Girl"`)
	lookWide(t, ctx, "card-editor-alias-refused")
	if data, _ := cardData(t, s, ann.Key, w.ID, card); len(data.Aliases) != 50 {
		t.Fatalf("%d aliases", len(data.Aliases))
	}
}

// TestBrowserCardEditorSectionLimit: a paste that would take a section past its limit
// (ops.MaxSectionBody characters) is refused in the editor, with a message next to the
// section, rather than typed in and never saved; writing goes on afterwards.
func TestBrowserCardEditorSectionLimit(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	card := w.doc(t, "Vharn", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Early life", "body": "Short."})
	s.Must(s.Do(apptest.Request{Method: "PATCH", Path: "/api/v1/worlds/" + w.ID, Key: ann.Key, Body: map[string]any{"genre": "sci-fi"}}), http.StatusOK) // a dark theme
	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+card, `[data-testid="card-editor"]`)
	sel := `[data-testid="section-body-editor"] .cm-content`
	paste := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, input.InsertText, input.InsertTextParams{Text: strings.Repeat("é", ops.MaxSectionBody)})
		return chromedp.Void{}, err
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(sel)), chromedp.KeyEvent(kb.End), paste)
	doc := `CM.EditorView.findFromDOM(document.querySelector('` + sel + `')).state.doc.toString()`
	waitJS(t, ctx, "refused with a message", `(function () {
		var p = document.querySelector('[data-testid="section-editor"] > .field-error');
		return p && !p.hidden && /at most 50,000 characters, and this would make it 50,006/.test(p.textContent);
	})()`)
	if got := eval[string](t, ctx, doc); got != "Short." {
		t.Fatalf("the editor holds %d characters", len([]rune(got)))
	}
	lookWide(t, ctx, "card-editor-section-limit-dark")
	do(t, ctx, chromedp.KeyEvent(" Still here."))
	waitJS(t, ctx, "saved", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved" && `+doc+` === "Short. Still here."`)
	waitJS(t, ctx, "message gone", `document.querySelector('[data-testid="section-editor"] > .field-error').hidden`)
	if data, _ := cardData(t, s, ann.Key, w.ID, card); data.Sections[0].Body != "Short. Still here." {
		t.Fatalf("body %q", data.Sections[0].Body)
	}
}

// TestBrowserCardEditorCompositionWithRemoteEdit: Japanese typed through an input method
// (composing しお, then しおの, committed as 潮の) while someone else writes in the same
// section comes out as committed, with no stray kana.
func TestBrowserCardEditorCompositionWithRemoteEdit(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	card := w.doc(t, "Vharn", "card", "", "")
	var added struct{ Created []struct{ ID string } }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.addSection", "title": "Notes", "body": "First line.\n\nSecond line."}}}), http.StatusOK).JSON(t, &added)
	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+card, `[data-testid="card-editor"]`)
	sel := `[data-testid="section-body-editor"] .cm-content`
	doc := `CM.EditorView.findFromDOM(document.querySelector('` + sel + `')).state.doc.toString()`
	compose := func(text string) chromedp.Action[chromedp.Void] {
		return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			n := int64(len([]rune(text)))
			_, err := cdp.Call(ctx, tg, input.ImeSetComposition, input.ImeSetCompositionParams{Text: text, SelectionStart: n, SelectionEnd: n})
			return chromedp.Void{}, err
		}
	}
	commit := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, input.InsertText, input.InsertTextParams{Text: "潮の"})
		return chromedp.Void{}, err
	}
	// Someone else types at the start while the composition goes on, each letter as it comes.
	remote := func(text string) {
		_, v := cardData(t, s, ann.Key, w.ID, card)
		w.apply(t, card, "", map[string]any{"op": "card.editSectionText", "id": added.Created[0].ID, "baseVersion": v,
			"splices": []any{map[string]any{"pos": 0, "ins": text}}})
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(sel)), chromedp.KeyEvent(kb.End, chromedp.KeyModifiers(kb.ModifierCtrl)), compose("し"))
	remote("Z ")
	do(t, ctx, compose("しお"))
	remote("Y")
	time.Sleep(100 * time.Millisecond)
	do(t, ctx, compose("しおの"))
	remote("X")
	do(t, ctx, commit)
	waitJS(t, ctx, "saved", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
	want := "XYZ First line.\n\nSecond line.潮の"
	waitJS(t, ctx, "committed text", doc+` === `+jsString(want))
	if data, _ := cardData(t, s, ann.Key, w.ID, card); data.Sections[0].Body != want {
		t.Fatalf("body %q, want %q", data.Sections[0].Body, want)
	}
}
