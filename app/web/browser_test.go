package web_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// liveWait is how long a change made through the API may take to show in an open page.
const liveWait = 2 * time.Second

// chromium returns the browser to drive. Without one the test is skipped, except under CI
// (CI=true), where browser tests must run.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "/usr/bin/chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; CI must run the browser tests (apt-get install chromium)")
	}
	t.Skip("chromium is not installed (apt-get install chromium); skipping the browser test")
	return ""
}

// browser starts a headless chromium with a fresh profile and returns a tab's context.
// Uncaught exceptions and CSP reports in the pages fail the test: the pages must run under
// their CSP without complaint.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(tctx, 60*time.Second)
	messages := chromedp.Console(ctx) // starts the browser
	var problems []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || (m.Type == chromedp.ConsoleError && strings.Contains(m.Text, "Content Security Policy")) ||
				strings.Contains(m.Text, "loreweave editor:") {
				problems = append(problems, fmt.Sprintf("%s (%s:%d)", m.String(), m.URL, m.Line))
			}
		}
	}()
	t.Cleanup(func() {
		cancelTime()
		<-done
		cancelTab()
		cancelAlloc()
		for _, p := range problems {
			t.Errorf("browser console: %s", p)
		}
	})
	return ctx
}

// signInTo signs u in through the form and lands on path, waiting for sel.
func signInTo(t *testing.T, ctx context.Context, s *apptest.Server, u apptest.User, path, sel string) {
	t.Helper()
	do(t, ctx,
		chromedp.Navigate(s.URL+"/login?next="+url.QueryEscape(path)),
		chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), u.Email),
		chromedp.SendKeys(chromedp.CSS(`#password`), u.Password),
		chromedp.Submit(chromedp.CSS(`form[data-testid="login-form"]`)),
		chromedp.WaitVisible(chromedp.CSS(sel)),
	)
}

// waitJS polls a JavaScript expression until it is true, for at most liveWait.
func waitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	waitJSFor(t, ctx, liveWait, what, expr)
}

