package web_test

import (
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apptest"
)

// signedIn reports whether the browser's session opens the home page.
func signedIn(s *apptest.Server, b *http.Client) bool {
	return s.Do(apptest.Request{Method: "GET", Path: "/", Client: b}).Status == http.StatusOK
}

// formErrorOf returns the error shown next to the control with id, if it is marked invalid
// and tied to it.
func formErrorOf(t *testing.T, res *apptest.Response, id string) string {
	t.Helper()
	d := doc(t, res)
	in := d.Find("#" + id)
	if v, _ := in.Attr("aria-invalid"); v != "true" {
		return ""
	}
	ids, _ := in.Attr("aria-describedby")
	for _, ref := range strings.Fields(ids) {
		if e := d.Find("#" + ref + `[data-testid="form-error"]`); e.Length() == 1 {
			return strings.TrimSpace(e.Text())
		}
	}
	return ""
}

// mailCatcher keeps the account mails PocketBase would send, instead of sending them.
type mailCatcher struct{ sent chan *core.MailerRecordEvent }

func catchMails(s *apptest.Server) mailCatcher {
	s.PB.Settings().SMTP.Enabled = true
	c := mailCatcher{sent: make(chan *core.MailerRecordEvent, 10)}
	keep := func(e *core.MailerRecordEvent) error { c.sent <- e; return nil }
	s.PB.OnMailerRecordPasswordResetSend("users").BindFunc(keep)
	s.PB.OnMailerRecordEmailChangeSend("users").BindFunc(keep)
	return c
}

// next returns the next mail, or nil if none comes within wait.
func (c mailCatcher) next(wait time.Duration) *core.MailerRecordEvent {
	select {
	case e := <-c.sent:
		return e
	case <-time.After(wait):
		return nil
	}
}

var mailLink = regexp.MustCompile(`href="([^"]+)"`)

// link returns the address the mail's button leads to.
func link(t *testing.T, e *core.MailerRecordEvent) string {
	t.Helper()
	m := mailLink.FindStringSubmatch(e.Message.HTML)
	if m == nil {
		t.Fatalf("no link in the mail: %s", e.Message.HTML)
	}
	return strings.ReplaceAll(m[1], "&amp;", "&")
}

