package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/config"
	"github.com/loreweave/loreweave/app/store"
)

// The webhooks page: an owner adds a webhook (its secret shown once), sends a test and sees
// it in the delivery log with its HTTP status and time, sees a change delivered, and a
// refused URL says why beside its field. Looked at light and dark, desktop and phone.
func TestBrowserWebhooksPage(t *testing.T) {
	ctx := browser(t)
	axe := axeSource(t)
	s := apptest.Start(t, func(c *config.Config) { c.WebhooksAllowPrivate = true })
	var calls atomic.Int32
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	defer ok.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusInternalServerError) }))
	defer broken.Close()

	ann := s.NewUser("Ann Hooks")
	var light, dark struct{ ID, Slug string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Harbour", "genre": "fantasy"}), http.StatusCreated).JSON(t, &light)
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Orbit", "genre": "science fiction"}), http.StatusCreated).JSON(t, &dark)

	page := "/w/" + light.Slug + "/webhooks"
	signInTo(t, ctx, s, ann, "/w/"+light.Slug, `[data-testid="webhooks-link"]`)
	do(t, ctx, chromedp.EmulateViewport(390, 900), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid="webhooks-link"]`)))
	look(t, ctx, "webhooks-link-phone")
	do(t, ctx, chromedp.EmulateViewport(1280, 900), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid="webhooks-link"]`)))
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="webhooks-link"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="create-webhook-form"]`)))
	if !strings.HasSuffix(eval[string](t, ctx, `location.pathname`), page) {
		t.Fatalf("the link goes to %s", eval[string](t, ctx, `location.pathname`))
	}

	// No event ticked: refused, in words, beside the events; what was typed stays.
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#webhook-url`), ok.URL+"/hook"), chromedp.Click(chromedp.CSS(`[data-testid="create-webhook"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#webhook-events-error`)))
	if got := eval[string](t, ctx, `document.querySelector('#webhook-url').value`); got != ok.URL+"/hook" {
		t.Errorf("the URL typed is gone: %q", got)
	}

	do(t, ctx,
		chromedp.Click(chromedp.CSS(`#new-document\.created`)),
		chromedp.Click(chromedp.CSS(`#new-document\.content`)),
		chromedp.Click(chromedp.CSS(`[data-testid="create-webhook"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-secret-value"]`)))
	secret := eval[string](t, ctx, `document.querySelector('[data-testid="new-secret-value"]').textContent`)
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret shown: %q", secret)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('[data-testid="webhook"]').length`); n != 1 {
		t.Fatalf("%d webhooks listed", n)
	}

	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="test-webhook"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="delivery"]`)))
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="notice"]').textContent`); !strings.Contains(got, "answered 200") {
		t.Errorf("after the test: %q", got)
	}
	if strings.Contains(eval[string](t, ctx, `document.body.textContent`), secret) {
		t.Error("the secret is shown again after creation")
	}
	row := `document.querySelector('[data-testid="delivery"]')`
	if got := eval[string](t, ctx, row+`.textContent`); !strings.Contains(got, "ping") || !strings.Contains(got, "succeeded") || !strings.Contains(got, "200") || !strings.Contains(got, " ms") {
		t.Errorf("the log's row: %q", got)
	}

	// A change is delivered and appears in the log.
	s.Document(ann, light.ID, "Lighthouse", "card")
	for i := 0; i < 100 && calls.Load() < 2; i++ {
		do(t, ctx, chromedp.Sleep(50e6))
	}
	do(t, ctx, chromedp.Navigate(s.URL+page), chromedp.WaitVisible(chromedp.CSS(`[data-testid="delivery"]`)))
	waitJS(t, ctx, "the document.created delivery", `[...document.querySelectorAll('[data-testid="delivery"]')].some(r => r.textContent.includes('document.created') && r.dataset.status === 'succeeded')`)

	// A loopback target is refused beside the URL when private targets are not allowed is
	// covered by the API tests; here, a receiver that fails shows its error and a disabled
	// webhook its reason (dark theme).
	h, err := s.LW.Store.CreateWebhook(dark.ID, broken.URL+"/hook", []string{"document.created"})
	if err != nil {
		t.Fatal(err)
	}
	d := store.Delivery{ID: store.NewDeliveryID(), WebhookID: h.ID, Seq: 1, Kind: "document.created", Payload: `{}`}
	if err := s.LW.Store.EnqueueDeliveries(mustCursor(t, s), mustCursor(t, s), []store.Delivery{d}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LW.Store.RecordAttempt(d, store.Attempt{Status: 500, Error: "the receiver answered 500 Internal Server Error", Millis: 3, GiveUp: true, DisableAfter: 1}); err != nil {
		t.Fatal(err)
	}
	darkPage := "/w/" + dark.Slug + "/webhooks"
	do(t, ctx, chromedp.Navigate(s.URL+darkPage), chromedp.WaitVisible(chromedp.CSS(`[data-testid="disabled-reason"]`)))
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="test-webhook"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="problem"]`)))
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="problem"]').textContent`); !strings.Contains(got, "500") {
		t.Errorf("a failed test says %q", got)
	}

	for _, v := range []struct {
		name, path string
		width      int64
	}{{"light-desktop", page, 1280}, {"light-phone", page, 390}, {"dark-desktop", darkPage, 1280}, {"dark-phone", darkPage, 390}} {
		do(t, ctx, chromedp.EmulateViewport(v.width, 900), chromedp.Navigate(s.URL+v.path), chromedp.WaitVisible(chromedp.CSS(`[data-testid="webhook"]`)))
		accessible(t, ctx, axe, "webhooks-"+v.name)
		look(t, ctx, "webhooks-"+v.name)
	}
	do(t, ctx, chromedp.EmulateViewport(1280, 900))

	// Enabling clears the reason; deleting asks first.
	do(t, ctx, chromedp.Navigate(s.URL+darkPage), chromedp.WaitVisible(chromedp.CSS(`[data-testid="toggle-webhook"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="toggle-webhook"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="notice"]`)))
	if eval[bool](t, ctx, `!!document.querySelector('[data-testid="disabled-reason"]')`) || eval[string](t, ctx, `document.querySelector('[data-testid="webhook-state"]').textContent`) != "enabled" {
		t.Error("enabled again, the webhook still shows as disabled")
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="delete-webhook"]`)))
	waitJS(t, ctx, "confirmation", `document.querySelector('[data-testid="confirm-dialog"]').open`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="confirm-go"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="no-webhooks"]`)))

	// An editor is not shown the link and cannot open the page.
	ed := s.NewUser("Ed Itor")
	s.AddMember(ann, light.ID, ed, "editor")
	res, err := s.SignIn(ed).Get(s.URL + page)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("an editor opening the webhooks page: %d", res.StatusCode)
	}
}

func mustCursor(t *testing.T, s *apptest.Server) int64 {
	t.Helper()
	c, err := s.LW.Store.WebhookCursor()
	if err != nil {
		t.Fatal(err)
	}
	return c
}
