package store

import (
	"fmt"
	"net/http"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
)

// InvitationTTL is how long an invitation may be accepted; inviting the same email again
// renews it.
const InvitationTTL = 30 * 24 * time.Hour

// Invitation asks whoever has an email to join a world with a role. It names an email, not an
// account: an address that has no account yet gets the same invitation, which waits for a
// sign-up with that email.
type Invitation struct {
	ID          string `db:"id"`
	WorldID     string `db:"world"`
	Email       string `db:"email"`
	Role        string `db:"role"`
	InvitedBy   string `db:"invitedBy"`
	Created     string `db:"created"`
	Expires     string `db:"expires"`
	WorldName   string `db:"worldName"`
	WorldSlug   string `db:"worldSlug"`
	InviterName string `db:"inviterName"`
}

const invitationCols = "i.id, i.world, i.email, i.role, i.invitedBy, i.created, i.expires, w.name AS worldName, w.slug AS worldSlug, COALESCE(u.name, '') AS inviterName"

// A world in the trash has no invitations to answer (they come back with the world).
const invitationFrom = " FROM invitations i JOIN worlds w ON w.id = i.world AND w.deleted = '' LEFT JOIN users u ON u.id = i.invitedBy "

// Assignable are the roles a member can be invited with or given; a world has exactly one
// owner, who passes ownership on to an admin (TransferOwnership).
var Assignable = []string{"admin", "editor", "viewer"}

// CheckInvite checks an invitation's email and role for a manager whose role is managerRole.
func CheckInvite(email, role, managerRole string) error {
	email = NormalizeEmail(email)
	if email == "" {
		return apierr.Field("email", "\"email\" is required: the email address to invite")
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || len(email) > 254 {
		return apierr.Field("email", "\"email\" must be an email address, like someone@example.com")
	}
	if !slices.Contains(Assignable, role) {
		return apierr.Field("role", "\"role\" must be one of admin, editor, viewer").With("allowed", Assignable)
	}
	if role == "admin" && managerRole != "owner" {
		return apierr.Forbidden("only the owner can invite admins")
	}
	return nil
}

// NormalizeEmail is the form emails are compared in: trimmed and lower case.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// Invite invites email to a world with a role, on behalf of invitedBy. Inviting an email
// already invited changes that invitation's role and renews it (created is false). It fails
// with 409 already_member when a member of the world has this email: managers see the
// members' emails anyway, so this tells them nothing new.
func (s *Store) Invite(worldID, email, role, invitedBy string) (inv Invitation, created bool, err error) {
	email = NormalizeEmail(email)
	t := time.Now().UTC()
	expires := t.Add(InvitationTTL).Format(dbTime)
	err = s.app.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		var n int
		if err := db.NewQuery("SELECT COUNT(*) FROM world_members m JOIN users u ON u.id = m.user WHERE m.world = {:w} AND lower(u.email) = {:e}").
			Bind(dbx.Params{"w": worldID, "e": email}).Row(&n); err != nil {
			return err
		}
		if n > 0 {
			return apierr.New(http.StatusConflict, "already_member", "someone with this email is already a member of the world; change their role instead").With("field", "email")
		}
		var id string
		err := db.NewQuery("SELECT id FROM invitations WHERE world = {:w} AND email = {:e}").Bind(dbx.Params{"w": worldID, "e": email}).Row(&id)
		if err := notFound(err); err == nil {
			_, err := db.NewQuery("UPDATE invitations SET role = {:role}, invitedBy = {:by}, expires = {:expires}, updated = {:t} WHERE id = {:id}").
				Bind(dbx.Params{"role": role, "by": invitedBy, "expires": expires, "t": t.Format(dbTime), "id": id}).Execute()
			return err
		} else if err != apierr.ErrNotFound {
			return err
		}
		created = true
		_, err = db.NewQuery(`INSERT INTO invitations (id, world, email, role, invitedBy, expires, created, updated)
			VALUES ({:id}, {:w}, {:e}, {:role}, {:by}, {:expires}, {:t}, {:t})`).
			Bind(dbx.Params{"id": newID(), "w": worldID, "e": email, "role": role, "by": invitedBy, "expires": expires, "t": t.Format(dbTime)}).Execute()
		return err
	})
	if err != nil {
		return Invitation{}, false, fmt.Errorf("store: invite: %w", err)
	}
	err = s.app.DB().NewQuery("SELECT " + invitationCols + invitationFrom + "WHERE i.world = {:w} AND i.email = {:e}").
		Bind(dbx.Params{"w": worldID, "e": email}).One(&inv)
	return inv, created, notFound(err)
}