// The account page: changing the name (good and bad), the password (wrong current password,
// too short, no CSRF token, then right: other sessions and their streams end, this one stays).
func TestAccountNameAndPassword(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	worldID := s.World(ann, "Eldoria")
	b, other := s.SignIn(ann), s.SignIn(ann)

	d := page(t, s, b, "/", http.StatusOK)
	if href, _ := d.Find(`[data-testid="account-link"]`).Attr("href"); href != "/settings/account" {
		t.Fatalf("header menu account link: %q", href)
	}
	d = page(t, s, b, "/settings/account", http.StatusOK)
	if d.Find(`[data-testid="current-email"]`).Text() != ann.Email {
		t.Fatal("the page does not show the email")
	}
	for _, id := range []string{"account-name", "new-email", "email-password", "current-password", "new-password", "delete-password"} {
		if d.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Fatalf("control %s has no label", id)
		}
	}

	token := s.CSRFToken(b, "/settings/account")
	res := s.Must(s.PostForm(b, "/settings/account/name", url.Values{"csrf": {token}, "name": {"Ann\x1b[2J"}}), http.StatusUnprocessableEntity)
	if msg := formErrorOf(t, res, "account-name"); !strings.Contains(msg, "control character") {
		t.Fatalf("bad name: error %q", msg)
	}
	s.Must(s.PostForm(b, "/settings/account/name", url.Values{"name": {"Mallory"}}), http.StatusForbidden)
	res = s.Must(s.PostForm(b, "/settings/account/name", url.Values{"csrf": {token}, "name": {"  Ann Author  "}}), http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/settings/account?saved=name" {
		t.Fatalf("after saving the name: %s", loc)
	}
	d = page(t, s, b, "/settings/account?saved=name", http.StatusOK)
	if v, _ := d.Find("#account-name").Attr("value"); v != "Ann Author" || d.Find(`[data-testid="notice"]`).Length() != 1 {
		t.Fatalf("name after saving: %q", v)
	}

	res = s.Must(s.PostForm(b, "/settings/account/password", url.Values{"csrf": {token}, "current": {"wrong password"}, "password": {"a new password"}}), http.StatusUnprocessableEntity)
	if msg := formErrorOf(t, res, "current-password"); msg != "Your current password is not right." {
		t.Fatalf("wrong current password: error %q", msg)
	}
	res = s.Must(s.PostForm(b, "/settings/account/password", url.Values{"csrf": {token}, "current": {ann.Password}, "password": {"short"}}), http.StatusUnprocessableEntity)
	if msg := formErrorOf(t, res, "new-password"); !strings.Contains(msg, "at least 8 characters") {
		t.Fatalf("short password: error %q", msg)
	}
	s.Must(s.PostForm(b, "/settings/account/password", url.Values{"current": {ann.Password}, "password": {"a new password"}}), http.StatusForbidden)
	if !signedIn(s, other) {
		t.Fatal("a refused change signed the other session out")
	}

	st := s.StreamRequest("/api/v1/worlds/"+worldID+"/events", nil, other)
	if st.Status != http.StatusOK {
		t.Fatalf("stream: %d", st.Status)
	}
	s.Must(s.PostForm(b, "/settings/account/password", url.Values{"csrf": {token}, "current": {ann.Password}, "password": {"a new password"}}), http.StatusSeeOther)
	if !signedIn(s, b) {
		t.Fatal("changing the password signed this session out")
	}
	if signedIn(s, other) {
		t.Fatal("the other session is still signed in after the password changed")
	}
	if err := st.Closed(2 * time.Second); err != nil {
		t.Fatalf("the other session's stream: %v", err)
	}
	ann.Password = "a new password"
	s.SignIn(ann)
	// API keys keep working.
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+worldID), http.StatusOK)
}

// Without mail, a new email is set at once after the current password; a taken address is
// refused without saying whose it is; other sessions end.
func TestAccountEmailWithoutMail(t *testing.T) {
	s := apptest.Start(t)
	ann, bob := s.NewUser("Ann"), s.NewUser("Bob")
	b, other := s.SignIn(ann), s.SignIn(ann)
	token := s.CSRFToken(b, "/settings/account")
	post := func(email, password string) *apptest.Response {
		return s.PostForm(b, "/settings/account/email", url.Values{"csrf": {token}, "email": {email}, "password": {password}})
	}

	res := s.Must(post("not an email", ann.Password), http.StatusUnprocessableEntity)
	if formErrorOf(t, res, "new-email") == "" {
		t.Fatal("a malformed email: no error next to the field")
	}
	res = s.Must(post("ann2@example.test", "wrong password"), http.StatusUnprocessableEntity)
	if formErrorOf(t, res, "email-password") == "" {
		t.Fatal("a wrong password: no error next to the field")
	}
	res = s.Must(post(strings.ToUpper(bob.Email), ann.Password), http.StatusUnprocessableEntity)
	msg := formErrorOf(t, res, "new-email")
	if msg != "This email address cannot be used for your account; choose another." {
		t.Fatalf("a taken email: %q", msg)
	}
	if v, _ := doc(t, res).Find("#new-email").Attr("value"); v != strings.ToUpper(bob.Email) {
		t.Fatalf("the typed email is not shown again: %q", v)
	}
	s.Must(s.PostForm(b, "/settings/account/email", url.Values{"email": {"ann2@example.test"}, "password": {ann.Password}}), http.StatusForbidden)
	if s.Count("users", "email = 'ann2@example.test'") != 0 || !signedIn(s, other) {
		t.Fatal("a refused change changed something")
	}

	res = s.Must(post(" Ann2@Example.test ", ann.Password), http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/settings/account?saved=email" {
		t.Fatalf("after the change: %s", loc)
	}
	d := page(t, s, b, "/settings/account?saved=email", http.StatusOK)
	if d.Find(`[data-testid="current-email"]`).Text() != "ann2@example.test" {
		t.Fatalf("email shown: %q", d.Find(`[data-testid="current-email"]`).Text())
	}
	if signedIn(s, other) {
		t.Fatal("the other session is still signed in after the email changed")
	}
	ann.Email = "ann2@example.test"
	s.SignIn(ann)
}

