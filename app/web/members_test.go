package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// The members page: everyone reads it, only managers get its forms; each form changes what
// it says through the store's rules, with a refusal shown next to its control.
func TestMembersPage(t *testing.T) {
	s := apptest.Start(t)
	ann, ada, vic := s.NewUser("Ann Owner"), s.NewUser("Ada Admin"), s.NewUser("Vic Viewer")
	var w struct{ ID, Slug string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Eldoria"}), http.StatusCreated).JSON(t, &w)
	s.AddMember(ann, w.ID, ada, "admin")
	s.AddMember(ann, w.ID, vic, "viewer")
	path := "/w/" + w.Slug + "/members"

	// A viewer reads the list, with no forms but leaving.
	vb := s.SignIn(vic)
	d := page(t, s, vb, path, http.StatusOK)
	if n := d.Find(`[data-testid="member"]`).Length(); n != 3 {
		t.Fatalf("viewer sees %d members", n)
	}
	if d.Find(`[data-testid="role-form"], [data-testid="invite-form"], [data-testid="remove-member"], [data-testid="transfer-form"], [data-testid="invitations"]`).Length() != 0 {
		t.Fatal("a viewer gets management forms")
	}
	if d.Find(`[data-testid="read-only"]`).Length() != 1 || d.Find(`[data-testid="leave-form"]`).Length() != 1 {
		t.Fatal("a viewer is not told the page is read-only, or cannot leave")
	}
	// Not a member: the shared 404.
	stranger := s.NewUser("Stan Stranger")
	page(t, s, s.SignIn(stranger), path, http.StatusNotFound)

	// An admin invites editors and viewers; admin is not offered.
	ab := s.SignIn(ada)
	d = page(t, s, ab, path, http.StatusOK)
	if opts := strings.Join(texts(d.Find(`#invite-role option`)), ","); opts != "editor,viewer" {
		t.Fatalf("an admin may invite as %s", opts)
	}
	if d.Find(`[data-testid="transfer-form"]`).Length() != 0 {
		t.Fatal("an admin is offered the transfer")
	}
	// Refused with the reason next to the email field, and nothing saved.
	token := s.CSRFToken(ab, path)
	res := s.PostForm(ab, path, url.Values{"csrf": {token}, "email": {"not an email"}, "role": {"viewer"}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(doc(t, res).Find(`#invite-email-error`).Text(), "email address") {
		t.Fatalf("bad email: %d", res.Status)
	}
	res = s.PostForm(ab, path, url.Values{"csrf": {token}, "email": {"carol@example.test"}, "role": {"admin"}})
	if res.Status != http.StatusForbidden {
		t.Fatalf("admin invites an admin: %d", res.Status)
	}
	// Without the CSRF token nothing happens.
	res = s.PostForm(ab, path, url.Values{"email": {"carol@example.test"}, "role": {"viewer"}})
	if res.Status < 400 {
		t.Fatalf("invite without CSRF token: %d", res.Status)
	}
	if n := s.Count("invitations", ""); n != 0 {
		t.Fatalf("refused invitations saved: %d", n)
	}
	res = s.PostForm(ab, path, url.Values{"csrf": {token}, "email": {"Carol@Example.test"}, "role": {"editor"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("invite: %d %s", res.Status, res.Body)
	}
	d = page(t, s, ab, path+"?done=invited", http.StatusOK)
	if got := texts(d.Find(`[data-testid="invitation"] td:first-child`)); len(got) != 1 || got[0] != "carol@example.test" {
		t.Fatalf("pending invitations: %v", got)
	}

	// The admin's role select offers nothing above editor for Vic, and forcing it is refused
	// next to Vic's select.
	vicRow := d.Find(`[data-testid="member"][data-user-id="` + vic.ID + `"]`)
	if opts := strings.Join(texts(vicRow.Find(`option`)), ","); opts != "editor,viewer" {
		t.Fatalf("admin may give Vic %s", opts)
	}
	res = s.PostForm(ab, path+"/"+vic.ID+"/role", url.Values{"csrf": {token}, "role": {"admin"}})
	if res.Status != http.StatusForbidden || doc(t, res).Find(`#role-error-`+vic.ID).Length() != 1 {
		t.Fatalf("admin makes an admin: %d", res.Status)
	}
	if res = s.PostForm(ab, path+"/"+vic.ID+"/role", url.Values{"csrf": {token}, "role": {"editor"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("role change: %d %s", res.Status, res.Body)
	}
	if n := s.Count("world_members", "world = '"+w.ID+"' AND user = '"+vic.ID+"' AND role = 'editor'"); n != 1 {
		t.Fatal("Vic is not an editor")
	}

	// The owner passes ownership to Ada, after which Ann is an admin and may leave.
	nb := s.SignIn(ann)
	d = page(t, s, nb, path, http.StatusOK)
	if got := d.Find(`#transfer-to option`).AttrOr("value", ""); got != ada.ID {
		t.Fatalf("transfer offers %q", got)
	}
	if d.Find(`[data-testid="leave-form"]`).Length() != 0 {
		t.Fatal("the owner is offered to leave")
	}
	token = s.CSRFToken(nb, path)
	res = s.PostForm(nb, path+"/transfer", url.Values{"csrf": {token}, "userId": {vic.ID}})
	if res.Status != http.StatusConflict || doc(t, res).Find(`#transfer-error`).Length() != 1 {
		t.Fatalf("transfer to an editor: %d", res.Status)
	}
	if res = s.PostForm(nb, path+"/transfer", url.Values{"csrf": {token}, "userId": {ada.ID}}); res.Status != http.StatusSeeOther {
		t.Fatalf("transfer: %d %s", res.Status, res.Body)
	}
	if n := s.Count("worlds", "id = '"+w.ID+"' AND owner = '"+ada.ID+"'"); n != 1 {
		t.Fatal("Ada does not own the world")
	}
	if res = s.PostForm(nb, path+"/"+ann.ID+"/remove", url.Values{"csrf": {token}}); res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("leave: %d %s", res.Status, res.Header.Get("Location"))
	}
	page(t, s, nb, path, http.StatusNotFound)
}

// Invitations are answered from the worlds page: accept opens the world, decline drops it;
// nobody answers another's.
func TestAnswerInvitationsOnWorldsPage(t *testing.T) {
	s := apptest.Start(t)
	ann, bob, eve := s.NewUser("Ann Owner"), s.NewUser("Bob Builder"), s.NewUser("Eve Eavesdropper")
	var w, v struct{ ID, Slug string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Eldoria"}), http.StatusCreated).JSON(t, &w)
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Vaelor"}), http.StatusCreated).JSON(t, &v)
	inv := s.Invite(ann, w.ID, bob.Email, "editor")
	other := s.Invite(ann, v.ID, bob.Email, "viewer")

	bb := s.SignIn(bob)
	d := page(t, s, bb, "/", http.StatusOK)
	items := d.Find(`[data-testid="my-invitation"]`)
	if items.Length() != 2 || !strings.Contains(items.First().Text(), "Ann Owner invites you to") || !strings.Contains(items.First().Text(), "Eldoria") {
		t.Fatalf("Bob's invitations: %q", items.Text())
	}
	token := s.CSRFToken(bb, "/")
	eb := s.SignIn(eve)
	if res := s.PostForm(eb, "/invitations/"+inv+"/accept", url.Values{"csrf": {s.CSRFToken(eb, "/")}}); res.Status != http.StatusNotFound {
		t.Fatalf("Eve accepts Bob's invitation: %d", res.Status)
	}
	if page(t, s, eb, "/", http.StatusOK).Find(`[data-testid="my-invitations"]`).Length() != 0 {
		t.Fatal("Eve sees invitations")
	}
	res := s.PostForm(bb, "/invitations/"+inv+"/accept", url.Values{"csrf": {token}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/w/"+w.Slug {
		t.Fatalf("accept: %d %s", res.Status, res.Header.Get("Location"))
	}
	page(t, s, bb, "/w/"+w.Slug, http.StatusOK)
	if res = s.PostForm(bb, "/invitations/"+other+"/decline", url.Values{"csrf": {token}}); res.Status != http.StatusSeeOther {
		t.Fatalf("decline: %d", res.Status)
	}
	page(t, s, bb, "/w/"+v.Slug, http.StatusNotFound)
	if page(t, s, bb, "/", http.StatusOK).Find(`[data-testid="my-invitation"]`).Length() != 0 {
		t.Fatal("answered invitations still listed")
	}
}

// With mail configured, someone who signs up with another person's address does not get
// that person's invitations: the new account is unverified (PocketBase's verification mail
// is sent) and the worlds page says why no invitation shows.
func TestSignupWithMailNeedsVerificationForInvitations(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann Owner")
	var w struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Eldoria"}), http.StatusCreated).JSON(t, &w)
	s.Invite(ann, w.ID, "bob@example.test", "editor")
	s.Invite(ann, w.ID, "carol@example.test", "editor")

	signup := func(email string) *http.Client {
		t.Helper()
		b := s.Browser()
		res := s.PostForm(b, "/signup", url.Values{"csrf": {s.CSRFToken(b, "/signup")}, "email": {email}, "name": {"X"}, "password": {"long enough pw"}})
		if res.Status != http.StatusSeeOther {
			t.Fatalf("sign up %s: %d %s", email, res.Status, res.Body)
		}
		return b
	}
	// Without mail nothing can be verified: the address as signed up counts.
	bob := signup("bob@example.test")
	if n := page(t, s, bob, "/", http.StatusOK).Find(`[data-testid="my-invitation"]`).Length(); n != 1 {
		t.Fatalf("Bob sees %d invitations", n)
	}

	settings := s.PB.Settings()
	settings.SMTP.Enabled, settings.SMTP.Host, settings.SMTP.Port = true, "127.0.0.1", 1 // the mail fails; sign-up does not
	if err := s.PB.Save(settings); err != nil {
		t.Fatal(err)
	}
	mallory := signup("carol@example.test")
	if n := s.Count("users", "email = 'carol@example.test' AND verified = FALSE"); n != 1 {
		t.Fatal("an account signed up with mail configured is verified without a mail")
	}
	d := page(t, s, mallory, "/", http.StatusOK)
	if d.Find(`[data-testid="my-invitation"]`).Length() != 0 || !strings.Contains(d.Find(`[data-testid="my-invitations"]`).Text(), "Verify your email") {
		t.Fatalf("unverified account's worlds page: %q", d.Find(`[data-testid="my-invitations"]`).Text())
	}
}
