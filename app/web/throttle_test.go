package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// signInAs submits the sign-in form from a fresh browser.
func signInAs(s *apptest.Server, email, password string) *apptest.Response {
	b := s.Browser()
	return s.PostForm(b, "/login", url.Values{"csrf": {s.CSRFToken(b, "/login")}, "email": {email}, "password": {password}})
}

// wantThrottled checks a 429 with a Retry-After of at most max seconds, and the page's
// message when the answer is a page.
func wantThrottled(t *testing.T, res *apptest.Response, max int, what string) {
	t.Helper()
	if res.Status != http.StatusTooManyRequests {
		t.Fatalf("%s: %d, want 429", what, res.Status)
	}
	if n, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || n < 1 || n > max {
		t.Fatalf("%s: Retry-After %q, want 1 to %d seconds", what, res.Header.Get("Retry-After"), max)
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		if msg := doc(t, res).Find(`[data-testid="error"]`).Text(); !strings.Contains(msg, "Try again in") {
			t.Fatalf("%s: message %q", what, msg)
		}
	}
}

// TestFailedSignInsAreThrottled is the audit's finding: wrong passwords from one address
// used to answer 401 for ever. With the default limits the 11th failure in 15 minutes is
// refused, and then even the right password is not checked.
func TestFailedSignInsAreThrottled(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	for i := range 10 {
		if res := signInAs(s, ann.Email, "wrong password"); res.Status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i+1, res.Status)
		}
	}
	wantThrottled(t, signInAs(s, ann.Email, "wrong password"), 15*60, "11th failure")
	wantThrottled(t, signInAs(s, " ANN@example.test", ann.Password), 15*60, "right password after 10 failures")
	// PocketBase's own password sign-in counts against the same limit.
	res := s.Post("", "/api/collections/users/auth-with-password", map[string]any{"identity": ann.Email, "password": ann.Password})
	wantThrottled(t, res, 15*60, "PocketBase auth-with-password")
	// The limit is per email: Bob can still sign in from the same address.
	bob := s.NewUser("Bob")
	if res := signInAs(s, bob.Email, bob.Password); res.Status != http.StatusSeeOther {
		t.Fatalf("another account: %d", res.Status)
	}
}

// TestSignInLimitPerAddress: one address guessing across many emails is stopped by the
// per-address cap, whatever the email.
func TestSignInLimitPerAddress(t *testing.T) {
	s := apptest.Start(t, apptest.WithSignInLimits(3, 5))
	ann := s.NewUser("Ann")
	for i := range 5 {
		if res := signInAs(s, fmt.Sprintf("nobody%d@example.test", i), "guess"); res.Status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i+1, res.Status)
		}
	}
	wantThrottled(t, signInAs(s, ann.Email, ann.Password), 15*60, "6th attempt from the address")
	res := s.Post("", "/api/collections/users/auth-with-password", map[string]any{"identity": "other@example.test", "password": "guess"})
	wantThrottled(t, res, 15*60, "PocketBase auth-with-password")
	// So is the dashboard's superuser sign-in.
	res = s.Post("", "/api/collections/_superusers/auth-with-password", map[string]any{"identity": "admin@example.test", "password": "guess"})
	wantThrottled(t, res, 15*60, "superuser auth-with-password")
}

// TestSignInSuccessClearsFailures: a user who mistyped and then got it right starts again
// from zero for their email; successes do not count against the address, but its failures
// stay counted.
func TestSignInSuccessClearsFailures(t *testing.T) {
	s := apptest.Start(t, apptest.WithSignInLimits(3, 7))
	ann := s.NewUser("Ann")
	for range 3 {
		for range 2 {
			s.Must(signInAs(s, ann.Email, "wrong password"), http.StatusUnauthorized)
		}
		s.Must(signInAs(s, ann.Email, ann.Password), http.StatusSeeOther)
	}
	// 6 failures and 3 successes from this address: one more failure fills its 7.
	s.Must(signInAs(s, ann.Email, "wrong password"), http.StatusUnauthorized)
	wantThrottled(t, signInAs(s, ann.Email, ann.Password), 15*60, "right password after 7 failures from the address")
}