// With mail, the new address gets a link to a Loreweave page; nothing changes until it is
// confirmed there. A taken address gets no mail, and the same answer.
func TestAccountEmailWithMail(t *testing.T) {
	s := apptest.Start(t)
	mails := catchMails(s)
	ann, bob := s.NewUser("Ann"), s.NewUser("Bob")
	b := s.SignIn(ann)
	token := s.CSRFToken(b, "/settings/account")

	taken := s.Must(s.PostForm(b, "/settings/account/email", url.Values{"csrf": {token}, "email": {bob.Email}, "password": {ann.Password}}), http.StatusSeeOther)
	if m := mails.next(300 * time.Millisecond); m != nil {
		t.Fatalf("a mail went to a taken address: %v", m.Message.To)
	}
	res := s.Must(s.PostForm(b, "/settings/account/email", url.Values{"csrf": {token}, "email": {"new@example.test"}, "password": {ann.Password}}), http.StatusSeeOther)
	if res.Header.Get("Location") != taken.Header.Get("Location") || res.Header.Get("Location") != "/settings/account?saved=email-sent" {
		t.Fatalf("answers differ: %s, %s", taken.Header.Get("Location"), res.Header.Get("Location"))
	}
	m := mails.next(5 * time.Second)
	if m == nil || m.Message.To[0].Address != "new@example.test" {
		t.Fatal("no confirmation mail to the new address")
	}
	if s.Count("users", "email = 'new@example.test'") != 0 {
		t.Fatal("the email changed before it was confirmed")
	}
	href := link(t, m)
	if !strings.HasPrefix(href, s.URL+"/confirm-email?token=") {
		t.Fatalf("the mail links to %s", href)
	}
	path := strings.TrimPrefix(href, s.URL)
	d := page(t, s, b, path, http.StatusOK)
	if d.Find(`[data-testid="new-email"]`).Text() != "new@example.test" {
		t.Fatal("the confirmation page does not name the new email")
	}
	tok, _ := d.Find(`input[name="token"]`).Attr("value")
	csrf := s.CSRFToken(b, path)
	s.Must(s.PostForm(b, "/confirm-email", url.Values{"token": {tok}}), http.StatusForbidden)
	s.Must(s.PostForm(b, "/confirm-email", url.Values{"csrf": {csrf}, "token": {tok}}), http.StatusSeeOther)
	if s.Count("users", "email = 'new@example.test'") != 1 || !signedIn(s, b) {
		t.Fatal("the email did not change, or the confirming session was signed out")
	}
	// The link works once: the email change renewed the token key.
	page(t, s, b, path, http.StatusBadRequest)
}

