package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/auth"
)

// TestInvitationRevealsNothing: inviting an address with an account and one without gets the
// same answer, byte for byte once the invitation's id, the address itself and the times are
// set aside; the same for inviting either again.
func TestInvitationRevealsNothing(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	s.NewUser("Bob") // bob@example.test has an account; bod@example.test has none
	w := s.World(ann, "Eldoria")
	base := "/api/v1/worlds/" + w + "/members"

	for _, status := range []int{http.StatusCreated, http.StatusOK} { // new, then again
		known := s.Post(ann.Key, base, map[string]any{"email": "Bob@Example.test", "role": "editor"})
		unknown := s.Post(ann.Key, base, map[string]any{"email": "Bod@Example.test", "role": "editor"})
		if known.Status != status || unknown.Status != status {
			t.Fatalf("statuses %d and %d, want %d", known.Status, unknown.Status, status)
		}
		k, u := known.Map(t), unknown.Map(t)
		for _, field := range []string{"id", "created", "expires"} {
			if k[field] == "" || u[field] == "" || k[field] == u[field] && field == "id" {
				t.Fatalf("%s: %v and %v", field, k[field], u[field])
			}
		}
		if k["email"] != "bob@example.test" || u["email"] != "bod@example.test" {
			t.Fatalf("emails %v and %v", k["email"], u["email"])
		}
		kb := strings.NewReplacer(k["id"].(string), "ID", "bob@", "X@", k["created"].(string), "T1", k["expires"].(string), "T2").Replace(string(known.Body))
		ub := strings.NewReplacer(u["id"].(string), "ID", "bod@", "X@", u["created"].(string), "T1", u["expires"].(string), "T2").Replace(string(unknown.Body))
		if kb != ub {
			t.Fatalf("the answers differ:\n%s\n%s", kb, ub)
		}
		for _, h := range []string{"Content-Type", "Content-Length"} {
			if known.Header.Get(h) != unknown.Header.Get(h) {
				t.Fatalf("%s differs: %q and %q", h, known.Header.Get(h), unknown.Header.Get(h))
			}
		}
	}
	if n := s.Count("world_members", "world = '"+w+"'"); n != 1 {
		t.Fatalf("inviting added members: %d", n)
	}
}

