package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os/exec"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// timelineEvents is the size of the big timeline; smallTimeline the page the browser's
// baseline loads.
const (
	timelineEvents = 2000
	smallTimeline  = 10
)

// addEvents fills a timeline with n events through timeline.addEvent, store.MaxOps a request:
// one a year from 3000 BCE on, with precisions from day to century, so the axis draws
// points and spans.
func (t *target) addEvents(world, doc string, n int) error {
	precisions := []string{"day", "year", "month", "decade", "century"}
	const year = 365.2425 * 24 * 3600 * 1000
	start := time.Date(-2999, time.January, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for i := 0; i < n; i += store.MaxOps {
		var batch []map[string]any
		for j := i; j < min(n, i+store.MaxOps); j++ {
			batch = append(batch, map[string]any{"op": "timeline.addEvent", "label": fmt.Sprintf("Event %d: the harvest fails in the river towns", j),
				"dateMs": start + int64(float64(j)*year), "precision": precisions[j%len(precisions)]})
		}
		if err := t.c.do(http.MethodPost, docPath(world, doc)+"/content", bearer(t.key), mustJSON(map[string]any{"ops": batch}), http.StatusOK, nil); err != nil {
			return fmt.Errorf("add events: %w", err)
		}
	}
	return nil
}

// sessionCookie is the web session of a user, as signing in through the form would set it.
func (s *server) sessionCookie(email string) (string, error) {
	u, err := auth.FindUserByEmail(s.PB, email)
	if err != nil {
		return "", err
	}
	return auth.NewSessionToken(u)
}

// runTimeline: the document page of a 2,000-event timeline, as its owner sees it (with the
// timeline editor): the server's render against reading the same document as JSON, and the
// page's time to interactive in headless Chromium against the same page of a 10-event
// timeline.
func (b *bench) runTimeline() error {
	t, err := b.newTarget()
	if err != nil {
		return err
	}
	defer t.close()
	var w struct{ ID, Slug string }
	if err := t.c.do(http.MethodPost, "/api/v1/worlds", bearer(t.key), mustJSON(map[string]any{"name": "Timeline bench"}), http.StatusCreated, &w); err != nil {
		return err
	}
	docs, err := t.documents(w.ID, "timeline", 2)
	if err != nil {
		return err
	}
	big, small := docs[0], docs[1]
	if err := t.addEvents(w.ID, big, timelineEvents); err != nil {
		return err
	}
	if err := t.addEvents(w.ID, small, smallTimeline); err != nil {
		return err
	}
	session, err := t.srv.sessionCookie("bench@bench.test")
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	pagePath := func(doc string) string { return "/w/" + w.Slug + "/d/" + doc }

	signedIn := http.Header{"Cookie": {auth.SessionCookie + "=" + session}}
	htmlSize, err := t.c.bodySize(pagePath(big), signedIn)
	if err != nil {
		return err
	}
	jsonSize, err := t.c.bodySize(docPath(w.ID, big), http.Header{"Authorization": {bearer(t.key)}})
	if err != nil {
		return err
	}
	a, bs := pair(1, b.dur,
		func(int, int) error {
			return t.c.send(http.MethodGet, pagePath(big), signedIn, nil, http.StatusOK, nil)
		},
		func(int, int) error {
			return t.c.do(http.MethodGet, docPath(w.ID, big), bearer(t.key), nil, http.StatusOK, nil)
		})
	r := latencyRow(fmt.Sprintf("timeline page render, %d events", timelineEvents), 1, a, "the same document read as JSON (REST)", bs)
	r.Note = joinNote(r.Note, fmt.Sprintf("GET /w/{slug}/d/{id} signed in as the world's owner (list, axis and editor): %d KiB of HTML; baseline GET /api/v1/worlds/{w}/documents/{d}: %d KiB of JSON",
		htmlSize>>10, jsonSize>>10))
	b.add(r)

	tti, err := b.timelineTTI(t.c.base, session, pagePath(big), pagePath(small))
	if err != nil {
		return fmt.Errorf("time to interactive: %w", err)
	}
	b.add(tti)
	return nil
}

// bodySize reads path once and returns the size of its body.
func (c *client) bodySize(path string, h http.Header) (int, error) {
	req, err := http.NewRequest(http.MethodGet, c.base+path, nil)
	if err != nil {
		return 0, err
	}
	req.Header = h
	res, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: status %d: %.300s", path, res.StatusCode, data)
	}
	return len(data), err
}