// "Forgot password?": the same answer whether or not the email has an account; a mail (to a
// Loreweave page) only for an account; without mail, the operator's command; rate-limited.
func TestForgotPassword(t *testing.T) {
	s := apptest.Start(t, apptest.WithSignInLimits(3, 20))
	ann := s.NewUser("Ann")
	b := s.Browser()

	d := page(t, s, b, "/login", http.StatusOK)
	if href, _ := d.Find(`[data-testid="forgot-password"]`).Attr("href"); href != "/forgot-password" {
		t.Fatal("the sign-in page has no forgot-password link")
	}
	// Without mail: the page says so and names the command.
	d = page(t, s, b, "/forgot-password", http.StatusOK)
	if !strings.Contains(d.Find(`[data-testid="no-mail"]`).Text(), "loreweave users password") || d.Find(`[data-testid="forgot-form"]`).Length() != 0 {
		t.Fatal("without mail the page does not name the operator's command")
	}

	mails := catchMails(s)
	token := s.CSRFToken(b, "/forgot-password")
	s.Must(s.PostForm(b, "/forgot-password", url.Values{"email": {ann.Email}}), http.StatusForbidden)
	known := s.Must(s.PostForm(b, "/forgot-password", url.Values{"csrf": {token}, "email": {ann.Email}}), http.StatusOK)
	m := mails.next(5 * time.Second)
	if m == nil || m.Message.To[0].Address != ann.Email {
		t.Fatal("no reset mail to a known email")
	}
	href := link(t, m)
	if !strings.HasPrefix(href, s.URL+"/reset-password?token=") {
		t.Fatalf("the mail links to %s", href)
	}
	unknown := s.Must(s.PostForm(b, "/forgot-password", url.Values{"csrf": {token}, "email": {"nobody@example.test"}}), http.StatusOK)
	if m := mails.next(300 * time.Millisecond); m != nil {
		t.Fatalf("a mail for an unknown email: %v", m.Message.To)
	}
	answer := func(res *apptest.Response, email string) string {
		return strings.ReplaceAll(doc(t, res).Find("main").Text(), email, "EMAIL")
	}
	if answer(known, ann.Email) != answer(unknown, "nobody@example.test") {
		t.Fatal("the answers for a known and an unknown email differ")
	}
	// Three requests for an email from one address in 15 minutes (the sign-in limit here).
	s.Must(s.PostForm(b, "/forgot-password", url.Values{"csrf": {token}, "email": {ann.Email}}), http.StatusOK)
	s.Must(s.PostForm(b, "/forgot-password", url.Values{"csrf": {token}, "email": {ann.Email}}), http.StatusOK)
	res := s.Must(s.PostForm(b, "/forgot-password", url.Values{"csrf": {token}, "email": {ann.Email}}), http.StatusTooManyRequests)
	if res.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
}

// A reset link (a token from PocketBase) sets a new password once and signs out every session.
func TestResetPassword(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	signedInBefore := s.SignIn(ann)
	u, err := s.PB.FindAuthRecordByEmail("users", ann.Email)
	if err != nil {
		t.Fatal(err)
	}
	token, err := u.NewPasswordResetToken()
	if err != nil {
		t.Fatal(err)
	}
	b := s.Browser()
	path := "/reset-password?token=" + url.QueryEscape(token)
	page(t, s, b, "/reset-password?token=nonsense", http.StatusBadRequest)
	d := page(t, s, b, path, http.StatusOK)
	if d.Find(`[data-testid="reset-form"]`).Length() != 1 {
		t.Fatal("no reset form")
	}
	csrf := s.CSRFToken(b, path)
	s.Must(s.PostForm(b, "/reset-password", url.Values{"token": {token}, "password": {"brand new secret"}}), http.StatusForbidden)
	res := s.Must(s.PostForm(b, "/reset-password", url.Values{"csrf": {csrf}, "token": {token}, "password": {"short"}}), http.StatusUnprocessableEntity)
	if !strings.Contains(formErrorOf(t, res, "password"), "at least 8") {
		t.Fatal("a short password: no error next to the field")
	}
	if !signedIn(s, signedInBefore) {
		t.Fatal("a refused reset signed out")
	}
	res = s.Must(s.PostForm(b, "/reset-password", url.Values{"csrf": {csrf}, "token": {token}, "password": {"brand new secret"}}), http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/login?notice=reset" {
		t.Fatalf("after the reset: %s", loc)
	}
	if page(t, s, b, "/login?notice=reset", http.StatusOK).Find(`[data-testid="notice"]`).Length() != 1 {
		t.Fatal("the sign-in page does not say the password changed")
	}
	if signedIn(s, signedInBefore) {
		t.Fatal("an existing session survived the reset")
	}
	ann.Password = "brand new secret"
	s.SignIn(ann)
	// The link works once.
	if page(t, s, b, path, http.StatusBadRequest).Find(`[data-testid="expired"]`).Length() != 1 {
		t.Fatal("a used link is not said to have expired")
	}
	s.Must(s.PostForm(b, "/reset-password", url.Values{"csrf": {csrf}, "token": {token}, "password": {"another secret"}}), http.StatusBadRequest)
}