// TestParallelGuessesAreCounted: attempts count before the password is checked, so guesses
// sent all at once get no more tries than guesses sent one by one.
func TestParallelGuessesAreCounted(t *testing.T) {
	s := apptest.Start(t, apptest.WithSignInLimits(3, 100))
	ann := s.NewUser("Ann")
	type form struct {
		b     *http.Client
		token string
	}
	forms := make([]form, 20)
	for i := range forms {
		forms[i].b = s.Browser()
		forms[i].token = s.CSRFToken(forms[i].b, "/login")
	}
	statuses := make(chan int, len(forms))
	var wg sync.WaitGroup
	for _, f := range forms {
		wg.Go(func() {
			statuses <- s.PostForm(f.b, "/login", url.Values{"csrf": {f.token}, "email": {ann.Email}, "password": {"wrong password"}}).Status
		})
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for st := range statuses {
		count[st]++
	}
	if count[http.StatusUnauthorized] != 3 || count[http.StatusTooManyRequests] != 17 {
		t.Fatalf("20 parallel guesses with a limit of 3: %v", count)
	}
}

// TestSignupsAndRegistrationsAreLimitedPerAddress: one address cannot fill the database with
// accounts or OAuth clients.
func TestSignupsAndRegistrationsAreLimitedPerAddress(t *testing.T) {
	s := apptest.Start(t, apptest.WithSignupLimit(2))
	signup := func(email string) *apptest.Response {
		b := s.Browser()
		return s.PostForm(b, "/signup", url.Values{"csrf": {s.CSRFToken(b, "/signup")}, "email": {email}, "password": {"long enough pw"}})
	}
	s.Must(signup("a@example.test"), http.StatusSeeOther)
	s.Must(signup("a@example.test"), http.StatusUnprocessableEntity) // attempts count, not only accounts
	wantThrottled(t, signup("c@example.test"), 60*60, "3rd sign-up")
	if n := s.Count("users", "email = 'c@example.test'"); n != 0 {
		t.Fatal("the refused sign-up created an account")
	}

	register := func() *apptest.Response {
		return s.Do(apptest.Request{Method: "POST", Path: "/oauth/register", Body: map[string]any{"redirect_uris": []string{"http://127.0.0.1:9/cb"}}})
	}
	s.Must(register(), http.StatusCreated)
	s.Must(register(), http.StatusCreated)
	res := register()
	wantThrottled(t, res, 60*60, "3rd client registration")
	if res.Map(t)["error"] != "rate_limited" {
		t.Fatalf("registration error: %s", res.Body)
	}
}

// TestMailRequestsAreThrottled: PocketBase's anonymous requests that mail an account were
// open to anyone, as often as they liked. They count like sign-ins: the 11th for one email
// from one address in 15 minutes is refused, whichever mail it asks for, and the 51st from
// one address whatever the emails, for users and the dashboard's superusers alike.
func TestMailRequestsAreThrottled(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	reset, verify := "/api/collections/users/request-password-reset", "/api/collections/users/request-verification"
	for i := range 10 {
		path := reset
		if i%2 == 1 {
			path = verify
		}
		if res := s.Post("", path, map[string]any{"email": ann.Email}); res.Status != http.StatusNoContent {
			t.Fatalf("%s, request %d: %d %s", path, i+1, res.Status, res.Body)
		}
	}
	wantThrottled(t, s.Post("", reset, map[string]any{"email": ann.Email}), 15*60, "11th password reset")
	wantThrottled(t, s.Post("", verify, map[string]any{"email": ann.Email}), 15*60, "11th verification")
	// The limit is per email: another address can still be mailed.
	n := 10
	for ; n < 50; n++ {
		if res := s.Post("", "/api/collections/_superusers/request-password-reset", map[string]any{"email": fmt.Sprintf("x%d@example.test", n)}); res.Status != http.StatusNoContent {
			t.Fatalf("request %d from one address, for a new email: %d %s", n+1, res.Status, res.Body)
		}
	}
	wantThrottled(t, s.Post("", reset, map[string]any{"email": "new@example.test"}), 15*60, "51st request from one address")
}
