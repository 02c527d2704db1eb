package web_test

import (
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
)

// A world's genre themes the whole page, in a real browser: the page background is the
// theme's, and text inside its cards is the theme's ink, readable on a dark theme. The
// classic theme and the pages outside a world follow a dark system.
func TestBrowserGenreThemesThePage(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	var neon, plain struct{ Slug string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Night City", "genre": "cyberpunk"}), http.StatusCreated).JSON(t, &neon)
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Plain", "genre": "slice of life"}), http.StatusCreated).JSON(t, &plain)

	signInTo(t, ctx, s, ann, "/w/"+neon.Slug, `#docs-title`)
	style := func(sel, prop string) string {
		return eval[string](t, ctx, `getComputedStyle(document.querySelector("`+sel+`"))["`+prop+`"]`)
	}
	// neon: --bg #0d0b14, --ink #f1e9ff
	if bg := style("html", "backgroundColor"); bg != "rgb(13, 11, 20)" {
		t.Errorf("cyberpunk page background %s, want the neon theme's rgb(13, 11, 20)", bg)
	}
	if ink := style("#docs-title", "color"); ink != "rgb(241, 233, 255)" {
		t.Errorf("heading in a card on the neon theme: %s, want rgb(241, 233, 255)", ink)
	}

	do(t, ctx, chromedp.Navigate(s.URL+"/w/"+plain.Slug), chromedp.WaitVisible(chromedp.CSS(`#docs-title`)))
	if bg := style("html", "backgroundColor"); bg != "rgb(247, 245, 240)" {
		t.Errorf("classic page background %s, want rgb(247, 245, 240)", bg)
	}

	// A reader whose system is dark gets the classic theme and the pages outside a world dark;
	// a world's own theme stays its own.
	do(t, ctx, colorScheme("dark"))
	for _, page := range []struct{ path, ready, bg string }{
		{"/w/" + plain.Slug, `#docs-title`, "rgb(23, 22, 20)"},
		{"/", `[data-testid="worlds"]`, "rgb(23, 22, 20)"},
		{"/w/" + neon.Slug, `#docs-title`, "rgb(13, 11, 20)"},
	} {
		do(t, ctx, chromedp.Navigate(s.URL+page.path), chromedp.WaitVisible(chromedp.CSS(page.ready)))
		if bg := style("html", "backgroundColor"); bg != page.bg {
			t.Errorf("%s on a dark system: background %s, want %s", page.path, bg, page.bg)
		}
	}
	if ink := style("main h2, main h1", "color"); ink != "rgb(241, 233, 255)" {
		t.Errorf("a heading on the neon theme on a dark system: %s", ink)
	}
}
