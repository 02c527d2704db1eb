package api

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// InvitationJSON is an invitation to a world. The answer to an invitation names no account:
// it is the same whether or not its email has one.
type InvitationJSON struct {
	ID          string `json:"id"`
	WorldID     string `json:"worldId"`
	WorldName   string `json:"worldName"`
	Email       string `json:"email"`
	Role        string `json:"role"`
	InvitedBy   string `json:"invitedBy"`
	InviterName string `json:"inviterName"`
	Created     string `json:"created"`
	Expires     string `json:"expires"`
}

// InvitationJSONOf is an invitation as the API answers it (MCP's invite_member too).
func InvitationJSONOf(i store.Invitation) InvitationJSON {
	return InvitationJSON{ID: i.ID, WorldID: i.WorldID, WorldName: i.WorldName, Email: i.Email, Role: i.Role,
		InvitedBy: i.InvitedBy, InviterName: i.InviterName, Created: apiTime(i.Created), Expires: apiTime(i.Expires)}
}

type inviteBody struct {
	Email *string `json:"email"`
	Role  *string `json:"role"`
}

// invite invites an email to the world (POST …/members). It answers 201 with a new
// invitation, or 200 with the changed one when the email was invited already, the same for
// an email with an account as for one without.
func (a *API) invite(e *core.RequestEvent) error {
	p := auth.PrincipalOf(e)
	w, role, err := a.Access.World(p, e.Request.PathValue("worldId"), auth.Manage)
	if err != nil {
		return err
	}
	var body inviteBody
	if err := decode(e, &body); err != nil {
		return err
	}
	email, r := "", ""
	if body.Email != nil {
		email = *body.Email
	}
	if body.Role != nil {
		r = *body.Role
	}
	if err := store.CheckInvite(email, r, role); err != nil {
		return err
	}
	inv, created, err := a.Store.Invite(w.ID, email, r, p.UserID)
	if err != nil {
		return err
	}
	a.Store.MailInvitation(inv, inv.InviterName, a.Config.BaseURL)
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return e.JSON(status, InvitationJSONOf(inv))
}

func (a *API) listWorldInvitations(e *core.RequestEvent) error {
	w, _, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.Manage)
	if err != nil {
		return err
	}
	pg, err := page(e)
	if err != nil {
		return err
	}
	rows, total, err := a.Store.WorldInvitations(w.ID, pg)
	if err != nil {
		return err
	}
	items := make([]InvitationJSON, len(rows))
	for i, r := range rows {
		items[i] = InvitationJSONOf(r)
	}
	return e.JSON(http.StatusOK, list(items, pg, total))
}

func (a *API) revokeInvitation(e *core.RequestEvent) error {
	w, _, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.Manage)
	if err != nil {
		return err
	}
	if err := a.Store.RevokeInvitation(w.ID, e.Request.PathValue("invitationId")); err != nil {
		if err == apierr.ErrNotFound {
			return apierr.NotFound("invitation")
		}
		return err
	}
	return e.NoContent(http.StatusNoContent)
}

// inviteeEmail is the caller's email as invitations address it.
func (a *API) inviteeEmail(e *core.RequestEvent) (string, error) {
	u, err := a.Store.App().FindRecordById("users", auth.PrincipalOf(e).UserID)
	if err != nil {
		return "", apierr.ErrNotFound
	}
	return a.Store.InviteeEmail(u)
}

func (a *API) myInvitations(e *core.RequestEvent) error {
	email, err := a.inviteeEmail(e)
	if err != nil {
		return err
	}
	pg, err := page(e)
	if err != nil {
		return err
	}
	rows, total, err := a.Store.InvitationsFor(email, pg)
	if err != nil {
		return err
	}
	items := make([]InvitationJSON, len(rows))
	for i, r := range rows {
		items[i] = InvitationJSONOf(r)
	}
	return e.JSON(http.StatusOK, list(items, pg, total))
}

// acceptInvitation makes the caller a member with the invitation's role and answers the
// world as they now see it. Anyone else's invitation is not found.
func (a *API) acceptInvitation(e *core.RequestEvent) error {
	email, err := a.inviteeEmail(e)
	if err != nil {
		return err
	}
	inv, err := a.Store.InvitationFor(email, e.Request.PathValue("invitationId"))
	if err != nil {
		return apierr.NotFound("invitation")
	}
	p := auth.PrincipalOf(e)
	m, err := a.Store.AcceptInvitation(inv, p.UserID)
	if err == apierr.ErrNotFound {
		return apierr.NotFound("invitation")
	} else if err != nil {
		return err
	}
	w, err := a.Store.World(inv.WorldID)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, worldJSON(w, m.Role))
}

func (a *API) declineInvitation(e *core.RequestEvent) error {
	email, err := a.inviteeEmail(e)
	if err != nil {
		return err
	}
	if err := a.Store.DeclineInvitation(email, e.Request.PathValue("invitationId")); err != nil {
		if err == apierr.ErrNotFound {
			return apierr.NotFound("invitation")
		}
		return err
	}
	return e.NoContent(http.StatusNoContent)
}
