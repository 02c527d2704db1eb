package store

import (
	"net/http"
	"slices"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
)

// SetRole changes a member's role in place. The owner's role is not changed this way (see
// TransferOwnership), and nobody is made owner by it. Setting the role a member has changes
// nothing and writes no event.
func (s *Store) SetRole(worldID, userID, role string) (Member, error) {
	if role == "owner" {
		return Member{}, apierr.Field("role", "\"role\" must be one of admin, editor, viewer")
	}
	changed := false
	err := s.app.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		var was string
		if err := notFound(db.NewQuery("SELECT role FROM world_members WHERE world = {:w} AND user = {:u}").
			Bind(dbx.Params{"w": worldID, "u": userID}).Row(&was)); err != nil {
			return err
		}
		if was == "owner" {
			return ownerRoleFixed()
		}
		if was == role {
			return nil
		}
		changed = true
		if err := setRole(db, worldID, userID, role); err != nil {
			return err
		}
		_, err := WriteOutbox(db, "member.role", worldID, "", "", userID)
		return err
	})
	if err != nil {
		return Member{}, err
	}
	if changed {
		s.cache.forget([]OutboxRow{{Kind: "member.role", World: worldID, Subject: userID}})
		s.publish(Change{Kind: "member.role", WorldID: worldID})
	}
	return s.Member(worldID, userID)
}

func ownerRoleFixed() error {
	return apierr.New(http.StatusConflict, "owner_required", "the owner's role cannot be changed; the owner can pass ownership to an admin instead")
}

func setRole(db dbx.Builder, worldID, userID, role string) error {
	_, err := db.NewQuery("UPDATE world_members SET role = {:role}, updated = {:t} WHERE world = {:w} AND user = {:u}").
		Bind(dbx.Params{"role": role, "t": now(), "w": worldID, "u": userID}).Execute()
	return err
}

// TransferOwnership makes the admin toUserID the world's owner and its owner an admin, and
// changes the world's owner, in one transaction. Only an admin can receive it: the owner
// first makes someone an admin, then hands over, so nobody jumps from viewer to owner by
// mistake.
func (s *Store) TransferOwnership(worldID, toUserID string) (Member, error) {
	var from string
	err := s.app.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		var role string
		if err := notFound(db.NewQuery("SELECT role FROM world_members WHERE world = {:w} AND user = {:u}").
			Bind(dbx.Params{"w": worldID, "u": toUserID}).Row(&role)); err != nil {
			return err
		}
		if role == "owner" {
			return ownerRoleFixed()
		}
		if role != "admin" {
			return apierr.New(http.StatusConflict, "admin_required", "ownership passes only to an admin; make them an admin first").With("role", role)
		}
		if err := db.NewQuery("SELECT owner FROM worlds WHERE id = {:w}").Bind(dbx.Params{"w": worldID}).Row(&from); err != nil {
			return notFound(err)
		}
		if err := setRole(db, worldID, from, "admin"); err != nil {
			return err
		}
		if err := setRole(db, worldID, toUserID, "owner"); err != nil {
			return err
		}
		if _, err := db.NewQuery("UPDATE worlds SET owner = {:o}, updated = {:t} WHERE id = {:w}").
			Bind(dbx.Params{"o": toUserID, "t": now(), "w": worldID}).Execute(); err != nil {
			return err
		}
		for _, u := range []string{toUserID, from} {
			if _, err := WriteOutbox(db, "member.role", worldID, "", "", u); err != nil {
				return err
			}
		}
		_, err := WriteOutbox(db, "world.updated", worldID, "", "", "")
		return err
	})
	if err != nil {
		return Member{}, err
	}
	s.cache.forget([]OutboxRow{
		{Kind: "member.role", World: worldID, Subject: toUserID},
		{Kind: "member.role", World: worldID, Subject: from},
		{Kind: "world.updated", World: worldID},
	})
	s.publish(Change{Kind: "member.role", WorldID: worldID})
	return s.Member(worldID, toUserID)
}

// CheckRoleChange says whether a member whose role is by may give a member whose role is from
// the role to ("owner" passes ownership on). The web page and the REST API ask it alike.
func CheckRoleChange(by, from, to string) error {
	switch {
	case to != "owner" && !slices.Contains(Assignable, to):
		return apierr.Field("role", "\"role\" must be one of owner, admin, editor, viewer").With("allowed", append([]string{"owner"}, Assignable...))
	case !CanManage(by):
		return apierr.Forbidden("your role in this world is %s; changing roles needs owner or admin", by)
	case from == "owner":
		return ownerRoleFixed()
	case to == "owner" && by != "owner":
		return apierr.Forbidden("only the owner can pass ownership on")
	case (to == "admin" || from == "admin") && by != "owner":
		return apierr.Forbidden("only the owner can make or unmake admins")
	}
	return nil
}

// CheckRemoval says whether a member whose role is by may remove a member whose role is
// target; self says they are the same member (leaving).
func CheckRemoval(by, target string, self bool) error {
	switch {
	case target == "owner":
		return apierr.New(http.StatusConflict, "owner_required", "the owner cannot leave or be removed; pass ownership to an admin first")
	case self:
		return nil // anyone but the owner may leave
	case !CanManage(by):
		return apierr.Forbidden("your role in this world is %s; removing members needs owner or admin", by)
	case target == "admin" && by != "owner":
		return apierr.Forbidden("only the owner can remove admins")
	}
	return nil
}
