package api

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// MemberJSON is one member of a world.
type MemberJSON struct {
	UserID  string `json:"userId"`
	Email   string `json:"email"`
	Name    string `json:"name"`
	Role    string `json:"role"`
	Created string `json:"created"`
}

// MemberJSONOf is a member as the API answers it (MCP's list_members too).
func MemberJSONOf(m store.Member) MemberJSON {
	return MemberJSON{UserID: m.UserID, Email: m.Email, Name: m.Name, Role: m.Role, Created: apiTime(m.Created)}
}

func (a *API) listMembers(e *core.RequestEvent) error {
	return worldList(a, e, a.Store.Members, MemberJSONOf)
}

func (a *API) removeMember(e *core.RequestEvent) error {
	p := auth.PrincipalOf(e)
	target := e.Request.PathValue("userId")
	w, role, err := a.Access.World(p, e.Request.PathValue("worldId"), auth.ReadMeta)
	if err != nil {
		return err
	}
	m, err := a.Store.Member(w.ID, target)
	if err != nil {
		return apierr.NotFound("member")
	}
	if err := store.CheckRemoval(role, m.Role, target == p.UserID); err != nil {
		return err
	}
	if err := a.Store.RemoveMember(w.ID, target); err != nil {
		return err
	}
	return e.NoContent(http.StatusNoContent)
}

type memberRoleBody struct {
	Role *string `json:"role"`
}

// changeMember changes a member's role in place (owner or admin; only the owner gives or
// takes admin). The owner passes ownership on by giving an admin the role "owner": that admin
// becomes the owner and the owner an admin.
func (a *API) changeMember(e *core.RequestEvent) error {
	p := auth.PrincipalOf(e)
	w, role, err := a.Access.World(p, e.Request.PathValue("worldId"), auth.Manage)
	if err != nil {
		return err
	}
	var body memberRoleBody
	if err := decode(e, &body); err != nil {
		return err
	}
	if body.Role == nil {
		return apierr.NothingToChange("role")
	}
	m, err := a.Store.Member(w.ID, e.Request.PathValue("userId"))
	if err != nil {
		return apierr.NotFound("member")
	}
	if err := store.CheckRoleChange(role, m.Role, *body.Role); err != nil {
		return err
	}
	if *body.Role == "owner" {
		m, err = a.Store.TransferOwnership(w.ID, m.UserID)
	} else {
		m, err = a.Store.SetRole(w.ID, m.UserID, *body.Role)
	}
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, MemberJSONOf(m))
}
