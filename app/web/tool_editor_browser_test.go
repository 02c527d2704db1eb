package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// eventually polls cond until it holds, for at most liveWait.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(liveWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, liveWait)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// toolField is the CSS selector of the generic editor's control of a top-level field.
func toolField(path string) string {
	return `[data-tool-form] > [data-path="` + path + `"] [data-testid="tool-input"]`
}

// choose picks a value in a select as a person does (the value, then a change event).
func choose(sel, value string) string {
	return fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.focus(); s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})); return true })()`, sel, value)
}

func relations(data map[string]any) []map[string]any {
	var out []map[string]any
	list, _ := data["relations"].([]any)
	for _, x := range list {
		m, _ := x.(map[string]any)
		out = append(out, m)
	}
	return out
}

// TestBrowserToolEditor edits a document of an installed tool type with the generic editor
// (a text field, an enum, a number, a link, Markdown typed in CodeMirror, list items added,
// edited, moved and removed), checking the server's data after each step; a second editor
// sees the changes live, and a change made elsewhere reaches the first without a reload.
func TestBrowserToolEditor(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann, bob := s.NewUser("Ann Author"), s.NewUser("Bob Builder")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, bob, "editor")
	installTestTool(t, s, w.ID, "factions")
	queen := w.doc(t, "Queen Maren", "card", "", "")
	ember := w.doc(t, "Ember Court", "faction", "", "")
	tide := w.doc(t, "Tidewater Compact", "faction", "", "")
	path := "/w/" + w.Slug + "/d/" + tide
	data := func() map[string]any { d, _ := toolData(t, w, tide); return d }

	do(t, ctx, chromedp.EmulateViewport(1366, 900))
	signInTo(t, ctx, s, ann, path, `[data-testid="tool-editor"]`)
	waitJS(t, ctx, "saved state", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
	streamOpen(t, ctx)
	noReload(t, ctx)
	if eval[bool](t, ctx, `getComputedStyle(document.querySelector("#doc-body")).display !== "none"`) {
		t.Fatal("the read view shows beside the editor")
	}

	// Bob watches in a second browser.
	bobCtx := browser(t)
	do(t, bobCtx, chromedp.EmulateViewport(1366, 900))
	signInTo(t, bobCtx, s, bob, path, `[data-testid="tool-editor"]`)
	streamOpen(t, bobCtx)

	// A text field.
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(toolField("motto")), "By the tide\n"))
	eventually(t, "motto saved", func() bool { return data()["motto"] == "By the tide" })
	_, mottoVersion := toolData(t, w, tide)
	waitJSFor(t, bobCtx, liveWait, "Bob sees the motto", `document.querySelector('`+toolField("motto")+`').value === "By the tide"`)

	// An enum, a number, a link.
	eval[bool](t, ctx, choose(toolField("alignment"), "chaotic"))
	eventually(t, "alignment saved", func() bool { return data()["alignment"] == "chaotic" })
	do(t, ctx, chromedp.SetValue(chromedp.CSS(toolField("power")), ""), chromedp.SendKeys(chromedp.CSS(toolField("power")), "7"+kb.Tab))
	eventually(t, "power saved", func() bool { return data()["power"] == float64(7) })
	eval[bool](t, ctx, choose(toolField("leader"), queen))
	eventually(t, "leader saved", func() bool { return data()["leader"] == queen })
	waitJS(t, ctx, "open the leader", `document.querySelector('[data-path="leader"] [data-testid="tool-link-open"]').textContent === "Open Queen Maren"`)

	// A number out of bounds: refused, in words, next to the control; nothing changes.
	do(t, ctx, chromedp.SetValue(chromedp.CSS(toolField("power")), ""), chromedp.SendKeys(chromedp.CSS(toolField("power")), "12"+kb.Tab))
	waitJS(t, ctx, "power refused", `(() => { const e = document.querySelector('[data-tool-form] > [data-path="power"] > .field-error'); return !e.hidden && /power/i.test(e.textContent) })()`)
	if data()["power"] != float64(7) {
		t.Fatalf("a refused power changed the data: %v", data()["power"])
	}

	// Markdown, typed in CodeMirror.
	history := `[data-tool-form] > [data-path="history"] .cm-content`
	cmText := func(sel string) string {
		return `CM.EditorView.findFromDOM(document.querySelector('` + sel + `')).state.doc.toString()`
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(history)), chromedp.SendKeys(chromedp.CSS(history), "Founded by **smugglers**."),
		chromedp.KeyEvent(kb.Enter), chromedp.SendKeys(chromedp.CSS(history), "They keep the lights."))
	var founded string
	eventually(t, "history saved", func() bool {
		founded, _ = data()["history"].(string)
		return strings.HasPrefix(founded, "Founded by **smugglers**.\n") && strings.HasSuffix(founded, "\nThey keep the lights.")
	})
	waitJSFor(t, bobCtx, liveWait, "Bob sees the history", cmText(history)+` === `+fmt.Sprintf("%q", founded))

	// Items: add one (the focus goes to it), edit it, add another, move, remove.
	relList := `[data-tool-form] > [data-path="relations"]`
	item := func(n int) string {
		return relList + ` [data-testid="tool-item-edit"]:nth-child(` + fmt.Sprint(n) + `)`
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(relList+` [data-testid="tool-item-add"]`)))
	eventually(t, "relation added", func() bool { return len(relations(data())) == 1 })
	waitJS(t, ctx, "focus in the new item", `document.activeElement.closest('[data-testid="tool-item-edit"]') !== null`)
	eval[bool](t, ctx, choose(item(1)+` [data-path="relations.faction"] select`, ember))
	eval[bool](t, ctx, choose(item(1)+` [data-path="relations.stance"] select`, "war"))
	eventually(t, "relation edited", func() bool {
		r := relations(data())
		return len(r) == 1 && r[0]["faction"] == ember && r[0]["stance"] == "war"
	})
	notes := item(1) + ` [data-path="relations.notes"] .cm-content`
	do(t, ctx, chromedp.Click(chromedp.CSS(notes)), chromedp.SendKeys(chromedp.CSS(notes), "An old grudge."))
	eventually(t, "relation notes saved", func() bool { r := relations(data()); return len(r) == 1 && r[0]["notes"] == "An old grudge." })
	first := relations(data())[0]["id"].(string)

	do(t, ctx, chromedp.Click(chromedp.CSS(relList+` [data-testid="tool-item-add"]`)))
	eventually(t, "second relation", func() bool { return len(relations(data())) == 2 })
	waitJS(t, ctx, "two items", `document.querySelectorAll('`+relList+` [data-testid="tool-item-edit"]').length === 2`)
	second := relations(data())[1]["id"].(string)
	// Moved down from the keyboard: focus the arrow, press Enter.
	do(t, ctx, chromedp.Focus(chromedp.CSS(item(1)+` [data-testid="tool-item-down"]`)), chromedp.KeyEvent(kb.Enter))
	eventually(t, "moved", func() bool { r := relations(data()); return len(r) == 2 && r[0]["id"] == second && r[1]["id"] == first })
	waitJS(t, ctx, "moved on the page", `document.querySelector('`+item(2)+`').dataset.id === "`+first+`"`)
	waitJSFor(t, bobCtx, liveWait, "Bob sees the move", `document.querySelector('`+item(1)+`').dataset.id === "`+second+`"`)
	// The moved item's notes editor came along with its text.
	waitJS(t, ctx, "notes moved along", `document.querySelector('`+item(2)+` [data-path="relations.notes"] .cm-content').textContent === "An old grudge."`)
	look(t, ctx, "tool-editor-desktop")

	// Removed after asking; cancelling keeps it.
	do(t, ctx, chromedp.Click(chromedp.CSS(item(1)+` [data-testid="tool-item-remove"]`)))
	waitJS(t, ctx, "asked", `document.querySelector("#tool-remove-dialog").open`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`#tool-remove-dialog button[value="cancel"]`)))
	waitJS(t, ctx, "dialog closed", `!document.querySelector("#tool-remove-dialog").open`)
	if len(relations(data())) != 2 {
		t.Fatal("cancelled removal removed")
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(item(1)+` [data-testid="tool-item-remove"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="tool-remove-confirm"]`)))
	eventually(t, "removed", func() bool { r := relations(data()); return len(r) == 1 && r[0]["id"] == first })
	waitJSFor(t, bobCtx, liveWait, "Bob sees the removal", `document.querySelectorAll('`+relList+` [data-testid="tool-item-edit"]').length === 1`)

	// Changes made elsewhere reach Ann live, without touching what she is typing.
	do(t, ctx, chromedp.Click(chromedp.CSS(toolField("motto"))), chromedp.KeyEvent(kb.End), chromedp.KeyEvent(" and"))
	_, v := toolData(t, w, tide)
	w.apply(t, tide, "", map[string]any{"op": "faction.setAlignment", "alignment": "lawful"},
		map[string]any{"op": "faction.editHistory", "baseVersion": v, "splices": []map[string]any{{"pos": 0, "del": 0, "ins": "Long ago. "}}})
	waitJS(t, ctx, "alignment live", `document.querySelector('`+toolField("alignment")+`').value === "lawful"`)
	waitJS(t, ctx, "history live", cmText(history)+` === `+fmt.Sprintf("%q", "Long ago. "+founded))
	if got := eval[string](t, ctx, `document.querySelector('`+toolField("motto")+`').value`); got != "By the tide and" {
		t.Fatalf("the motto being typed became %q", got)
	}
	stillSamePage(t, ctx)
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="save-status"]').textContent`); !strings.Contains(got, "saved") {
		t.Fatalf("status %q", got)
	}

	// A restore of an earlier version reaches the form whole.
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+tide+"/restore", map[string]any{"version": mottoVersion}), http.StatusOK)
	waitJS(t, ctx, "restored: no relations", `document.querySelectorAll('`+relList+` [data-testid="tool-item-edit"]').length === 0`)
	waitJS(t, ctx, "restored: no history", cmText(history)+` === ""`)
	waitJS(t, ctx, "restored: no leader", `document.querySelector('`+toolField("leader")+`').value === ""`)
	waitJSFor(t, bobCtx, liveWait, "Bob sees the restore", `document.querySelector('`+toolField("motto")+`').value === "By the tide"`)
	stillSamePage(t, ctx)

	// The page's controls all have names.
	unnamed := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('[data-tool-editor] input, [data-tool-editor] select, [data-tool-editor] button, [data-tool-editor] .cm-content'))
		.filter(e => !e.closest("dialog") && !(e.getAttribute("aria-label") || (e.labels && e.labels.length) || e.textContent.trim()))
		.map(e => e.outerHTML.slice(0, 80))`)
	if len(unnamed) > 0 {
		t.Errorf("controls without a name: %v", unnamed)
	}
}

// TestBrowserToolScreens looks at the generic editor, a viewer's read view and a quest board
// at desktop and phone widths in a light and a dark theme (LOREWEAVE_SCREENSHOTS=dir saves
// them); none may scroll sideways.
func TestBrowserToolScreens(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann, vi := s.NewUser("Ann Author"), s.NewUser("Vic Viewer")
	paths := map[string][3]string{}
	for theme, genre := range map[string]string{"light": "fantasy", "dark": "sci-fi"} {
		var x struct{ ID, Slug string }
		s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "The Drowned Kingdoms", "genre": genre}), http.StatusCreated).JSON(t, &x)
		w := world{s: s, u: ann, ID: x.ID, Slug: x.Slug}
		s.AddMember(ann, w.ID, vi, "viewer")
		installTestTool(t, s, w.ID, "factions")
		installTestTool(t, s, w.ID, "quests")
		queen := w.doc(t, "Queen Maren", "card", "", "")
		ember := w.doc(t, "Ember Court", "faction", "", "")
		salt := w.doc(t, "Saltmere Guild", "faction", "", "")
		tide := w.doc(t, "Tidewater Compact", "faction", "", "")
		_, v := toolData(t, w, tide)
		w.apply(t, tide, "",
			map[string]any{"op": "faction.setMotto", "motto": "By the tide, for the tide"},
			map[string]any{"op": "faction.setAlignment", "alignment": "chaotic"},
			map[string]any{"op": "faction.setPower", "power": 7},
			map[string]any{"op": "faction.setLeader", "leader": queen},
			map[string]any{"op": "faction.editHistory", "baseVersion": v, "splices": []map[string]any{{"pos": 0, "del": 0,
				"ins": "Founded by **smugglers** in the year of the Long Tide, the Compact rules every harbour from Saltmere to the Drowned Gate.\n\n- keeps the lighthouses lit\n- *taxes the pearl trade*"}}},
			map[string]any{"op": "faction.addRelation", "faction": ember, "stance": "war", "notes": "They burned the *Grey Wake*."},
			map[string]any{"op": "faction.addRelation", "faction": salt, "stance": "ally", "notes": "Sworn at the Salt Moot."},
		)
		quests := []struct {
			name, state, goal string
			reward            int
			giver             string
		}{
			{"The Drowned Crown", "underway", "Raise the crown from the Sunken Gate", 500, tide},
			{"The Bell of Saltmere", "open", "Find who rings the bell at low tide", 40, salt},
			{"Ashes of the Grey Wake", "rumoured", "Learn who burned the ship", 0, ""},
			{"Pearl tax", "done", "Collect the pearl tax from the outer isles", 120, tide},
		}
		for _, q := range quests {
			id := w.doc(t, q.name, "quest", "", "")
			w.apply(t, id, "", map[string]any{"op": "quest.setState", "state": q.state}, map[string]any{"op": "quest.setGoal", "goal": q.goal},
				map[string]any{"op": "quest.setReward", "reward": q.reward}, map[string]any{"op": "quest.setGiver", "giver": q.giver})
		}
		board := project(t, w, "Quests of the Tide", "quest-board")
		paths[theme] = [3]string{"/w/" + w.Slug + "/d/" + tide, "/w/" + w.Slug + "/p/" + board, ""}
	}
	signInTo(t, ctx, s, ann, paths["light"][0], `[data-testid="tool-editor"]`)
	for _, width := range []int64{1366, 390} {
		do(t, ctx, chromedp.EmulateViewport(width, 900))
		for _, theme := range []string{"light", "dark"} {
			do(t, ctx, chromedp.Navigate(s.URL+paths[theme][0]), chromedp.WaitVisible(chromedp.CSS(`[data-testid="tool-editor"] .cm-content`)))
			waitJS(t, ctx, "saved state", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
			look(t, ctx, fmt.Sprintf("tool-editor-%s-%d", theme, width))
			do(t, ctx, chromedp.Navigate(s.URL+paths[theme][1]), chromedp.WaitVisible(chromedp.CSS(`[data-testid="board"]`)))
			look(t, ctx, fmt.Sprintf("quest-board-%s-%d", theme, width))
		}
	}
	viewer := browser(t)
	signInTo(t, viewer, s, vi, paths["light"][0], `[data-testid="tool-view"]`)
	if eval[bool](t, viewer, `document.querySelector("[data-tool-editor]") !== null`) {
		t.Fatal("a viewer got the editor")
	}
	for _, width := range []int64{1366, 390} {
		do(t, viewer, chromedp.EmulateViewport(width, 900), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid="tool-view"]`)))
		look(t, viewer, fmt.Sprintf("tool-view-light-%d", width))
	}
}

