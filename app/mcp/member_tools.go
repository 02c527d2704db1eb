package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// InviteMemberIn invites someone to a world.
type InviteMemberIn struct {
	WorldID string `json:"worldId"`
	Email   string `json:"email" jsonschema:"the invitee's email; they accept in the web app (or over the API) once signed in with it"`
	Role    string `json:"role" jsonschema:"admin, editor or viewer (only the owner invites admins)"`
}

// RemoveMemberIn removes a member, or the caller leaves.
type RemoveMemberIn struct {
	WorldID string `json:"worldId"`
	UserID  string `json:"userId" jsonschema:"the member's user id (list_members); your own to leave the world"`
}

// Removed says who left a world.
type Removed struct {
	UserID string `json:"userId"`
}

// addMemberTools adds the members tools, and list_assets, on the REST routes' store calls
// and rules.
func (s *Server) addMemberTools(srv *sdk.Server) {
	sdk.AddTool(srv, &sdk.Tool{Name: "list_assets", Title: "List uploaded files", Annotations: reads(),
		Description: "A world's uploaded files (map images, 3D models), oldest first: their url (for map.setImage and animator.setModel), kind, content type, size and, for images, width and height. Uploading is for the web app and the REST API (POST …/assets). Any member."},
		worldList(s, s.Store.Assets, store.Asset.JSON))

	sdk.AddTool(srv, &sdk.Tool{Name: "list_members", Title: "List members", Annotations: reads(),
		Description: "The members of a world with their roles (owner, admin, editor, viewer). Any member."},
		worldList(s, s.Store.Members, api.MemberJSONOf))

	sdk.AddTool(srv, &sdk.Tool{Name: "invite_member", Title: "Invite someone to a world", Annotations: adds(),
		Description: "Invite an email to a world with a role. The answer is the same whether or not the email has an account (an invitation waits for a sign-up); inviting again changes the role and renews it. Owners and admins."},
		func(ctx context.Context, req *sdk.CallToolRequest, in InviteMemberIn) (*sdk.CallToolResult, *api.InvitationJSON, error) {
			w, role, err := s.world(req, in.WorldID, auth.Manage)
			if err != nil {
				return nil, nil, err
			}
			if err := store.CheckInvite(in.Email, in.Role, role); err != nil {
				return nil, nil, fail(err)
			}
			p, _ := principal(req)
			inv, _, err := s.Store.Invite(w.ID, in.Email, in.Role, p.UserID)
			if err != nil {
				return nil, nil, fail(err)
			}
			s.Store.MailInvitation(inv, inv.InviterName, s.BaseURL)
			out := api.InvitationJSONOf(inv)
			return nil, &out, nil
		})

	sdk.AddTool(srv, &sdk.Tool{Name: "remove_member", Title: "Remove a member", Annotations: deletes(),
		Description: "Remove a member from a world (owners and admins; only the owner removes admins), or leave it yourself with your own user id. The owner cannot leave: pass ownership on in the web app first."},
		func(ctx context.Context, req *sdk.CallToolRequest, in RemoveMemberIn) (*sdk.CallToolResult, *Removed, error) {
			p, err := principal(req)
			if err != nil {
				return nil, nil, err
			}
			w, role, err := s.world(req, in.WorldID, auth.ReadMeta)
			if err != nil {
				return nil, nil, err
			}
			m, err := s.Store.Member(w.ID, in.UserID)
			if err != nil {
				return nil, nil, fail(apierr.NotFound("member"))
			}
			if err := store.CheckRemoval(role, m.Role, in.UserID == p.UserID); err != nil {
				return nil, nil, fail(err)
			}
			if err := s.Store.RemoveMember(w.ID, in.UserID); err != nil {
				return nil, nil, fail(err)
			}
			return nil, &Removed{UserID: in.UserID}, nil
		})
}