// chromiumPath returns the browser the TTI row drives, or "" when none is installed.
func chromiumPath() string {
	for _, name := range []string{"chromium", "/usr/bin/chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// pageTiming is what the browser reports of one load of a timeline page.
type pageTiming struct {
	Response    float64 // responseEnd: the HTML has arrived
	Parsed      float64 // domInteractive: the HTML is parsed, no script has run
	Interactive float64 // domContentLoadedEventEnd: every deferred script has run
	Load        float64 // loadEventEnd
	Ready       bool    // the axis and the editor are shown, the axis holds every event
}

// ttiScript reads the navigation timing of the page and checks that the scripts drew it.
const ttiScript = `(() => {
	const n = performance.getEntriesByType("navigation")[0];
	const axis = document.querySelector("[data-timeline-axis]"), editor = document.querySelector("[data-timeline-editor]");
	const events = document.querySelectorAll('#doc-body li[data-testid="event"]').length;
	return {response: n.responseEnd, parsed: n.domInteractive, interactive: n.domContentLoadedEventEnd, load: n.loadEventEnd,
		ready: !!axis && !axis.hidden && !!editor && !editor.hidden && events > 0 &&
			axis.querySelectorAll(".axis-event").length === events};
})()`

// timelineTTI loads both pages in headless Chromium, in turn A B B A, and returns the row of
// their times to interactive: from navigation start to the end of DOMContentLoaded, by which
// the page's deferred scripts (live.js, timeline_axis.js, timeline_editor.js) have run, drawn
// the axis and shown the editor (checked on every load). Without Chromium the row says it
// was skipped; a page that does not come out drawn is an error.
func (b *bench) timelineTTI(base, session, bigPage, smallPage string) (Row, error) {
	name := fmt.Sprintf("timeline page TTI in Chromium, %d events", timelineEvents)
	baseName := fmt.Sprintf("the same page, %d events", smallTimeline)
	skipped := func(why string) (Row, error) {
		r := valueRow(name, math.NaN(), "ms", baseName, math.NaN())
		r.Note = "skipped: " + why
		logf("  %s: %s", name, r.Note)
		return r, nil
	}
	exe := chromiumPath()
	if exe == "" {
		return skipped("Chromium is not installed (apt-get install chromium)")
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1366, 900))
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(actx)
	defer cancelTab()
	// The first action starts the browser; it must not run under a timeout (see chromedp.Run).
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/login")); err != nil {
		return skipped(fmt.Sprintf("Chromium did not start: %v", err))
	}
	// The session cookie as the sign-in form sets it (HttpOnly only matters to the page's scripts).
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`document.cookie = "`+auth.SessionCookie+`=`+session+`; path=/"`)); err != nil {
		return skipped(fmt.Sprintf("setting the session cookie: %v", err))
	}
	samples, warm := 20, 2
	if b.quick {
		samples, warm = 4, 1
	}
	var ours, baseline stats
	var response, parsed, load []time.Duration
	at := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	visit := func(path string) (pageTiming, error) {
		tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		if err := chromedp.Do(tctx, chromedp.Navigate(base+path)); err != nil {
			return pageTiming{}, err
		}
		pt, err := chromedp.Run(tctx, chromedp.Evaluate[pageTiming](ttiScript))
		if err == nil && !pt.Ready {
			err = fmt.Errorf("%s: the axis or the editor is not shown after the page loaded", path)
		}
		return pt, err
	}
	for i := range warm + samples {
		pages := []string{bigPage, smallPage}
		if i%2 == 1 {
			pages[0], pages[1] = smallPage, bigPage
		}
		for _, p := range pages {
			pt, err := visit(p)
			switch {
			case err != nil:
				return Row{}, err
			case i < warm:
			case p == bigPage:
				ours.lat = append(ours.lat, at(pt.Interactive))
				response, parsed, load = append(response, at(pt.Response)), append(parsed, at(pt.Parsed)), append(load, at(pt.Load))
			default:
				baseline.lat = append(baseline.lat, at(pt.Interactive))
			}
		}
	}
	ours.sort()
	baseline.sort()
	rt, pt, lt := durations(response), durations(parsed), durations(load)
	r := latencyRow(name, 1, ours, baseName, baseline)
	r.Rate, r.BaseRate, r.RateRatio = nanf(), nanf(), nanf()
	r.Note = joinNote(r.Note, fmt.Sprintf("headless Chromium (%s), signed in as the owner, %d loads of each page after %d not measured, static files cached; "+
		"navigation start to the end of DOMContentLoaded, when the deferred scripts have drawn the axis and shown the editor (checked every load); "+
		"of the big page, p50: HTML received %s ms, parsed (domInteractive) %s ms, load event %s ms", exe, samples, warm, ms(rt.pct(50)), ms(pt.pct(50)), ms(lt.pct(50))))
	return r, nil
}