// Deleting an account: refused with a wrong password and while the user owns worlds (listed,
// with links); otherwise its memberships, keys, sessions and the user go, and the history of
// what it wrote shows a deleted account.
func TestDeleteAccount(t *testing.T) {
	s := apptest.Start(t)
	ann, cat := s.NewUser("Ann"), s.NewUser("Cat")
	w := newWorld(t, s, ann, "Eldoria")
	s.AddMember(ann, w.ID, cat, "editor")
	cw := w
	cw.u = cat
	card := cw.doc(t, "Aerendyl", "card", "", "")
	cw.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Life", "body": "Sailed."})
	owned := newWorld(t, s, cat, "Catland")
	img, err := os.ReadFile(pngFile(t, "coast.png", 40, 30, false))
	if err != nil {
		t.Fatal(err)
	}
	uploadModel(t, s, cat, w.ID, "coast.png", img)

	b, other := s.SignIn(cat), s.SignIn(cat)
	token := s.CSRFToken(b, "/settings/account")
	s.Must(s.PostForm(b, "/settings/account/delete", url.Values{"password": {cat.Password}}), http.StatusForbidden)
	res := s.Must(s.PostForm(b, "/settings/account/delete", url.Values{"csrf": {token}, "password": {"wrong password"}}), http.StatusUnprocessableEntity)
	if formErrorOf(t, res, "delete-password") == "" {
		t.Fatal("a wrong password: no error next to the field")
	}
	res = s.Must(s.PostForm(b, "/settings/account/delete", url.Values{"csrf": {token}, "password": {cat.Password}}), http.StatusConflict)
	list := doc(t, res).Find(`[data-testid="owned-worlds"] a`)
	if href, _ := list.Attr("href"); list.Length() != 1 || list.Text() != "Catland" || href != "/w/"+owned.Slug {
		t.Fatalf("owned worlds listed: %d %q %q", list.Length(), list.Text(), href)
	}
	if formErrorOf(t, res, "delete-password") == "" {
		t.Fatal("the refusal is not said next to the control")
	}

	// Once Catland belongs to Ann, Cat may go.
	if _, err := s.PB.DB().NewQuery("UPDATE worlds SET owner = {:a} WHERE id = {:w}").Bind(map[string]any{"a": ann.ID, "w": owned.ID}).Execute(); err != nil {
		t.Fatal(err)
	}
	st := s.StreamRequest("/api/v1/worlds/"+w.ID+"/events", nil, other)
	if st.Status != http.StatusOK {
		t.Fatalf("stream: %d", st.Status)
	}
	res = s.Must(s.PostForm(b, "/settings/account/delete", url.Values{"csrf": {token}, "password": {cat.Password}}), http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/login?notice=deleted" {
		t.Fatalf("after deleting: %s", loc)
	}
	if signedIn(s, b) || signedIn(s, other) {
		t.Fatal("a session of the deleted account still works")
	}
	if err := st.Closed(2 * time.Second); err != nil {
		t.Fatalf("the deleted account's stream: %v", err)
	}
	s.Must(s.Get(cat.Key, "/api/v1/worlds/"+w.ID), http.StatusUnauthorized)
	for table, where := range map[string]string{"users": "id", "world_members": "user", "api_keys": "user", "oauth_tokens": "user"} {
		if n := s.Count(table, where+" = '"+cat.ID+"'"); n != 0 {
			t.Fatalf("%s still holds %d rows of the deleted account", table, n)
		}
	}
	if s.Count("assets", "world = '"+w.ID+"' AND uploader = ''") != 1 {
		t.Fatal("Cat's upload did not stay, without its uploader")
	}
	// Ann's world keeps what Cat wrote; its history says a deleted account wrote it.
	h := page(t, s, s.SignIn(ann), "/w/"+w.Slug+"/d/"+card+"/history", http.StatusOK)
	if got := strings.Join(texts(h.Find(".history-who")), "|"); got != "Deleted account" {
		t.Fatalf("history shows %q", got)
	}
	page(t, s, s.SignIn(ann), "/w/"+w.Slug+"/d/"+card+"/v/1", http.StatusOK)
}
