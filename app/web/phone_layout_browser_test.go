package web_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
)

// phoneProblemsJS lists what makes a page unpleasant on a phone: the page scrolls sideways;
// an editor's control is smaller than 32×32 CSS px, sticks out of the screen or out of a box
// that hides its overflow (the map), overlaps another control, or (a text box) has text under 16 px, which makes iOS zoom in on focus. Editors are
// the card, timeline and map editors with the map itself (Leaflet's buttons and the pin panel);
// a pin's marker is the map's picture, not counted.
const phoneProblemsJS = `(() => {
	const problems = [], de = document.documentElement;
	if (de.scrollWidth > de.clientWidth) problems.push("the page scrolls sideways: " + de.scrollWidth + " px wide in " + de.clientWidth);
	const shown = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden" && !e.closest("dialog:not([open])"); };
	const name = e => e.tagName.toLowerCase() + (e.dataset.testid ? "[" + e.dataset.testid + "]" : "") + " “" + (e.getAttribute("aria-label") || e.textContent || e.placeholder || "").trim().slice(0, 40) + "”";
	const editors = '[data-card-editor], [data-timeline-editor], [data-timeline-axis], .event-actions, [data-map-editor], .leaflet-container';
	const controls = [...new Set(Array.from(document.querySelectorAll(editors)).flatMap(ed =>
		Array.from(ed.querySelectorAll('button, input:not([type=hidden]), select, textarea, .cm-content, a[href], [tabindex="0"]'))))]
		.filter(e => shown(e) && !e.classList.contains("leaflet-marker-icon") && !e.closest(".cm-content"));
	for (const e of controls) {
		const r = e.getBoundingClientRect();
		if (r.width < 32 || r.height < 32) problems.push(name(e) + " is " + Math.round(r.width) + "×" + Math.round(r.height) + " px");
		if (r.left < -1 || r.right > de.clientWidth + 1) problems.push(name(e) + " sticks out of the screen (" + Math.round(r.left) + " to " + Math.round(r.right) + ")");
		for (let a = e.parentElement; a; a = a.parentElement) {
			const o = getComputedStyle(a).overflow;
			if (!o.includes("hidden") && !o.includes("clip")) continue;
			const c = a.getBoundingClientRect();
			if (r.left < c.left - 1 || r.right > c.right + 1 || r.top < c.top - 1 || r.bottom > c.bottom + 1) problems.push(name(e) + " is cut off by " + a.tagName.toLowerCase() + "." + a.classList[0]);
		}
		if (e.matches("input, select, textarea") && parseFloat(getComputedStyle(e).fontSize) < 16) problems.push(name(e) + " has " + getComputedStyle(e).fontSize + " text");
	}
	for (let i = 0; i < controls.length; i++) for (let j = i + 1; j < controls.length; j++) {
		const a = controls[i], b = controls[j];
		if (a.contains(b) || b.contains(a)) continue;
		const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
		if (Math.min(p.right, q.right) - Math.max(p.left, q.left) > 1 && Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > 1) problems.push(name(a) + " overlaps " + name(b));
	}
	return problems;
})()`