// waitJSFor polls a JavaScript expression until it is true, for at most within.
func waitJSFor(t *testing.T, ctx context.Context, within time.Duration, what, expr string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(within), chromedp.WithPollingInterval(25*time.Millisecond)))
	if err != nil {
		state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("main") ? document.querySelector("main").innerHTML.slice(0, 3000) : ""`))
		t.Fatalf("%s: not within %s: %v\n%s", what, within, err, state)
	}
}

// eval runs JavaScript and returns its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("eval %s: %v", expr, err)
	}
	return v
}

// do runs browser steps, failing the test on error.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// colorScheme makes the page's system look light or dark (prefers-color-scheme).
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return chromedp.Void{}, err
	}
}

// noReload marks the page; stillSamePage checks the mark survived (no navigation happened).
func noReload(t *testing.T, ctx context.Context) {
	t.Helper()
	eval[string](t, ctx, `window.__lwMarker = "kept"`)
}

func stillSamePage(t *testing.T, ctx context.Context) {
	t.Helper()
	if m := eval[string](t, ctx, `window.__lwMarker || ""`); m != "kept" {
		t.Fatalf("the page reloaded (marker %q)", m)
	}
}

// streamOpen waits until the page's event stream reports itself live, so the test measures
// delivery rather than connection set-up.
func streamOpen(t *testing.T, ctx context.Context) {
	t.Helper()
	waitJS(t, ctx, "stream open", `(document.querySelector("[data-live-status]") || {}).textContent === "Live"`)
}

func TestBrowserLivePages(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Eldoria")
	places := w.doc(t, "Places", "folder", "", "")
	zed := w.doc(t, "Zed", "card", "", "")
	tl := w.doc(t, "History", "timeline", "", "")
	w.apply(t, tl, "", map[string]any{"op": "timeline.addEvent", "label": "Founding", "dateMs": 0})
	an := w.doc(t, "Dragon", "animator", "", "")
	w.apply(t, an, "",
		map[string]any{"op": "animator.setModel", "url": "/static/models/dragon.glb", "name": "Dragon rig"},
		map[string]any{"op": "animator.setClips", "clips": []map[string]any{{"id": "idle"}, {"id": "fly"}}},
		map[string]any{"op": "animator.setActiveClip", "clipId": "idle"},
	)
	tlPath := "/w/" + w.Slug + "/d/" + tl

	// Sign in through the form; it brings us back to the timeline.
	signInTo(t, ctx, s, ann, tlPath, `ol[data-testid="timeline"]`)

	t.Run("timeline", func(t *testing.T) {
		noReload(t, ctx)
		streamOpen(t, ctx)
		w.apply(t, tl, "", map[string]any{"op": "timeline.addEvent", "label": "Second landing", "dateMs": 86400000})
		waitJS(t, ctx, "new event shown", `Array.from(document.querySelectorAll('[data-testid="event-label"]')).map(e => e.textContent).join("|") === "Founding|Second landing"`)
		waitJS(t, ctx, "version shown", `document.querySelector('[data-testid="version"]').textContent === "2"`)
		stillSamePage(t, ctx)
		// Ann sees herself watching: initials on her colour.
		waitJS(t, ctx, "presence", `(() => { const v = document.querySelector('[data-testid="viewer"]');
			return v && v.textContent.startsWith("AA") && v.style.backgroundColor !== "" && !document.querySelector("[data-presence-bar]").hidden })()`)
	})

	t.Run("animator", func(t *testing.T) {
		do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug+"/d/"+an), chromedp.WaitReady(chromedp.CSS(`model-viewer`)))
		if name := eval[string](t, ctx, `document.querySelector("model-viewer").getAttribute("animation-name")`); name != "idle" {
			t.Fatalf("initial animation %q", name)
		}
		noReload(t, ctx)
		eval[bool](t, ctx, `!!(window.__lwModel = document.querySelector("model-viewer"))`)
		streamOpen(t, ctx)
		w.apply(t, an, "", map[string]any{"op": "animator.setActiveClip", "clipId": "fly"})
		waitJS(t, ctx, "animation-name", `document.querySelector("model-viewer").getAttribute("animation-name") === "fly"`)
		waitJS(t, ctx, "active clip", `Array.from(document.querySelectorAll('[data-play-clip][aria-pressed="true"]')).map(e => e.dataset.playClip).join() === "fly"`)
		stillSamePage(t, ctx)
		if !eval[bool](t, ctx, `window.__lwModel === document.querySelector("model-viewer")`) {
			t.Fatal("the <model-viewer> element was replaced instead of updated")
		}
	})

	t.Run("card", func(t *testing.T) {
		card := w.doc(t, "Aria", "card", "", "")
		w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Biography",
			"body": "Brave.\n\n<script>window.pwned = 1</script>\n\n<img src=x onerror=\"window.pwned = 2\">"})
		// Ann may edit: the page is the editor, whose preview shows the sanitised rendering.
		do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug+"/d/"+card), chromedp.WaitVisible(chromedp.CSS(`[data-testid="card-editor"] .cm-content`)))
		noReload(t, ctx)
		streamOpen(t, ctx)
		var got struct {
			Content struct {
				Data struct{ Sections []struct{ ID string } }
			}
		}
		s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card), 200).JSON(t, &got)
		w.apply(t, card, "", map[string]any{"op": "card.updateSection", "id": got.Content.Data.Sections[0].ID,
			"body": "Now **bolder**. <script>window.pwned = 3</script>"})
		waitJS(t, ctx, "section updated", `document.querySelector('[data-testid="section-body-editor"] .cm-content').textContent === "Now **bolder**. <script>window.pwned = 3</script>"`)
		do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="section-preview"]`)))
		waitJS(t, ctx, "preview", `(document.querySelector('[data-testid="section-preview-html"] strong') || {}).textContent === "bolder"`)
		if eval[bool](t, ctx, `"pwned" in window`) {
			t.Fatal("a script from a section body ran")
		}
		stillSamePage(t, ctx)
	})

	t.Run("map", func(t *testing.T) {
		m := w.doc(t, "Realm", "map", places, "")
		w.apply(t, m, "",
			map[string]any{"op": "map.setImage", "url": "/static/vendor/leaflet/images/layers-2x.png", "width": 800, "height": 600},
			map[string]any{"op": "map.addPin", "x": 100, "y": 50, "label": "Harbour"},
		)
		do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug+"/d/"+m), chromedp.WaitVisible(chromedp.CSS(`.map.leaflet-container`)))
		waitJS(t, ctx, "marker drawn", `document.querySelectorAll(".leaflet-marker-icon").length === 1`)
		noReload(t, ctx)
		eval[bool](t, ctx, `!!(window.__lwMap = document.querySelector(".map"))`)
		streamOpen(t, ctx)
		w.apply(t, m, "", map[string]any{"op": "map.addPin", "x": 700, "y": 500, "label": "Castle", "documentId": places})
		waitJS(t, ctx, "new marker", `document.querySelectorAll(".leaflet-marker-icon").length === 2 && document.querySelectorAll('[data-testid="pin"]').length === 2`)
		if !eval[bool](t, ctx, `window.__lwMap === document.querySelector(".map") && !!window.__lwMap._loreweaveMap`) {
			t.Fatal("the map was rebuilt instead of updated")
		}
		stillSamePage(t, ctx)
	})

	t.Run("folder", func(t *testing.T) {
		do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug+"/d/"+places), chromedp.WaitVisible(chromedp.CSS(`#doc-body`)))
		noReload(t, ctx)
		streamOpen(t, ctx)
		inn := w.doc(t, "Inn", "card", places, "")
		waitJS(t, ctx, "child listed", fmt.Sprintf(`!!document.querySelector('[data-testid="children"] li[data-id="%s"]')`, inn))
		stillSamePage(t, ctx)
	})

	t.Run("world tree", func(t *testing.T) {
		do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug), chromedp.WaitVisible(chromedp.CSS(`[data-testid="documents"]`)))
		noReload(t, ctx)
		streamOpen(t, ctx)
		castle := w.doc(t, "Castle", "card", places, "")
		aardvark := w.doc(t, "Aardvark", "card", "", "")
		var e struct{ ID string }
		s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/eras", map[string]any{"name": "Second Age"}), 201).JSON(t, &e)
		waitJS(t, ctx, "document filed in its folder", fmt.Sprintf(
			`(() => { const li = document.querySelector('li[data-id="%s"]'); return !!li && li.parentElement.closest("li").dataset.id === "%s" })()`, castle, places))
		waitJS(t, ctx, "top level in order", `Array.from(document.querySelectorAll('[data-testid="documents"] > li')).map(li => li.dataset.name).join() === "Places,Aardvark,Aria,Dragon,History,Zed"`)
		waitJS(t, ctx, "era listed", fmt.Sprintf(`!!document.querySelector('#eras li[data-id="%s"] a[href="/w/%s?era=%s"]')`, e.ID, w.Slug, e.ID))

		// Rename and move: the item follows, in order.
		docPath := "/api/v1/worlds/" + w.ID + "/documents/"
		patch := func(id string, body map[string]any) {
			s.Must(s.Do(apptest.Request{Method: "PATCH", Path: docPath + id, Key: ann.Key, Body: body}), 200)
		}
		patch(castle, map[string]any{"parentId": ""})
		patch(castle, map[string]any{"name": "Castle Rock"})
		waitJS(t, ctx, "renamed and moved", `Array.from(document.querySelectorAll('[data-testid="documents"] > li')).map(li => li.dataset.name).join() === "Places,Aardvark,Aria,Castle Rock,Dragon,History,Zed"
			&& document.querySelector('li[data-id="`+castle+`"] > a').textContent === "Castle Rock"`)

		// A deletion in another era leaves the document here; one on the main line removes it.
		s.Must(s.Do(apptest.Request{Method: "DELETE", Path: docPath + zed + "?era=" + e.ID, Key: ann.Key}), 204)
		s.Must(s.Do(apptest.Request{Method: "DELETE", Path: docPath + aardvark, Key: ann.Key}), 204)
		waitJS(t, ctx, "deleted", `!document.querySelector('li[data-id="`+aardvark+`"]')`)
		time.Sleep(200 * time.Millisecond)
		if !eval[bool](t, ctx, `!!document.querySelector('li[data-id="`+zed+`"]')`) {
			t.Fatal("a deletion in another era removed the document from the main line")
		}
		stillSamePage(t, ctx)
	})

	t.Run("pages left behind hold no stream", func(t *testing.T) {
		// Browsers allow six connections to a server: pages kept in the back/forward cache
		// must close their streams, or the seventh page would hang.
		for i := 0; i < 4; i++ {
			for _, id := range []string{tl, an, places} {
				do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug+"/d/"+id), chromedp.WaitVisible(chromedp.CSS(`#doc-body`)))
			}
		}
		streamOpen(t, ctx)
		deadline := time.Now().Add(liveWait)
		for s.LW.Live.Connections() > 2 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := s.LW.Live.Connections(); n > 2 {
			t.Fatalf("%d stream connections open after leaving pages", n)
		}
		// A page the browser brings back resumes its stream and catches up.
		do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug+"/d/"+tl), chromedp.WaitVisible(chromedp.CSS(`#doc-body`)))
		streamOpen(t, ctx)
		do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug), chromedp.WaitVisible(chromedp.CSS(`#documents`)))
		w.apply(t, tl, "", map[string]any{"op": "timeline.addEvent", "label": "While away", "dateMs": 2 * 86400000})
		// history.back, not NavigateBack: a page restored from the cache fires no load event.
		eval[bool](t, ctx, `(history.back(), true)`)
		caughtUp := `Array.from(document.querySelectorAll('[data-testid="event-label"]')).some(e => e.textContent === "While away")`
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(25 * time.Millisecond) {
			if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](caughtUp)); err == nil && ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the page brought back did not catch up")
			}
		}
	})

	t.Run("search as you type", func(t *testing.T) {
		do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug), chromedp.WaitVisible(chromedp.CSS(`[data-testid="search-input"]`)))
		do(t, ctx, chromedp.SendKeys(chromedp.CSS(`[data-testid="search-input"]`), "Foundi"))
		waitJS(t, ctx, "results while typing", `(() => { const h = document.querySelector('[data-testid="search-hit"]');
			return !!h && h.textContent.includes("History") && !!h.querySelector("mark") })()`)
		noReload(t, ctx)
		do(t, ctx, chromedp.KeyEvent(kb.ArrowDown))
		waitJS(t, ctx, "arrow key moves into the results", `document.activeElement === document.querySelector('[data-testid="search-hit"] a')`)
		do(t, ctx, chromedp.KeyEvent(kb.Escape))
		waitJS(t, ctx, "escape returns to the box", `document.activeElement === document.querySelector('[data-testid="search-input"]')`)
	})
}

// look checks that the page does not scroll sideways and, with LOREWEAVE_SCREENSHOTS set to
// a directory, saves a screenshot of it there as name.png, to look at.
func look(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if wide := eval[bool](t, ctx, `document.documentElement.scrollWidth > window.innerWidth`); wide {
		t.Errorf("%s: the page scrolls sideways (%d px wide in %d)", name, eval[int](t, ctx, `document.documentElement.scrollWidth`), eval[int](t, ctx, `window.innerWidth`))
	}
	dir := os.Getenv("LOREWEAVE_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
