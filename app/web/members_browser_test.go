package web_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
)

// Ann invites Bob from the members page; Bob, in his own browser, accepts on the worlds page
// and lands in the world; Ann then makes him an editor with the role select. The page is
// looked at in a light and a dark theme, at desktop and phone widths.
func TestBrowserMembersPage(t *testing.T) {
	s := apptest.Start(t)
	ann, bob := s.NewUser("Ann Owner"), s.NewUser("Bob Builder")
	var w struct{ ID, Slug string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Eldoria", "genre": "fantasy"}), http.StatusCreated).JSON(t, &w)
	path := "/w/" + w.Slug + "/members"

	annCtx := browser(t)
	signInTo(t, annCtx, s, ann, path, `[data-testid="invite-form"]`)
	do(t, annCtx,
		chromedp.SendKeys(chromedp.CSS(`#invite-email`), bob.Email),
		chromedp.SetValue(chromedp.CSS(`#invite-role`), "viewer"),
		chromedp.Click(chromedp.CSS(`[data-testid="invite-send"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="notice"]`)),
	)
	waitJS(t, annCtx, "the pending invitation", `document.querySelector('[data-testid="invitation"] td')?.textContent === "bob.builder@example.test"`)

	bobCtx := browser(t)
	signInTo(t, bobCtx, s, bob, "/", `[data-testid="my-invitation"]`)
	look(t, bobCtx, "members-invitation-home")
	accessible(t, bobCtx, axeSource(t), "members-invitation-home")
	do(t, bobCtx,
		chromedp.Click(chromedp.CSS(`[data-testid="accept-invitation"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="world-name"]`)),
	)
	if got := eval[string](t, bobCtx, `document.querySelector('[data-testid="world-name"]').textContent`); got != "Eldoria" {
		t.Fatalf("Bob landed on %q", got)
	}
	look(t, bobCtx, "members-world-page")

	bobRow := fmt.Sprintf(`[data-testid="member"][data-user-id="%s"]`, bob.ID)
	do(t, annCtx, chromedp.Navigate(s.URL+path), chromedp.WaitVisible(chromedp.CSS(bobRow+` select`)))
	if n := eval[int](t, annCtx, `document.querySelectorAll('[data-testid="invitation"]').length`); n != 0 {
		t.Fatalf("%d invitations still pending after Bob accepted", n)
	}
	do(t, annCtx,
		chromedp.SetValue(chromedp.CSS(bobRow+` select`), "editor"),
		chromedp.Click(chromedp.CSS(bobRow+` [data-testid="role-save"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="notice"]`)),
	)
	waitJS(t, annCtx, "Bob is an editor", `document.querySelector('`+bobRow+`').dataset.role === "editor"`)
	if n := s.Count("world_members", "world = '"+w.ID+"' AND user = '"+bob.ID+"' AND role = 'editor'"); n != 1 {
		t.Fatal("Bob is not an editor in the database")
	}

	// Bob, now an editor, sees the list read-only.
	do(t, bobCtx, chromedp.Navigate(s.URL+path), chromedp.WaitVisible(chromedp.CSS(`[data-testid="members"]`)))
	if n := eval[int](t, bobCtx, `document.querySelectorAll('[data-testid="role-form"], [data-testid="invite-form"]').length`); n != 0 {
		t.Fatalf("an editor sees %d management forms", n)
	}

	// A dark world, with an admin, a viewer and an invitation, to look at.
	var dark struct{ ID, Slug string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Starfall", "genre": "sci-fi"}), http.StatusCreated).JSON(t, &dark)
	s.AddMember(ann, dark.ID, bob, "admin")
	s.AddMember(ann, dark.ID, s.NewUser("Vic Viewer"), "viewer")
	s.Invite(ann, dark.ID, "carol@example.test", "editor")
	axe := axeSource(t)
	for _, width := range []int64{1366, 390} {
		do(t, annCtx, chromedp.EmulateViewport(width, 900))
		for name, slug := range map[string]string{"light": w.Slug, "dark": dark.Slug} {
			do(t, annCtx, chromedp.Navigate(s.URL+"/w/"+slug+"/members"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="members"]`)))
			look(t, annCtx, fmt.Sprintf("members-%s-%d", name, width))
			accessible(t, annCtx, axe, fmt.Sprintf("members-%s-%d", name, width))
		}
	}
}