// TestBrowserToolEditorChecksAndValues: a list of values is set whole, one value a line; a
// checkbox of a list's item is saved with the list's update op.
func TestBrowserToolEditorChecksAndValues(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	installTestTool(t, s, w.ID, "quests")
	quest := w.doc(t, "The Drowned Crown", "quest", "", "")
	data := func() map[string]any { d, _ := toolData(t, w, quest); return d }
	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+quest, `[data-testid="tool-editor"]`)
	streamOpen(t, ctx)

	do(t, ctx, chromedp.SendKeys(chromedp.CSS(toolField("tags")), "sea\ncrown"), chromedp.KeyEvent(kb.Tab))
	eventually(t, "tags saved", func() bool {
		tags, _ := data()["tags"].([]any)
		return len(tags) == 2 && tags[0] == "sea" && tags[1] == "crown"
	})
	steps := `[data-tool-form] > [data-path="steps"]`
	do(t, ctx, chromedp.Click(chromedp.CSS(steps+` [data-testid="tool-item-add"]`)))
	waitJS(t, ctx, "a step", `document.activeElement.matches('`+steps+` [data-path="steps.text"] input')`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(steps+` [data-path="steps.text"] input`), "Find the diver\n"),
		chromedp.Click(chromedp.CSS(steps+` [data-path="steps.done"] input`)))
	eventually(t, "step saved", func() bool {
		list, _ := data()["steps"].([]any)
		if len(list) != 1 {
			return false
		}
		step := list[0].(map[string]any)
		return step["text"] == "Find the diver" && step["done"] == true
	})
	waitJS(t, ctx, "the item is named by its text", `document.querySelector('`+steps+` .tool-item-title').textContent === "Find the diver"`)
	if got := eval[string](t, ctx, `document.querySelector('`+steps+` [data-path="steps.done"] input').getAttribute("aria-label")`); got != "Done, Find the diver" {
		t.Fatalf("checkbox name %q", got)
	}

	// A project of the tool's app kind, created elsewhere, appears on the world page with a
	// link to its page. (Leaving while a write is unanswered asks first, and a dialog would
	// hold the navigation: wait for the page to say everything is saved.)
	waitJS(t, ctx, "all saved", `document.querySelector('[data-save-status]').textContent === "All changes saved"`)
	do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug), chromedp.WaitVisible(chromedp.CSS(`#documents`)))
	streamOpen(t, ctx)
	board := project(t, w, "Quests of the Tide", "quest-board")
	waitJS(t, ctx, "the project, live", `(document.querySelector('[data-testid="project"][data-id="`+board+`"] a[data-testid="project-open"]') || {}).pathname === "/w/`+w.Slug+`/p/`+board+`"`)
}

