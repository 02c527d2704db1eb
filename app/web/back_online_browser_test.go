package web_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// offline cuts the page's network (true) or gives it back (false), as the browser sees it:
// navigator.onLine changes and the page gets "offline" and "online" events.
func offline(off bool) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return chromedp.Void{}, err
		}
		// The requests fail (the rule), and the page is told (the state).
		if _, err := cdp.Call(ctx, tg, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			MatchedNetworkConditions: []*network.Conditions{{Offline: off, DownloadThroughput: -1, UploadThroughput: -1}}}); err != nil {
			return chromedp.Void{}, err
		}
		_, err := cdp.Call(ctx, tg, network.OverrideNetworkState, network.OverrideNetworkStateParams{
			Offline: off, DownloadThroughput: -1, UploadThroughput: -1})
		return chromedp.Void{}, err
	}
}

// A writer whose network came back is saved at once: the editor does not wait out its
// retries' back-off (up to 8 s) nor the stream's retry delay once the browser is online.
func TestBrowserBackOnlineSavesAtOnce(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	card := w.doc(t, "Vharn", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Notes", "body": "Start."})

	ctx := browser(t)
	sel := `[data-testid="section-body-editor"] .cm-content`
	signInTo(t, ctx, s, ann, "/w/"+w.Slug+"/d/"+card, sel)
	status := `document.querySelector('[data-testid="save-status"]').textContent`
	waitJS(t, ctx, "saved", status+` === "All changes saved"`)

	do(t, ctx, offline(true))
	waitJS(t, ctx, "the browser offline", `navigator.onLine === false`)
	do(t, ctx, chromedp.Click(chromedp.CSS(sel)), chromedp.KeyEvent(kb.End), chromedp.KeyEvent(" Written offline."))
	waitJS(t, ctx, "offline shown", status+`.startsWith("Offline")`)
	// Retries back off 0.5, 1, 2, 4 s: after 8 s the next one is about 7 s away.
	time.Sleep(8 * time.Second)
	do(t, ctx, offline(false))
	waitJSFor(t, ctx, 3*time.Second, "saved within moments of coming back", status+` === "All changes saved"`)
	var got struct {
		Content struct {
			Data struct{ Sections []struct{ Body string } }
		}
	}
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card), http.StatusOK).JSON(t, &got)
	if body := got.Content.Data.Sections[0].Body; body != "Start. Written offline." {
		t.Fatalf("saved %q", body)
	}
}
