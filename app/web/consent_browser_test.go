package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
)

// An app connecting over OAuth, in a real browser: sign in, press Allow, and the browser
// lands on the app's own address with a code. The consent page's CSP must let its form's
// redirect go there (browsers hold it to form-action). The consent page passes axe-core at
// a desktop and a phone width.
func TestBrowserConsentReturnsToTheApp(t *testing.T) {
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")

	codes := make(chan url.Values, 1)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case codes <- r.URL.Query():
		default:
		}
		_, _ = w.Write([]byte("connected"))
	}))
	defer app.Close()
	callback := app.URL + "/callback"
	res := s.Do(apptest.Request{Method: "POST", Path: "/oauth/register", Body: map[string]any{"redirect_uris": []string{callback}, "client_name": "Desk app"}})
	var reg struct {
		ClientID string `json:"client_id"`
	}
	s.Must(res, http.StatusCreated).JSON(t, &reg)
	authorize := "/oauth/authorize?" + url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {callback},
		"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}, "state": {"xyz"}}.Encode()

	signInTo(t, ctx, s, ann, authorize, `[data-testid="approve"]`)
	axe := axeSource(t)
	for _, width := range []int64{1366, 390} {
		do(t, ctx, chromedp.EmulateViewport(width, 900))
		accessible(t, ctx, axe, fmt.Sprintf("consent-%d", width))
		look(t, ctx, fmt.Sprintf("consent-%d", width))
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="approve"]`)))
	select {
	case q := <-codes:
		if q.Get("code") == "" || q.Get("state") != "xyz" || q.Get("iss") != s.URL {
			t.Fatalf("the app got %v", q)
		}
	case <-time.After(10 * time.Second):
		loc := eval[string](t, ctx, `location.href`)
		t.Fatalf("Allow did not send the browser back to the app; it is at %s", loc)
	}
}
