package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestSecretSectionsOnTheDocumentPage: a viewer's document page, and the body fragment its
// live updates fetch, leave a secret section out; an editor's shows it, marked secret (and
// the card editor starts from the card with the section marked); the editor's Secret toggle
// (card.setSectionSecret through the web write path) hides it from the viewer.
func TestSecretSectionsOnTheDocumentPage(t *testing.T) {
	s := apptest.Start(t)
	ann, vi := s.NewUser("Ann"), s.NewUser("Vi")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, vi, "viewer")
	card := w.doc(t, "Vharn", "card", "", "")
	w.apply(t, card, "",
		map[string]any{"op": "card.addSection", "title": "Life", "body": "Born at sea."},
		map[string]any{"op": "card.addSection", "title": "Plot", "body": "Sinks the *zephyrword* fleet.", "secret": true})
	path := "/w/" + w.Slug + "/d/" + card
	editor, viewer := s.SignIn(ann), s.SignIn(vi)

	for _, p := range []string{path, path + "/body"} {
		page := doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: p, Client: editor}), http.StatusOK))
		sec := page.Find(`[data-testid="section"][data-secret]`)
		if sec.Length() != 1 || !strings.Contains(sec.Text(), "zephyrword") || sec.Find(`[data-testid="secret-note"]`).Length() != 1 {
			t.Fatalf("editor %s: secret section %q", p, sec.Text())
		}
		if note := sec.Find(`[data-testid="secret-note"]`); sec.AttrOr("aria-describedby", "") != note.AttrOr("id", "-") || !strings.Contains(note.Text(), "Secret: only editors see this section") {
			t.Fatalf("editor %s: the mark is not tied to the section: %q", p, note.Text())
		}

		res := s.Must(s.Do(apptest.Request{Method: "GET", Path: p, Client: viewer}), http.StatusOK)
		page = doc(t, res)
		if n := page.Find(`[data-testid="section"]`).Length(); n != 1 || !strings.Contains(page.Find(`[data-testid="section"]`).Text(), "Born at sea") {
			t.Fatalf("viewer %s: %d sections", p, n)
		}
		if body := string(res.Body); strings.Contains(body, "zephyrword") || strings.Contains(body, "Plot") {
			t.Fatalf("viewer %s shows the secret section", p)
		}
	}
	// The card editor (editors only) starts from the card with its secret section, marked.
	if body := string(s.Must(s.Do(apptest.Request{Method: "GET", Path: path, Client: editor}), http.StatusOK).Body); !strings.Contains(body, `\"secret\":true`) && !strings.Contains(body, `"secret":true`) {
		t.Fatal("the card editor's data lacks the secret mark")
	}

	// Marking "Life" secret through the web write path hides it from the viewer too.
	var sections struct {
		Content struct {
			Data struct{ Sections []struct{ ID, Title string } }
		}
	}
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card), http.StatusOK).JSON(t, &sections)
	life := sections.Content.Data.Sections[0].ID
	token := s.CSRFToken(editor, "/")
	s.Must(editorPost(s, editor, token, path+"/content", map[string]any{"ops": []any{map[string]any{"op": "card.setSectionSecret", "id": life, "secret": true}}}), http.StatusOK)
	res := s.Must(s.Do(apptest.Request{Method: "GET", Path: path + "/body", Client: viewer}), http.StatusOK)
	if n := doc(t, res).Find(`[data-testid="section"]`).Length(); n != 0 || strings.Contains(string(res.Body), "Born at sea") {
		t.Fatalf("viewer after marking Life secret: %d sections", n)
	}
	if n := doc(t, s.Must(s.Do(apptest.Request{Method: "GET", Path: path + "/body", Client: editor}), http.StatusOK)).Find(`[data-testid="section"][data-secret]`).Length(); n != 2 {
		t.Fatalf("editor sees %d secret sections, want 2", n)
	}
	// A viewer cannot mark a section.
	vtoken := s.CSRFToken(viewer, "/")
	if res := editorPost(s, viewer, vtoken, path+"/content", map[string]any{"ops": []any{map[string]any{"op": "card.setSectionSecret", "id": life, "secret": false}}}); res.Status != http.StatusForbidden {
		t.Fatalf("viewer write: %d", res.Status)
	}
}

// TestSecretSectionCursors: a cursor in a secret section reaches the editors' streams only; a
// cursor in a public section reaches viewers too.
func TestSecretSectionCursors(t *testing.T) {
	s := apptest.Start(t)
	ann, ed, vi := s.NewUser("Ann"), s.NewUser("Ed"), s.NewUser("Vi")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, ed, "editor")
	s.AddMember(ann, w.ID, vi, "viewer")
	card := w.doc(t, "Vharn", "card", "", "")
	w.apply(t, card, "",
		map[string]any{"op": "card.addSection", "title": "Life", "body": "Born at sea."},
		map[string]any{"op": "card.addSection", "title": "Plot", "body": "zephyrword", "secret": true})
	var d struct {
		Content struct {
			Data struct{ Sections []struct{ ID string } }
		}
	}
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+card), http.StatusOK).JSON(t, &d)
	life, plot := d.Content.Data.Sections[0].ID, d.Content.Data.Sections[1].ID
	api := "/api/v1/worlds/" + w.ID + "/documents/" + card + "/events"
	edStream, viStream := s.Stream(ed.Key, api), s.Stream(vi.Key, api)
	edStream.Expect(t, "snapshot")
	viStream.Expect(t, "snapshot")

	b := s.SignIn(ann)
	token := s.CSRFToken(b, "/")
	path := "/w/" + w.Slug + "/d/" + card + "/cursor"
	for _, field := range []string{plot, life} {
		s.Must(editorPost(s, b, token, path, map[string]any{"clientId": "tab-1", "field": field, "anchor": 1, "head": 1, "version": 1}), http.StatusNoContent)
	}
	if ev := edStream.Expect(t, "cursor"); !strings.Contains(ev.Data, plot) {
		t.Fatalf("editor's first cursor: %s", ev.Data)
	}
	if ev := edStream.Expect(t, "cursor"); !strings.Contains(ev.Data, life) {
		t.Fatalf("editor's second cursor: %s", ev.Data)
	}
	if ev := viStream.Expect(t, "cursor"); !strings.Contains(ev.Data, life) {
		t.Fatalf("viewer's first cursor (the one in the secret section must not come): %s", ev.Data)
	}
}
