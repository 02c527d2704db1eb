package web_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// The account page in a browser: reached from the header, its controls by keyboard; a wrong
// password is said next to its field; the name is saved; deleting the account asks first and
// is refused while the user owns a world, which is listed. The account pages pass axe at
// desktop and phone width, light and dark (LOREWEAVE_SCREENSHOTS keeps pictures of them).
func TestBrowserAccountPage(t *testing.T) {
	axe := axeSource(t)
	ctx := browser(t)
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	newWorld(t, s, ann, "Eldoria")

	signInTo(t, ctx, s, ann, "/", `[data-testid="account-link"]`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="account-link"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="name-form"]`)))

	// Tab from the name field reaches the save button, then the email form.
	do(t, ctx, chromedp.Focus(chromedp.CSS(`#account-name`)), chromedp.KeyEvent(kb.Tab))
	waitJS(t, ctx, "tab to save", `document.activeElement.textContent === "Save name"`)
	do(t, ctx, chromedp.KeyEvent(kb.Tab))
	waitJS(t, ctx, "tab to the email", `document.activeElement.id === "new-email"`)

	eval[bool](t, ctx, `(document.querySelector("#account-name").value = "", true)`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#account-name`), "Ann Author"),
		chromedp.Submit(chromedp.CSS(`[data-testid="name-form"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="notice"]`)))
	waitJS(t, ctx, "name in the header", `document.querySelector('[data-testid="signed-in-as"]').textContent === "Ann Author"`)

	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#current-password`), "wrong password"), chromedp.SendKeys(chromedp.CSS(`#new-password`), "a new password"),
		chromedp.Submit(chromedp.CSS(`[data-testid="password-form"]`)), chromedp.WaitVisible(chromedp.CSS(`#current-password-error`)))
	waitJS(t, ctx, "error tied to the field", `document.querySelector("#current-password").getAttribute("aria-describedby") === "current-password-error"`)

	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#delete-password`), ann.Password), chromedp.Click(chromedp.CSS(`[data-testid="delete-account"]`)))
	waitJS(t, ctx, "asks first", `document.querySelector('[data-testid="confirm-dialog"]').open`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="confirm-go"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="owned-worlds"]`)))
	waitJS(t, ctx, "owned world listed", `document.querySelector('[data-testid="owned-worlds"] a').textContent === "Eldoria"`)

	u, err := s.PB.FindAuthRecordByEmail("users", ann.Email)
	if err != nil {
		t.Fatal(err)
	}
	token, err := u.NewPasswordResetToken()
	if err != nil {
		t.Fatal(err)
	}
	for _, width := range []int64{1366, 390} {
		for _, theme := range []string{"light", "dark"} {
			dark := `document.documentElement.dataset.theme = ""; true`
			if theme == "dark" {
				dark = `document.documentElement.dataset.theme = "starlight"; true`
			}
			do(t, ctx, chromedp.EmulateViewport(width, 900))
			for _, p := range []struct{ name, path, ready string }{
				{"account", "/settings/account", `[data-testid="delete-form"]`},
				{"forgot-password", "/forgot-password", `[data-testid="no-mail"]`},
				{"reset-password", "/reset-password?token=" + url.QueryEscape(token), `[data-testid="reset-form"]`},
			} {
				do(t, ctx, chromedp.Navigate(s.URL+p.path), chromedp.WaitVisible(chromedp.CSS(p.ready)))
				if p.name == "account" {
					// Show the page with an error next to a field.
					do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#email-password`), "wrong"), chromedp.SendKeys(chromedp.CSS(`#new-email`), "ann.new@example.test"),
						chromedp.Submit(chromedp.CSS(`[data-testid="email-form"]`)), chromedp.WaitVisible(chromedp.CSS(`#email-password-error`)))
				}
				eval[bool](t, ctx, dark)
				accessible(t, ctx, axe, fmt.Sprintf("account-%s-%d-%s", p.name, width, theme))
			}
		}
	}
}