// toolTypistJS types count markers (and filler letters) at random places of the first
// Markdown field of the generic editor, as keystrokes, and returns the markers.
const toolTypistJS = `(async (seed, count, markerBase) => {
	let s = seed >>> 0;
	const rnd = n => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s % n; };
	const view = CM.EditorView.findFromDOM(document.querySelector('[data-testid="tool-text"] .cm-editor'));
	const fillers = ["a", "é", "😀", " ", "\n", "ß"];
	const inserted = [];
	for (let i = 0; i < count; i++) {
		const doc = view.state.doc.toString();
		const bounds = [0];
		for (let j = 0; j < doc.length;) { j += doc.codePointAt(j) > 0xFFFF ? 2 : 1; bounds.push(j); }
		const at = bounds[rnd(bounds.length)];
		const m = String.fromCodePoint(markerBase + i);
		inserted.push(m);
		const text = (rnd(2) ? fillers[rnd(fillers.length)] : "") + m;
		view.dispatch({ changes: { from: at, insert: text }, selection: { anchor: at + text.length }, userEvent: "input.type" });
		await new Promise(r => setTimeout(r, 2 + rnd(20)));
	}
	return inserted;
})`

// TestBrowserToolEditorTogether: two people type in one Markdown field of a tool document
// at once; both end with the server's text, which holds every character each typed.
func TestBrowserToolEditorTogether(t *testing.T) {
	s := apptest.Start(t)
	ann, bob := s.NewUser("Ann Author"), s.NewUser("Bob Builder")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, bob, "editor")
	installTestTool(t, s, w.ID, "factions")
	tide := w.doc(t, "Tidewater Compact", "faction", "", "")
	path := "/w/" + w.Slug + "/d/" + tide
	ctxs := []context.Context{browser(t), browser(t)}
	for i, u := range []apptest.User{ann, bob} {
		signInTo(t, ctxs[i], s, u, path, `[data-testid="tool-text"] .cm-content`)
		streamOpen(t, ctxs[i])
	}
	const keystrokes = 60
	var wg sync.WaitGroup
	typed := make([][]string, 2)
	errs := make([]error, 2)
	for i := range ctxs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			typed[i], errs[i] = chromedp.Run(ctxs[i], chromedp.Evaluate[[]string](fmt.Sprintf("%s(%d, %d, %d)", toolTypistJS, 7+i, keystrokes, 0x4E00+0x1000*i), chromedp.EvalAwaitPromise))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	text := `CM.EditorView.findFromDOM(document.querySelector('[data-testid="tool-text"] .cm-editor')).state.doc.toString()`
	for i := range ctxs {
		waitJSFor(t, ctxs[i], 5*time.Second, "saved", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
	}
	d, _ := toolData(t, w, tide)
	server, _ := d["history"].(string)
	if utf8.RuneCountInString(server) < 2*keystrokes {
		t.Fatalf("the server has %d characters: %q", utf8.RuneCountInString(server), server)
	}
	for i := range ctxs {
		if _, err := chromedp.Run(ctxs[i], chromedp.Poll[bool](fmt.Sprintf("%s === %q", text, server), chromedp.WithPollingTimeout(5*time.Second))); err != nil {
			t.Errorf("browser %d has %q, the server %q", i, eval[string](t, ctxs[i], text), server)
		}
	}
	for i, list := range typed {
		for _, m := range list {
			if !strings.Contains(server, m) {
				t.Fatalf("browser %d's %q is missing from %q", i, m, server)
			}
		}
	}
	for i := range ctxs {
		if got := eval[string](t, ctxs[i], text); got != server {
			t.Fatalf("browser %d has %q, the server %q", i, got, server)
		}
	}
}
