package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
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
		do(t, ctx, chromedp.EmulateViewport(width, 900))
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
}
