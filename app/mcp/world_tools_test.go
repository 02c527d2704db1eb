package mcp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestOrganiseThroughMCP: an agent with a new account creates a world, files, renames, moves
// and deletes documents and reads their history, on the same rules as REST.
func TestOrganiseThroughMCP(t *testing.T) {
	s := apptest.Start(t, apptest.WithDefaultPlan("pro"))
	ann, vic := s.NewUser("Ann"), s.NewUser("Vic")
	session := connect(t, s, ann.Key)

	var w struct{ ID, Name, Plan, Role string }
	if call(t, session, "create_world", map[string]any{"name": "Eldoria", "genre": "fantasy"}, &w) {
		t.Fatalf("create_world failed: %+v", w)
	}
	if w.ID == "" || w.Name != "Eldoria" || w.Plan != "pro" || w.Role != "owner" {
		t.Fatalf("create_world %+v", w)
	}
	var te toolErr
	if !call(t, session, "create_world", map[string]any{"name": ""}, &te) || te.Error.Code != "invalid_field" {
		t.Errorf("create_world without a name: %+v", te)
	}

	var folder, card struct{ ID, Name, ParentID string }
	call(t, session, "create_document", map[string]any{"worldId": w.ID, "name": "People", "documentType": "folder"}, &folder)
	call(t, session, "create_document", map[string]any{"worldId": w.ID, "name": "Aria", "documentType": "card"}, &card)
	if folder.ID == "" || card.ID == "" {
		t.Fatalf("create_document: %+v %+v", folder, card)
	}
	if call(t, session, "update_document", map[string]any{"worldId": w.ID, "documentId": card.ID, "name": "Aria Stormborn", "parentId": folder.ID}, &card) ||
		card.Name != "Aria Stormborn" || card.ParentID != folder.ID {
		t.Fatalf("update_document: %+v", card)
	}
	if !call(t, session, "update_document", map[string]any{"worldId": w.ID, "documentId": card.ID}, &te) || te.Error.Code != "nothing_to_change" {
		t.Errorf("update_document with nothing to change: %+v", te)
	}
	if !call(t, session, "update_document", map[string]any{"worldId": w.ID, "documentId": folder.ID, "parentId": folder.ID}, &te) || te.Error.Code == "" {
		t.Errorf("a folder moved into itself: %+v", te)
	}
	// Back to the top level.
	if call(t, session, "update_document", map[string]any{"worldId": w.ID, "documentId": card.ID, "parentId": ""}, &card) || card.ParentID != "" {
		t.Fatalf("moved to the top level: %+v", card)
	}

	for _, title := range []string{"Youth", "War"} {
		if call(t, session, "apply_content_ops", map[string]any{"worldId": w.ID, "documentId": card.ID, "ops": []any{
			map[string]any{"op": "card.addSection", "title": title},
		}}, nil) {
			t.Fatal("apply_content_ops failed")
		}
	}
	var h struct {
		Version, OldestVersion int
		HasMore                bool
		Items                  []struct {
			Version int
			Ops     []map[string]any
			Actor   struct{ ID string }
		}
	}
	if call(t, session, "get_history", map[string]any{"worldId": w.ID, "documentId": card.ID, "limit": 1}, &h) ||
		h.Version != 2 || len(h.Items) != 1 || !h.HasMore || h.Items[0].Version != 1 || h.Items[0].Ops[0]["title"] != "Youth" || h.Items[0].Actor.ID != ann.ID {
		t.Fatalf("get_history: %+v", h)
	}
	if call(t, session, "get_history", map[string]any{"worldId": w.ID, "documentId": card.ID, "since": 1}, &h) || len(h.Items) != 1 || h.Items[0].Version != 2 || h.HasMore {
		t.Fatalf("get_history since 1: %+v", h)
	}
	if !call(t, session, "get_history", map[string]any{"worldId": w.ID, "documentId": card.ID, "limit": 0}, &te) || te.Error.Code != "invalid_field" {
		t.Errorf("get_history limit 0: %+v", te)
	}

	// A viewer may read but not organise, nor read a card's op log (it can hold secrets).
	s.AddMember(ann, w.ID, vic, "viewer")
	vs := connect(t, s, vic.Key)
	if !call(t, vs, "delete_document", map[string]any{"worldId": w.ID, "documentId": card.ID}, &te) || te.Error.Code != "forbidden" {
		t.Errorf("a viewer deletes: %+v", te)
	}
	if !call(t, vs, "update_document", map[string]any{"worldId": w.ID, "documentId": card.ID, "name": "x"}, &te) || te.Error.Code != "forbidden" {
		t.Errorf("a viewer renames: %+v", te)
	}
	if !call(t, vs, "get_history", map[string]any{"worldId": w.ID, "documentId": card.ID}, &te) || te.Error.Code != "forbidden" {
		t.Errorf("a viewer reads a card's op log: %+v", te)
	}

	// A folder with something in it stays; an empty one goes, and REST sees it gone.
	call(t, session, "update_document", map[string]any{"worldId": w.ID, "documentId": card.ID, "parentId": folder.ID}, &card)
	if !call(t, session, "delete_document", map[string]any{"worldId": w.ID, "documentId": folder.ID}, &te) || te.Error.Code == "" {
		t.Errorf("a folder with a card deleted: %+v", te)
	}
	var del struct{ DocumentID string }
	if call(t, session, "delete_document", map[string]any{"worldId": w.ID, "documentId": card.ID}, &del) || del.DocumentID != card.ID {
		t.Fatalf("delete_document: %+v", del)
	}
	if res := s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card.ID); res.Status != http.StatusNotFound {
		t.Errorf("REST reads the deleted card: %d", res.Status)
	}
	if !call(t, session, "delete_document", map[string]any{"worldId": w.ID, "documentId": card.ID}, &te) || !strings.Contains(te.Error.Code, "not_found") {
		t.Errorf("deleted twice: %+v", te)
	}
}