// TestBrowserPhoneLayout writes on a phone (a touch screen 390 and 360 px wide) in a light and
// a dark theme: the world page, search, settings, a card in the editor (with a secret section
// and one in preview), its history, a timeline, and a map with a pin's panel open. No page
// scrolls sideways and no editor has a control too small to touch or on top of another.
func TestBrowserPhoneLayout(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	type page struct{ name, path, ready string }
	pages := map[string][]page{}
	for _, theme := range []struct{ name, genre string }{{"light", "fantasy"}, {"dark", "sci-fi"}} {
		var x struct{ ID, Slug string }
		s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "The Drowned Kingdoms", "genre": theme.genre}), http.StatusCreated).JSON(t, &x)
		w := world{s: s, u: ann, ID: x.ID, Slug: x.Slug}
		harbour := w.doc(t, "Harbour of Saltmarsh", "card", "", "")
		card := w.doc(t, "Aria Stormborn", "card", "", "")
		w.apply(t, card, "",
			map[string]any{"op": "card.setAliases", "aliases": []string{"The Tidecaller", "Warden of the Sunken Gate"}},
			map[string]any{"op": "card.setProperty", "key": "Born", "value": "Year 312 of the Long Tide"},
			map[string]any{"op": "card.setProperty", "key": "House", "value": "Stormborn"},
			map[string]any{"op": "card.addSection", "title": "Childhood", "body": "Aria was born during the **Great Storm**, on a ship that never reached port.\n\n- raised by the tide-priests of [[doc:" + harbour + "]]\n- learned to *read the currents*"},
			map[string]any{"op": "card.addSection", "title": "What the priests know", "body": "She is not the first Tidecaller."},
			map[string]any{"op": "card.addSection", "title": "Legends", "body": "Sailors say she can call the tide by name."},
		)
		data, _ := cardData(t, s, ann.Key, w.ID, card)
		w.apply(t, card, "", map[string]any{"op": "card.setSectionSecret", "id": data.Sections[1].ID, "secret": true})
		tl := w.doc(t, "The Long Tide", "timeline", "", "")
		w.apply(t, tl, "",
			map[string]any{"op": "timeline.addEvent", "label": "Founding of Saltmarsh", "dateMs": -70000000000000},
			map[string]any{"op": "timeline.addEvent", "label": "The Great Storm", "dateMs": -52000000000000},
		)
		chart := w.doc(t, "Chart of the Drowned Coast", "map", "", "")
		base := "/w/" + x.Slug
		pages[theme.name] = []page{
			{"world", base, `[data-testid="new-document-form"]`},
			{"search", base + "/search?q=tide", `main`},
			{"settings", base + "/settings", `main`},
			{"card-editor", base + "/d/" + card, `[data-testid="card-editor"] .cm-content`},
			{"history", base + "/d/" + card + "/history", `main`},
			{"timeline-editor", base + "/d/" + tl, `[data-testid="timeline-editor"]`},
			{"map-editor", base + "/d/" + chart, `[data-testid="map-editor"]`},
		}
	}
	signInTo(t, ctx, s, ann, pages["light"][0].path, pages["light"][0].ready)
	coast := pngFile(t, "coast.png", 800, 500, false)
	for _, width := range []int64{390, 360} {
		do(t, ctx, chromedp.EmulateViewport(width, 844, chromedp.EmulateMobile, chromedp.EmulateTouch))
		for _, theme := range []string{"light", "dark"} {
			for _, p := range pages[theme] {
				name := fmt.Sprintf("phone-%s-%s-%d", p.name, theme, width)
				do(t, ctx, chromedp.Navigate(s.URL+p.path), chromedp.WaitVisible(chromedp.CSS(p.ready)))
				switch p.name {
				case "card-editor":
					waitJS(t, ctx, "saved state", `document.querySelector('[data-testid="save-status"]').textContent === "All changes saved"`)
					waitJS(t, ctx, "the secret section", `!!document.querySelector('.section-editor.secret-section')`)
					do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="section-editor"]:nth-child(3) [data-testid="section-preview"]`)))
					waitJS(t, ctx, "preview", `!document.querySelector('[data-testid="section-editor"]:nth-child(3) [data-testid="section-preview-html"]').hidden`)
				case "map-editor":
					if eval[bool](t, ctx, `document.querySelector(".leaflet-image-layer") === null`) {
						do(t, ctx, chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="map-image-file"]`), []string{coast}))
					}
					waitJS(t, ctx, "map drawn", `document.querySelector(".leaflet-image-layer") !== null`)
					do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="pin-add-middle"]`)))
					waitJS(t, ctx, "the pin's panel", `document.activeElement === document.querySelector('[data-testid="pin-label"]')`)
					// The panel fades in while the map pans to show it whole.
					waitJS(t, ctx, "the panel shown", `getComputedStyle(document.querySelector(".leaflet-popup")).opacity === "1" && !document.querySelector(".leaflet-pan-anim, .leaflet-zoom-anim")`)
					do(t, ctx, chromedp.Sleep(300*time.Millisecond))
				}
				for _, problem := range eval[[]string](t, ctx, phoneProblemsJS) {
					t.Errorf("%s: %s", name, problem)
				}
				look(t, ctx, name)
			}
		}
	}
}
