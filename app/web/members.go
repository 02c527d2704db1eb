package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/views"
)

// membersURL is a world's members page.
func membersURL(slug string) string { return "/w/" + url.PathEscape(slug) + "/members" }

// membersNotices are the notices the members page shows after a change (?done=).
var membersNotices = map[string]string{
	"invited":     "Invitation saved. They see it when they sign in with that email.",
	"role":        "Role changed.",
	"removed":     "Member removed.",
	"revoked":     "Invitation revoked.",
	"transferred": "Ownership passed on. You are now an admin of this world.",
}

// membersPage lists a world's members (any member); managers see the forms too.
func (w *Web) membersPage(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	return w.renderMembers(e, pl, http.StatusOK, func(v *views.MembersView) {
		v.Notice = membersNotices[e.Request.URL.Query().Get("done")]
	})
}

func (w *Web) renderMembers(e *core.RequestEvent, pl *place, status int, set func(*views.MembersView)) error {
	me := user(e).Id
	base := membersURL(pl.world.Slug)
	v := views.MembersView{WorldName: pl.world.Name, WorldHref: worldURL(pl.world.Slug, store.MainLine), Action: base,
		Role: pl.role, Manage: store.CanManage(pl.role), Owner: pl.role == "owner", MyID: me,
		TransferAction: base + "/transfer"}
	members, _, err := w.Store.Members(pl.world.ID, allRows)
	if err != nil {
		return err
	}
	for _, m := range members {
		row := views.MemberRow{UserID: m.UserID, Name: m.Name, Email: m.Email, Role: m.Role, Joined: store.ParseTime(m.Created).Format("2 Jan 2006"), Me: m.UserID == me}
		for _, r := range store.Assignable {
			if r == m.Role || store.CheckRoleChange(pl.role, m.Role, r) == nil {
				row.RoleOptions = append(row.RoleOptions, r)
			}
		}
		if len(row.RoleOptions) > 1 {
			row.RoleAction = base + "/" + url.PathEscape(m.UserID) + "/role"
		}
		if store.CheckRemoval(pl.role, m.Role, row.Me) == nil {
			row.RemoveAction = base + "/" + url.PathEscape(m.UserID) + "/remove"
			if row.Me {
				v.LeaveAction = row.RemoveAction
			}
		}
		if m.Role == "admin" {
			v.Admins = append(v.Admins, row)
		}
		v.Members = append(v.Members, row)
	}
	if v.Manage {
		invs, _, err := w.Store.WorldInvitations(pl.world.ID, allRows)
		if err != nil {
			return err
		}
		now := time.Now()
		for _, i := range invs {
			exp := store.ParseTime(i.Expires)
			v.Invitations = append(v.Invitations, views.InvitationRow{ID: i.ID, Email: i.Email, Role: i.Role, InviterName: i.InviterName,
				Expires: exp.Format("2 Jan 2006"), Expired: !exp.After(now),
				RevokeAction: "/w/" + url.PathEscape(pl.world.Slug) + "/invitations/" + url.PathEscape(i.ID) + "/revoke"})
		}
		for _, r := range store.Assignable {
			if store.CheckInvite("x@example.com", r, pl.role) == nil {
				v.InviteRoles = append(v.InviteRoles, r)
			}
		}
	}
	if set != nil {
		set(&v)
	}
	pg := page(e, "Members · "+pl.world.Name)
	pg.Theme = pl.world.Theme
	return render(e, status, views.MembersPage(pg, v))
}

// inviteMember invites an email from the members page, through the same store calls as the
// REST API.
func (w *Web) inviteMember(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	f := views.InviteForm{Email: e.Request.PostFormValue("email"), Role: e.Request.PostFormValue("role")}
	err = store.CheckInvite(f.Email, f.Role, pl.role)
	if err == nil {
		var inv store.Invitation
		if inv, _, err = w.Store.Invite(pl.world.ID, f.Email, f.Role, user(e).Id); err == nil {
			w.Store.MailInvitation(inv, inv.InviterName, w.Config.BaseURL)
			return e.Redirect(http.StatusSeeOther, membersURL(pl.world.Slug)+"?done=invited")
		}
	}
	fe, status, err := refusal(err)
	if fe == nil {
		return err
	}
	f.Err = fe
	f.Field, _ = apierr.From(err).Details["field"].(string)
	if f.Field == "" {
		f.Field = "email"
	}
	return w.renderMembers(e, pl, status, func(v *views.MembersView) { v.Invite = f })
}

// member resolves {userId} of a members page POST to a member of the place's world.
func (w *Web) member(e *core.RequestEvent, pl *place) (store.Member, error) {
	m, err := w.Store.Member(pl.world.ID, e.Request.PathValue("userId"))
	if err != nil {
		return m, w.notFound(e)
	}
	return m, nil
}

// refuseOnMembers shows a refused change next to its control on the members page; userID ""
// is the leave button.
func (w *Web) refuseOnMembers(e *core.RequestEvent, pl *place, userID string, err error) error {
	fe, status, err := refusal(err)
	if fe == nil {
		return err
	}
	return w.renderMembers(e, pl, status, func(v *views.MembersView) { v.Err, v.ErrUserID = fe, userID })
}

