package api

import (
	"net/http"
	"slices"

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

func memberJSON(m store.Member) MemberJSON {
	return MemberJSON{UserID: m.UserID, Email: m.Email, Name: m.Name, Role: m.Role, Created: apiTime(m.Created)}
}

func (a *API) listMembers(e *core.RequestEvent) error {
	return worldList(a, e, a.Store.Members, memberJSON)
}

type addMemberBody struct {
	Email *string `json:"email"`
	Role  *string `json:"role"`
}

// assignable are the roles a member can be given; a world has exactly one owner, its creator.
var assignable = []string{"admin", "editor", "viewer"}

func (a *API) addMember(e *core.RequestEvent) error {
	w, role, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.Manage)
	if err != nil {
		return err
	}
	var body addMemberBody
	if err := decode(e, &body); err != nil {
		return err
	}
	if body.Email == nil || *body.Email == "" {
		return apierr.Field("email", "\"email\" is required: the email of an existing account")
	}
	if body.Role == nil || !slices.Contains(assignable, *body.Role) {
		return apierr.Field("role", "\"role\" must be one of admin, editor, viewer").With("allowed", assignable)
	}
	if *body.Role == "admin" && role != "owner" {
		return apierr.Forbidden("only the owner can add admins")
	}
	u, err := auth.FindUserByEmail(a.Store.App(), *body.Email)
	if err != nil {
		return apierr.New(http.StatusUnprocessableEntity, "unknown_user", "no account uses this email; ask them to sign up first").With("field", "email")
	}
	m, err := a.Store.AddMember(w.ID, u.Id, *body.Role)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, memberJSON(m))
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
	switch {
	case m.Role == "owner":
		return apierr.New(http.StatusConflict, "owner_required", "the owner cannot be removed from their world")
	case target == p.UserID:
		// Anyone but the owner may leave.
	case !store.CanManage(role):
		return apierr.Forbidden("your role in this world is %s; removing members needs owner or admin", role)
	case m.Role == "admin" && role != "owner":
		return apierr.Forbidden("only the owner can remove admins")
	}
	if err := a.Store.RemoveMember(w.ID, target); err != nil {
		return err
	}
	return e.NoContent(http.StatusNoContent)
}
