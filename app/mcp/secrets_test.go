package mcp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestSecretSectionsOverMCP: get_document and search give a viewer the card without its
// secret section, and never match or show its text; an editor gets it all.
func TestSecretSectionsOverMCP(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	ed := s.NewUser("Ed")
	vi := s.NewUser("Vi")
	w := s.World(ann, "Eldoria")
	s.AddMember(ann, w, ed, "editor")
	s.AddMember(ann, w, vi, "viewer")
	card := s.Document(ann, w, "Mordred", "card")
	s.Must(s.Post(ed.Key, "/api/v1/worlds/"+w+"/documents/"+card+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.addSection", "title": "Life", "body": "Born in Orkney."},
		map[string]any{"op": "card.addSection", "title": "Plot", "body": "Betrays the king: zephyrword.", "secret": true},
	}}), http.StatusOK)
	s.WaitSearchable(ed.Key, w, "zephyrword")

	type doc struct {
		Data struct {
			Sections []struct{ Title, Body string }
		}
		Text string
	}
	type hits struct {
		Items []struct {
			ID, Snippet string
		}
		TotalItems int
	}
	edSession, viSession := connect(t, s, ed.Key), connect(t, s, vi.Key)
	args := map[string]any{"worldId": w, "documentId": card, "fields": []string{"data", "text"}}

	var edDoc, viDoc doc
	if call(t, edSession, "get_document", args, &edDoc) || len(edDoc.Data.Sections) != 2 || !strings.Contains(edDoc.Text, "zephyrword") {
		t.Fatalf("editor get_document: %+v", edDoc)
	}
	if call(t, viSession, "get_document", args, &viDoc) || len(viDoc.Data.Sections) != 1 || viDoc.Data.Sections[0].Title != "Life" ||
		strings.Contains(viDoc.Text, "zephyrword") || strings.Contains(viDoc.Text, "Plot") || !strings.Contains(viDoc.Text, "Orkney") {
		t.Fatalf("viewer get_document: %+v", viDoc)
	}

	var edHits, viHits hits
	q := map[string]any{"worldId": w, "q": "zephyrword"}
	if call(t, edSession, "search", q, &edHits) || edHits.TotalItems != 1 || !strings.Contains(edHits.Items[0].Snippet, "<mark>zephyrword</mark>") {
		t.Fatalf("editor search: %+v", edHits)
	}
	if call(t, viSession, "search", q, &viHits) || viHits.TotalItems != 0 {
		t.Fatalf("viewer search: %+v", viHits)
	}
	q["q"] = "Orkney"
	if call(t, viSession, "search", q, &viHits) || viHits.TotalItems != 1 || strings.Contains(viHits.Items[0].Snippet, "zephyrword") {
		t.Fatalf("viewer public search: %+v", viHits)
	}
}

// TestLinksOverMCP: get_links answers a document's links and backlinks; a link only a secret
// section holds is the editors' alone.
func TestLinksOverMCP(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	vi := s.NewUser("Vi")
	w := s.World(ann, "Eldoria")
	s.AddMember(ann, w, vi, "viewer")
	vharn := s.Document(ann, w, "Vharn", "card")
	ossa := s.Document(ann, w, "Ossa", "card")
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/documents/"+ossa+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.addSection", "title": "Life", "body": "Apprenticed to [[Vharn]]."},
		map[string]any{"op": "card.addSection", "title": "GM", "body": "Owes [[Vharn]] a debt: zephyrword.", "secret": true},
	}}), http.StatusOK)
	type links struct {
		Outgoing, Incoming struct {
			Items []struct {
				DocumentID, Name, Status, Context string
				Secret                            bool
			}
			TotalItems int
		}
	}
	annSession, viSession := connect(t, s, ann.Key), connect(t, s, vi.Key)
	var out, in links
	if call(t, annSession, "get_links", map[string]any{"worldId": w, "documentId": ossa}, &out) ||
		out.Outgoing.TotalItems != 1 || out.Outgoing.Items[0].DocumentID != vharn || out.Outgoing.Items[0].Status != "ok" || out.Outgoing.Items[0].Context != "Apprenticed to Vharn." {
		t.Fatalf("get_links outgoing: %+v", out)
	}
	if call(t, annSession, "get_links", map[string]any{"worldId": w, "documentId": vharn}, &in) || in.Incoming.TotalItems != 1 || in.Incoming.Items[0].DocumentID != ossa {
		t.Fatalf("get_links incoming: %+v", in)
	}
	// Only the secret section links now: the viewer sees nothing of it.
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/documents/"+ossa+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "card.removeSection", "id": firstSection(t, s, ann.Key, w, ossa)},
	}}), http.StatusOK)
	var edIn, viIn links
	if call(t, annSession, "get_links", map[string]any{"worldId": w, "documentId": vharn}, &edIn) || edIn.Incoming.TotalItems != 1 || !strings.Contains(edIn.Incoming.Items[0].Context, "zephyrword") {
		t.Fatalf("editor's get_links after: %+v", edIn)
	}
	if call(t, viSession, "get_links", map[string]any{"worldId": w, "documentId": vharn}, &viIn) || viIn.Incoming.TotalItems != 0 {
		t.Fatalf("viewer's get_links: %+v", viIn)
	}
}

func firstSection(t *testing.T, s *apptest.Server, key, world, doc string) string {
	t.Helper()
	var d struct {
		Content struct {
			Data struct{ Sections []struct{ ID string } }
		}
	}
	s.Must(s.Get(key, "/api/v1/worlds/"+world+"/documents/"+doc), http.StatusOK).JSON(t, &d)
	return d.Content.Data.Sections[0].ID
}
