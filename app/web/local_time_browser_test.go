package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
)

// Times are written by the server in UTC and shown in the reader's own time zone: a reader
// in Kolkata (UTC+5:30) sees the key's creation and a history row's time span in theirs, also
// in a row that arrives live, and the exact moment in the title.
func TestBrowserLocalTimes(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	card := w.doc(t, "Vharn", "card", "", "")
	api := "/api/v1/worlds/" + w.ID + "/documents/" + card + "/content"
	s.Must(s.Post(ann.Key, api, map[string]any{"ops": []any{
		map[string]any{"op": "card.addSection", "title": "Biography", "body": "Born in the north."}}}), http.StatusOK)

	ctx := browser(t)
	inKolkata := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		if _, err := cdp.Call(ctx, tg, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: "en_GB"}); err != nil {
			return chromedp.Void{}, err
		}
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Kolkata"})
		return chromedp.Void{}, err
	}
	do(t, ctx, inKolkata)
	signInTo(t, ctx, s, ann, "/settings/api-keys", `[data-testid="key"]`)
	kolkata := time.FixedZone("IST", 5*3600+1800)
	// local is what a <time data-local> element shows and what it should show for its datetime
	// in Kolkata, in the given Go layout.
	check := func(sel, layout string) {
		t.Helper()
		got := eval[[]string](t, ctx, `(() => { const e = document.querySelector('`+sel+`'); return [e.textContent, e.getAttribute("datetime")]; })()`)
		at, err := time.Parse(time.RFC3339, got[1])
		if err != nil {
			t.Fatalf("%s: datetime %q: %v", sel, got[1], err)
		}
		if want := at.In(kolkata).Format(layout); !strings.Contains(got[0], want) || strings.Contains(got[0], "UTC") {
			t.Fatalf("%s shows %q, want the time in Kolkata (%s)", sel, got[0], want)
		}
	}
	waitJS(t, ctx, "the key's time written again", `!document.querySelector('[data-testid="key"] time').textContent.includes("UTC")`)
	check(`[data-testid="key"] time`, "15:04")

	path := "/w/" + w.Slug + "/d/" + card + "/history"
	do(t, ctx, chromedp.Navigate(s.URL+path), chromedp.WaitVisible(chromedp.CSS(`[data-testid="history-item"]`)))
	waitJS(t, ctx, "history live", `document.querySelector("[data-live-status]").textContent === "Live"`)
	s.Must(s.Post(ann.Key, api, map[string]any{"ops": []any{map[string]any{"op": "card.rename", "name": "Vharn the Bold"}}}), http.StatusOK)
	waitJS(t, ctx, "a row of two versions", `!!document.querySelector('[data-testid="history-span"]')`)
	waitJS(t, ctx, "its span written again", `!document.querySelector('[data-testid="history-span"]').textContent.includes("UTC")`)
	check(`[data-testid="history-span"] time:last-of-type`, "15:04")
	check(`[data-testid="history-entry"] time`, "15:04:05")
	title := eval[string](t, ctx, `document.querySelector('[data-testid="history-item"] time').title`)
	if strings.Contains(title, "UTC") || !strings.Contains(title, time.Now().In(kolkata).Format("2006")) {
		t.Fatalf("the exact moment in the title: %q", title)
	}

	// A public wiki's recent changes too.
	_, home := w.wiki(t, "Tidewater Wiki", map[string]any{"visibility": "public"})
	do(t, ctx, chromedp.Navigate(s.URL+home), chromedp.WaitVisible(chromedp.CSS(`[data-testid="wiki-recent-item"] time`)))
	waitJS(t, ctx, "the wiki's time written again", `!document.querySelector('[data-testid="wiki-recent-item"] time').textContent.includes("UTC")`)
	check(`[data-testid="wiki-recent-item"] time`, "15:04")
}
