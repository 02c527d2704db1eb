package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestDocumentPreview: a link's preview shows the target's name, type and the start of its
// text (links in it by name) to members; a non-member gets 404; a viewer's preview leaves a
// secret section's text out.
func TestDocumentPreview(t *testing.T) {
	s := apptest.Start(t)
	ann, vi, out := s.NewUser("Ann"), s.NewUser("Vi"), s.NewUser("Out")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, vi, "viewer")
	port := w.doc(t, "Saltmarsh", "card", "", "")
	card := w.doc(t, "Vharn", "card", "", "")
	w.apply(t, card, "",
		map[string]any{"op": "card.addSection", "title": "Plot", "body": "Sinks the *zephyrword* fleet.", "secret": true},
		map[string]any{"op": "card.addSection", "title": "Life", "body": "Born at sea near [[doc:" + port + "]], **raised** by the tide. " + strings.Repeat("The tide rises. ", 40)})
	path := "/w/" + w.Slug + "/d/" + card + "/preview"

	res := s.Must(s.Do(apptest.Request{Method: "GET", Path: path, Client: s.SignIn(ann)}), http.StatusOK)
	page := doc(t, res)
	if got := page.Find(`[data-testid="preview-name"]`).Text(); got != "Vharn" {
		t.Fatalf("name = %q", got)
	}
	if got := page.Find(`[data-testid="preview-type"]`).Text(); got != "card" {
		t.Fatalf("type = %q", got)
	}
	text := page.Find(`[data-testid="preview-text"]`).Text()
	if !strings.HasPrefix(text, "Sinks the zephyrword fleet. Born at sea near Saltmarsh, raised by the tide.") || !strings.HasSuffix(text, "…") || len([]rune(text)) > 301 {
		t.Fatalf("editor's text = %q", text)
	}
	if strings.Contains(string(res.Body), "<html") {
		t.Fatal("the preview is a whole page, not a fragment")
	}

	text = doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: path, Client: s.SignIn(vi)}), http.StatusOK)).Find(`[data-testid="preview-text"]`).Text()
	if strings.Contains(text, "zephyrword") || !strings.HasPrefix(text, "Born at sea near Saltmarsh") {
		t.Fatalf("viewer's text = %q", text)
	}

	s.Must(s.Do(apptest.Request{Method: "GET", Path: path, Client: s.SignIn(out)}), http.StatusNotFound)
	s.Must(s.Do(apptest.Request{Method: "GET", Path: "/w/" + w.Slug + "/d/nosuchdocument/preview", Client: s.SignIn(ann)}), http.StatusNotFound)
}

// TestCreateDocumentJSON: the link picker creates a card through the web route with JSON and
// the CSRF header, and gets the card back; viewers and non-members are refused in the API's
// error shape.
func TestCreateDocumentJSON(t *testing.T) {
	s := apptest.Start(t)
	ann, vi, out := s.NewUser("Ann"), s.NewUser("Vi"), s.NewUser("Out")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, vi, "viewer")
	path := "/w/" + w.Slug + "/documents"
	body := map[string]any{"name": "Saltmarsh", "documentType": "card"}

	b := s.SignIn(ann)
	var got struct{ ID, Name, DocumentType, Href string }
	s.Must(editorPost(s, b, s.CSRFToken(b, "/"), path, body), http.StatusCreated).JSON(t, &got)
	if got.ID == "" || got.Name != "Saltmarsh" || got.DocumentType != "card" || got.Href != "/w/"+w.Slug+"/d/"+got.ID {
		t.Fatalf("created %+v", got)
	}
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+got.ID), http.StatusOK)

	var e struct{ Error struct{ Code string } }
	s.Must(editorPost(s, b, s.CSRFToken(b, "/"), path, map[string]any{"name": "", "documentType": "card"}), http.StatusUnprocessableEntity).JSON(t, &e)
	if e.Error.Code == "" {
		t.Fatal("no error code for an empty name")
	}
	vb := s.SignIn(vi)
	s.Must(editorPost(s, vb, s.CSRFToken(vb, "/"), path, body), http.StatusForbidden)
	ob := s.SignIn(out)
	s.Must(editorPost(s, ob, s.CSRFToken(ob, "/"), path, body), http.StatusNotFound)
	s.Must(editorPost(s, b, "", path, body), http.StatusForbidden) // no CSRF token
}