func (w *Web) changeMemberRole(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	m, err := w.member(e, pl)
	if err != nil {
		return err
	}
	role := e.Request.PostFormValue("role")
	if role == "owner" {
		// Ownership passes through its own form, which asks first.
		return w.refuseOnMembers(e, pl, m.UserID, apierr.Field("role", "pass ownership on with the form below"))
	}
	if err := store.CheckRoleChange(pl.role, m.Role, role); err != nil {
		return w.refuseOnMembers(e, pl, m.UserID, err)
	}
	if _, err := w.Store.SetRole(pl.world.ID, m.UserID, role); err != nil {
		return w.refuseOnMembers(e, pl, m.UserID, err)
	}
	return e.Redirect(http.StatusSeeOther, membersURL(pl.world.Slug)+"?done=role")
}

// removeMember removes a member, or lets the signed-in member leave (then goes home).
func (w *Web) removeMember(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	m, err := w.member(e, pl)
	if err != nil {
		return err
	}
	self := m.UserID == user(e).Id
	errID := m.UserID
	if self {
		errID = ""
	}
	if err := store.CheckRemoval(pl.role, m.Role, self); err != nil {
		return w.refuseOnMembers(e, pl, errID, err)
	}
	if err := w.Store.RemoveMember(pl.world.ID, m.UserID); err != nil {
		return w.refuseOnMembers(e, pl, errID, err)
	}
	if self {
		return e.Redirect(http.StatusSeeOther, "/")
	}
	return e.Redirect(http.StatusSeeOther, membersURL(pl.world.Slug)+"?done=removed")
}

func (w *Web) revokeInvitation(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	if !store.CanManage(pl.role) {
		return w.errorPage(e, http.StatusForbidden, "Not allowed", "Only the owner and admins manage invitations.")
	}
	if err := w.Store.RevokeInvitation(pl.world.ID, e.Request.PathValue("id")); err != nil && err != apierr.ErrNotFound {
		return err
	}
	return e.Redirect(http.StatusSeeOther, membersURL(pl.world.Slug)+"?done=revoked")
}

// transferOwnership makes the chosen admin the owner (the owner only; the form asked first).
func (w *Web) transferOwnership(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	to := e.Request.PostFormValue("userId")
	m, err := w.Store.Member(pl.world.ID, to)
	if err == nil {
		err = store.CheckRoleChange(pl.role, m.Role, "owner")
	} else {
		err = apierr.Field("userId", "choose one of the admins")
	}
	if err == nil {
		_, err = w.Store.TransferOwnership(pl.world.ID, to)
	}
	if err != nil {
		fe, status, err := refusal(err)
		if fe == nil {
			return err
		}
		return w.renderMembers(e, pl, status, func(v *views.MembersView) { v.TransferErr = fe })
	}
	return e.Redirect(http.StatusSeeOther, membersURL(pl.world.Slug)+"?done=transferred")
}

// myInvitations are the signed-in user's invitations for the worlds page, or why they are
// not shown (an unverified email on an instance that sends mail).
func (w *Web) myInvitations(u *core.Record) ([]views.InvitationItem, string, error) {
	email, err := w.Store.InviteeEmail(u)
	if err != nil {
		return nil, sentence(apierr.From(err).Message), nil
	}
	invs, _, err := w.Store.InvitationsFor(email, allRows)
	if err != nil {
		return nil, "", err
	}
	items := make([]views.InvitationItem, len(invs))
	for i, x := range invs {
		base := "/invitations/" + url.PathEscape(x.ID)
		items[i] = views.InvitationItem{ID: x.ID, WorldName: x.WorldName, Role: x.Role, InviterName: x.InviterName,
			AcceptAction: base + "/accept", DeclineAction: base + "/decline"}
	}
	return items, "", nil
}

// answerInvitation accepts (then opens the world) or declines (then goes home) an invitation
// addressed to the signed-in user; anyone else's is not found.
func (w *Web) answerInvitation(accept bool) func(e *core.RequestEvent) error {
	return func(e *core.RequestEvent) error {
		u, err := requireUser(e)
		if u == nil {
			return err
		}
		email, err := w.Store.InviteeEmail(u)
		if err != nil {
			return w.errorPage(e, apierr.From(err).Status, "Email not verified", sentence(apierr.From(err).Message))
		}
		inv, err := w.Store.InvitationFor(email, e.Request.PathValue("id"))
		if err != nil {
			return w.errorPage(e, http.StatusNotFound, "Not found", "There is no such invitation for you: it may have been answered, revoked or expired.")
		}
		if !accept {
			if err := w.Store.DeclineInvitation(email, inv.ID); err != nil && err != apierr.ErrNotFound {
				return err
			}
			return e.Redirect(http.StatusSeeOther, "/")
		}
		if _, err := w.Store.AcceptInvitation(inv, u.Id); err != nil {
			if err == apierr.ErrNotFound {
				return w.errorPage(e, http.StatusNotFound, "Not found", "There is no such invitation for you: it may have been answered, revoked or expired.")
			}
			return err
		}
		return e.Redirect(http.StatusSeeOther, worldURL(inv.WorldSlug, store.MainLine))
	}
}