// WorldInvitations lists a world's pending invitations (expired ones too, until renewed or
// revoked), oldest first.
func (s *Store) WorldInvitations(worldID string, p Page) ([]Invitation, int, error) {
	var total int
	if err := s.app.DB().NewQuery("SELECT COUNT(*) FROM invitations WHERE world = {:w}").Bind(dbx.Params{"w": worldID}).Row(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count invitations: %w", err)
	}
	items := []Invitation{}
	err := s.app.DB().NewQuery("SELECT " + invitationCols + invitationFrom + "WHERE i.world = {:w} ORDER BY i.created, i.rowid LIMIT {:limit} OFFSET {:offset}").
		Bind(dbx.Params{"w": worldID, "limit": p.PerPage, "offset": p.offset()}).All(&items)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list invitations: %w", err)
	}
	return items, total, nil
}

// InvitationsFor lists the unexpired invitations addressed to email, oldest first.
func (s *Store) InvitationsFor(email string, p Page) ([]Invitation, int, error) {
	params := dbx.Params{"e": NormalizeEmail(email), "now": now(), "limit": p.PerPage, "offset": p.offset()}
	var total int
	if err := s.app.DB().NewQuery("SELECT COUNT(*)" + invitationFrom + "WHERE i.email = {:e} AND i.expires > {:now}").Bind(params).Row(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count invitations: %w", err)
	}
	items := []Invitation{}
	err := s.app.DB().NewQuery("SELECT " + invitationCols + invitationFrom + "WHERE i.email = {:e} AND i.expires > {:now} ORDER BY i.created, i.rowid LIMIT {:limit} OFFSET {:offset}").
		Bind(params).All(&items)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list invitations: %w", err)
	}
	return items, total, nil
}

// InvitationFor returns an unexpired invitation addressed to email; any other is not found.
func (s *Store) InvitationFor(email, id string) (Invitation, error) {
	var inv Invitation
	err := s.app.DB().NewQuery("SELECT " + invitationCols + invitationFrom + "WHERE i.id = {:id} AND i.email = {:e} AND i.expires > {:now}").
		Bind(dbx.Params{"id": id, "e": NormalizeEmail(email), "now": now()}).One(&inv)
	return inv, notFound(err)
}

// RevokeInvitation deletes one of a world's invitations.
func (s *Store) RevokeInvitation(worldID, id string) error {
	res, err := s.app.DB().NewQuery("DELETE FROM invitations WHERE id = {:id} AND world = {:w}").Bind(dbx.Params{"id": id, "w": worldID}).Execute()
	if err != nil {
		return fmt.Errorf("store: revoke invitation: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apierr.ErrNotFound
	}
	return nil
}

// DeclineInvitation deletes an invitation addressed to email.
func (s *Store) DeclineInvitation(email, id string) error {
	res, err := s.app.DB().NewQuery("DELETE FROM invitations WHERE id = {:id} AND email = {:e}").Bind(dbx.Params{"id": id, "e": NormalizeEmail(email)}).Execute()
	if err != nil {
		return fmt.Errorf("store: decline invitation: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apierr.ErrNotFound
	}
	return nil
}

// AcceptInvitation makes userID, whose email the invitation names, a member of its world with
// its role, and deletes it, in one transaction. A user who is already a member keeps the role
// they have; the invitation is used up all the same.
func (s *Store) AcceptInvitation(inv Invitation, userID string) (Member, error) {
	added := false
	err := s.app.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		res, err := db.NewQuery("DELETE FROM invitations WHERE id = {:id}").Bind(dbx.Params{"id": inv.ID}).Execute()
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apierr.ErrNotFound // accepted or revoked meanwhile
		}
		var n int
		if err := db.NewQuery("SELECT COUNT(*) FROM world_members WHERE world = {:w} AND user = {:u}").
			Bind(dbx.Params{"w": inv.WorldID, "u": userID}).Row(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		added = true
		if err := insertMember(db, inv.WorldID, userID, inv.Role); err != nil {
			return err
		}
		_, err = WriteOutbox(db, "member.added", inv.WorldID, "", "", userID)
		return err
	})
	if err != nil {
		return Member{}, err
	}
	if added {
		s.cache.forget([]OutboxRow{{Kind: "member.added", World: inv.WorldID, Subject: userID}})
		s.publish(Change{Kind: "member.added", WorldID: inv.WorldID})
	}
	return s.Member(inv.WorldID, userID)
}