// TestMembersThroughMCP: list, invite (the same answer for any email), and remove or leave.
func TestMembersThroughMCP(t *testing.T) {
	s := apptest.Start(t)
	ann, bob, cat := s.NewUser("Ann"), s.NewUser("Bob"), s.NewUser("Cat")
	w := s.World(ann, "Eldoria")
	session := connect(t, s, ann.Key)

	var inv, ghost struct{ ID, Email, Role string }
	if call(t, session, "invite_member", map[string]any{"worldId": w, "email": bob.Email, "role": "editor"}, &inv) || inv.ID == "" || inv.Role != "editor" {
		t.Fatalf("invite_member: %+v", inv)
	}
	if call(t, session, "invite_member", map[string]any{"worldId": w, "email": "nobody@example.test", "role": "editor"}, &ghost) || ghost.ID == "" {
		t.Fatalf("invite_member, an email without an account: %+v", ghost)
	}
	var te toolErr
	if !call(t, session, "invite_member", map[string]any{"worldId": w, "email": "x@example.test", "role": "owner"}, &te) || te.Error.Code == "" {
		t.Errorf("invited as owner: %+v", te)
	}
	s.Must(s.Post(bob.Key, "/api/v1/invitations/"+inv.ID+"/accept", nil), http.StatusOK)
	s.AddMember(ann, w, cat, "viewer")

	var ms struct {
		Items []struct{ UserID, Role string }
	}
	if call(t, session, "list_members", map[string]any{"worldId": w}, &ms) || len(ms.Items) != 3 {
		t.Fatalf("list_members: %+v", ms)
	}
	// A viewer neither invites nor removes others; anyone may leave.
	cats := connect(t, s, cat.Key)
	if !call(t, cats, "invite_member", map[string]any{"worldId": w, "email": "y@example.test", "role": "viewer"}, &te) || te.Error.Code != "forbidden" {
		t.Errorf("a viewer invites: %+v", te)
	}
	if !call(t, cats, "remove_member", map[string]any{"worldId": w, "userId": bob.ID}, &te) || te.Error.Code != "forbidden" {
		t.Errorf("a viewer removes an editor: %+v", te)
	}
	if call(t, cats, "remove_member", map[string]any{"worldId": w, "userId": cat.ID}, nil) {
		t.Error("a viewer could not leave")
	}
	if call(t, session, "remove_member", map[string]any{"worldId": w, "userId": bob.ID}, nil) {
		t.Error("the owner could not remove an editor")
	}
	if !call(t, session, "remove_member", map[string]any{"worldId": w, "userId": ann.ID}, &te) || te.Error.Code == "" {
		t.Errorf("the owner left: %+v", te)
	}
	if call(t, session, "list_members", map[string]any{"worldId": w}, &ms) || len(ms.Items) != 1 {
		t.Fatalf("list_members at the end: %+v", ms)
	}
}

// TestListAssets: an agent finds the world's uploaded files (for map.setImage and
// animator.setModel).
func TestListAssets(t *testing.T) {
	s := apptest.Start(t)
	r := s.RichWorld("Eldoria")
	session := connect(t, s, r.Editor.Key)
	var l struct {
		Items []struct {
			ID, URL, Kind string
			Width         int
		}
		TotalItems int
	}
	if call(t, session, "list_assets", map[string]any{"worldId": r.ID}, &l) || l.TotalItems != 2 || len(l.Items) != 2 {
		t.Fatalf("list_assets: %+v", l)
	}
	for _, a := range l.Items {
		if !strings.HasSuffix(a.URL, "/assets/"+a.ID+"/file") || a.Kind != "image" || a.Width == 0 {
			t.Errorf("asset %+v", a)
		}
	}
}
