package web_test

import (
	"net/http"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
)

// The target's page shows "Linked from" and follows it live: a write to another document
// that links it adds the backlink (with its sentence), one that removes the link takes it
// away, on a card being edited as on a timeline being read.
func TestBrowserBacklinksLive(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Eldoria")
	vharn := w.doc(t, "Vharn", "card", "", "")
	ossa := w.doc(t, "Ossa", "folder", "", "")
	wars := w.doc(t, "Wars", "timeline", "", "")
	content := func(doc string, ops ...map[string]any) {
		s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+doc+"/content", map[string]any{"ops": ops}), http.StatusOK)
	}

	signInTo(t, ctx, s, ann, "/w/"+w.Slug, `#documents`)
	for _, page := range []struct{ name, doc, target string }{
		{"card editor", vharn, "Vharn"},
		{"timeline", wars, "Wars"},
	} {
		t.Run(page.name, func(t *testing.T) {
			do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug+"/d/"+page.doc), chromedp.WaitVisible(chromedp.CSS(`[data-testid="backlinks"]`)))
			waitJS(t, ctx, "empty list", `!!document.querySelector('[data-testid="backlinks-empty"]')`)
			streamOpen(t, ctx)
			content(ossa, map[string]any{"op": "folder.setDescription", "description": "Home of the forge. Built by [[" + page.target + "]] long ago."})
			waitJS(t, ctx, "backlink added", `(() => {
				const li = document.querySelector('[data-testid="backlink"]');
				return !!li && li.querySelector("a").textContent === "Ossa" && li.querySelector(".backlink-context").textContent === "Built by `+page.target+` long ago.";
			})()`)
			if page.name == "card editor" {
				look(t, ctx, "backlinks")
			}
			content(ossa, map[string]any{"op": "folder.setDescription", "description": "Empty."})
			waitJS(t, ctx, "backlink removed", `!document.querySelector('[data-testid="backlink"]') && !!document.querySelector('[data-testid="backlinks-empty"]')`)
		})
	}

	t.Run("links render with the current name", func(t *testing.T) {
		content(ossa, map[string]any{"op": "folder.setDescription", "description": "Built by [[Vharn]] and [[Nobody]]."})
		s.Must(s.Do(apptest.Request{Method: "PATCH", Path: "/api/v1/worlds/" + w.ID + "/documents/" + vharn, Key: ann.Key, Body: map[string]any{"name": "Vharn Ironhand"}}), http.StatusOK)
		do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug+"/d/"+ossa), chromedp.WaitVisible(chromedp.CSS(`#doc-body`)))
		waitJS(t, ctx, "link by current name", `(() => {
			const a = document.querySelector("#doc-body a.doclink");
			return !!a && a.textContent === "Vharn Ironhand" && a.getAttribute("href") === "/w/`+w.Slug+`/d/`+vharn+`"
				&& document.querySelector("#doc-body .doclink-unresolved").textContent === "Nobody";
		})()`)
		if os.Getenv("LOREWEAVE_SCREENSHOTS") != "" {
			look(t, ctx, "links")
		}
	})
}