// TestInvitationFlow: the invitee lists, accepts and declines; nobody else can; managers list
// and revoke; an address with no account is invited and the invitation waits for its sign-up.
func TestInvitationFlow(t *testing.T) {
	s := start(t)
	ann, bob, eve := s.NewUser("Ann"), s.NewUser("Bob"), s.NewUser("Eve")
	w := s.World(ann, "Eldoria")
	other := s.World(ann, "Vaelor")
	base := "/api/v1/worlds/" + w

	inv := s.Invite(ann, w, bob.Email, "editor")
	declined := s.Invite(ann, other, bob.Email, "viewer")
	revoked := s.Invite(ann, w, "carol@example.test", "viewer")

	var mine struct {
		Items []struct {
			ID, WorldID, WorldName, Role, InviterName string
		}
		TotalItems int
	}
	s.Must(s.Get(bob.Key, "/api/v1/invitations"), http.StatusOK).JSON(t, &mine)
	if mine.TotalItems != 2 || mine.Items[0].ID != inv || mine.Items[0].WorldName != "Eldoria" || mine.Items[0].Role != "editor" || mine.Items[0].InviterName != "Ann" {
		t.Fatalf("Bob's invitations: %+v", mine)
	}
	s.Must(s.Get(eve.Key, "/api/v1/invitations"), http.StatusOK).JSON(t, &mine)
	if mine.TotalItems != 0 {
		t.Fatalf("Eve sees invitations: %+v", mine)
	}
	// Somebody else's invitation does not exist for Eve, nor for Ann who sent it.
	for _, u := range []apptest.User{eve, ann} {
		for _, verb := range []string{"accept", "decline"} {
			if res := s.Post(u.Key, "/api/v1/invitations/"+inv+"/"+verb, nil); res.Status != 404 {
				t.Fatalf("%s %ss Bob's invitation: %d", u.Name, verb, res.Status)
			}
		}
	}
	// Managers list; others do not.
	var pending struct {
		Items []struct{ ID, Email string }
	}
	s.Must(s.Get(ann.Key, base+"/invitations"), http.StatusOK).JSON(t, &pending)
	if len(pending.Items) != 2 || pending.Items[0].ID != inv || pending.Items[1].Email != "carol@example.test" {
		t.Fatalf("pending: %+v", pending)
	}
	if res := s.Get(bob.Key, base+"/invitations"); res.Status != 404 {
		t.Fatalf("Bob lists the world's invitations before joining: %d", res.Status)
	}

	var world struct{ ID, Role string }
	s.Must(s.Post(bob.Key, "/api/v1/invitations/"+inv+"/accept", nil), http.StatusOK).JSON(t, &world)
	if world.ID != w || world.Role != "editor" {
		t.Fatalf("accepted: %+v", world)
	}
	s.Must(s.Post(bob.Key, base+"/documents", map[string]any{"name": "Bob's", "documentType": "card"}), http.StatusCreated)
	if res := s.Post(bob.Key, "/api/v1/invitations/"+inv+"/accept", nil); res.Status != 404 {
		t.Fatalf("accepted twice: %d", res.Status)
	}
	s.Must(s.Post(bob.Key, "/api/v1/invitations/"+declined+"/decline", nil), http.StatusNoContent)
	if res := s.Get(bob.Key, "/api/v1/worlds/"+other); res.Status != 404 {
		t.Fatalf("declined, yet a member: %d", res.Status)
	}
	if res := s.Do(del(bob.Key, base+"/invitations/"+revoked)); res.Status != 403 {
		t.Fatalf("an editor revoked: %d", res.Status)
	}
	s.Must(s.Do(del(ann.Key, base+"/invitations/"+revoked)), http.StatusNoContent)
	if res := s.Do(del(ann.Key, base+"/invitations/"+revoked)); res.Status != 404 {
		t.Fatalf("revoked twice: %d", res.Status)
	}

	// An address with no account: the invitation waits for a sign-up with it (any case).
	dave := s.Invite(ann, w, "Dave@Example.test", "viewer")
	u, err := auth.CreateUser(s.PB, "dave@example.test", "correct horse battery", "Dave")
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := s.LW.Keys.Create(u.Id, "test")
	if err != nil {
		t.Fatal(err)
	}
	s.Must(s.Get(key, "/api/v1/invitations"), http.StatusOK).JSON(t, &mine)
	if mine.TotalItems != 1 || mine.Items[0].ID != dave {
		t.Fatalf("Dave's invitations after signing up: %+v", mine)
	}
	s.Must(s.Post(key, "/api/v1/invitations/"+dave+"/accept", nil), http.StatusOK)
	s.Must(s.Get(key, base), http.StatusOK)

	// An expired invitation is gone for the invitee; inviting again renews it.
	late := s.Invite(ann, w, eve.Email, "viewer")
	if _, err := s.PB.DB().NewQuery("UPDATE invitations SET expires = '2000-01-01 00:00:00.000Z' WHERE id = '" + late + "'").Execute(); err != nil {
		t.Fatal(err)
	}
	if res := s.Post(eve.Key, "/api/v1/invitations/"+late+"/accept", nil); res.Status != 404 {
		t.Fatalf("expired invitation accepted: %d", res.Status)
	}
	if again := s.Invite(ann, w, eve.Email, "editor"); again != late {
		t.Fatalf("inviting again made a new invitation %s (had %s)", again, late)
	}
	var joined struct{ Role string }
	s.Must(s.Post(eve.Key, "/api/v1/invitations/"+late+"/accept", nil), http.StatusOK).JSON(t, &joined)
	if joined.Role != "editor" {
		t.Fatalf("renewed invitation gave %q", joined.Role)
	}
	if n := s.Count("invitations", ""); n != 0 {
		t.Fatalf("%d invitations left", n)
	}
}

// TestInvitationNeedsVerifiedEmailWithMail: when the instance sends mail, an account whose
// email is not verified sees and accepts no invitations, so signing up with somebody else's
// address does not get their invitations.
func TestInvitationNeedsVerifiedEmailWithMail(t *testing.T) {
	s := start(t)
	ann, mallory := s.NewUser("Ann"), s.NewUser("Mallory")
	w := s.World(ann, "Eldoria")
	inv := s.Invite(ann, w, mallory.Email, "viewer")
	// Mallory signed up with an address that is not hers: it is not verified.
	u, err := s.PB.FindRecordById("users", mallory.ID)
	if err != nil {
		t.Fatal(err)
	}
	u.SetVerified(false)
	if err := s.PB.Save(u); err != nil {
		t.Fatal(err)
	}
	settings := s.PB.Settings()
	settings.SMTP.Enabled = true
	settings.SMTP.Host = "127.0.0.1"
	settings.SMTP.Port = 1 // nothing listens: the mail fails, the invitation stands
	if err := s.PB.Save(settings); err != nil {
		t.Fatal(err)
	}
	again := s.Post(ann.Key, "/api/v1/worlds/"+w+"/members", map[string]any{"email": "nobody@example.test", "role": "viewer"})
	if again.Status != http.StatusCreated {
		t.Fatalf("invite with failing mail: %d %s", again.Status, again.Body)
	}
	for _, res := range []*apptest.Response{
		s.Get(mallory.Key, "/api/v1/invitations"),
		s.Post(mallory.Key, "/api/v1/invitations/"+inv+"/accept", nil),
		s.Post(mallory.Key, "/api/v1/invitations/"+inv+"/decline", nil),
	} {
		if res.Status != 403 || res.ErrorCode() != "email_unverified" {
			t.Fatalf("unverified: %d %s", res.Status, res.Body)
		}
	}
	u.SetVerified(true)
	if err := s.PB.Save(u); err != nil {
		t.Fatal(err)
	}
	s.Must(s.Post(mallory.Key, "/api/v1/invitations/"+inv+"/accept", nil), http.StatusOK)
	time.Sleep(50 * time.Millisecond) // let the failing mail's goroutine log before the server stops
}
