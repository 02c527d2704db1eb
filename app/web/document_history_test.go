package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// A viewer's history and past versions leave secret sections out (a change to one is said
// without its title); a viewer gets no restore control and may not restore; a restore
// without the page's CSRF token is refused; an editor's refused restore is said next to the
// control; the history pages back with Older.
func TestDocumentHistoryPages(t *testing.T) {
	s := apptest.Start(t)
	ann, vic := s.NewUser("Ann"), s.NewUser("Vic")
	w := newWorld(t, s, ann, "Eldoria")
	s.AddMember(ann, w.ID, vic, "viewer")
	card := w.doc(t, "Aerendyl", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Life", "body": "Sailed."})
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "The murderer", "body": "It was the butler.", "secret": true})
	base := "/w/" + w.Slug + "/d/" + card

	vb := s.SignIn(vic)
	h := page(t, s, vb, base+"/history", http.StatusOK)
	if got := strings.Join(texts(h.Find(`[data-testid="history-summary"]`)), " | "); got != "added a secret section | added section “Life”" {
		t.Fatalf("a viewer's history: %q", got)
	}
	v := page(t, s, vb, base+"/v/2", http.StatusOK)
	if strings.Contains(v.Text(), "butler") || strings.Contains(v.Text(), "murderer") {
		t.Fatal("a viewer's past version shows the secret section")
	}
	if v.Find(`[data-testid="restore-form"]`).Length() != 0 {
		t.Fatal("a viewer is offered to restore")
	}
	token := s.CSRFToken(vb, base+"/history")
	if res := s.PostForm(vb, base+"/restore", url.Values{"csrf": {token}, "version": {"1"}}); res.Status < 400 {
		t.Fatalf("a viewer's restore: %d", res.Status)
	}

	ab := s.SignIn(ann)
	h = page(t, s, ab, base+"/history", http.StatusOK)
	if got := strings.Join(texts(h.Find(`[data-testid="history-summary"]`)), " | "); got != "added section “The murderer” | added section “Life”" {
		t.Fatalf("an editor's history: %q", got)
	}
	v = page(t, s, ab, base+"/v/1", http.StatusOK)
	if v.Find(`[data-testid="restore-form"]`).Length() != 1 || !strings.Contains(v.Find(`[data-testid="version-banner"]`).Text(), "You are viewing version 1") {
		t.Fatal("an editor's version page has no banner or no restore control")
	}
	if res := s.PostForm(ab, base+"/restore", url.Values{"version": {"1"}}); res.Status != http.StatusForbidden {
		t.Fatalf("a restore without the CSRF token: %d, want 403", res.Status)
	}
	token = s.CSRFToken(ab, base+"/v/1")
	res := s.PostForm(ab, base+"/restore", url.Values{"csrf": {token}, "version": {"2"}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(string(res.Body), "nothing to restore") {
		t.Fatalf("restoring the current version: %d, want 422 with the reason next to the control", res.Status)
	}
	res = s.PostForm(ab, base+"/restore", url.Values{"csrf": {token}, "version": {"1"}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != base {
		t.Fatalf("restore: %d to %q, want 303 to the document", res.Status, res.Header.Get("Location"))
	}
	if c := page(t, s, ab, base, http.StatusOK); strings.Contains(c.Text(), "The murderer") {
		t.Fatal("after restoring version 1 the secret section is still there")
	}
	if p := page(t, s, ab, base+"/v/99", http.StatusNotFound); !strings.Contains(p.Text(), "no version 99") {
		t.Fatal("a version the document has not reached does not say so")
	}

	for i := range 30 {
		w.apply(t, card, "", map[string]any{"op": "card.setProperty", "key": fmt.Sprintf("k%d", i), "value": "v"})
	}
	h = page(t, s, ab, base+"/history", http.StatusOK)
	older, ok := h.Find(`[data-testid="history-older"]`).Attr("href")
	if n := h.Find(`[data-testid="history-item"]`).Length(); n != 25 || !ok {
		t.Fatalf("the first page lists %d versions (older: %v), want 25 and a link to older ones", n, ok)
	}
	h = page(t, s, ab, older, http.StatusOK)
	if first, _ := h.Find(`[data-testid="history-item"]`).First().Attr("data-version"); first != "8" || h.Find(`[data-testid="history-item"]`).Length() != 8 {
		t.Fatalf("the second page starts at version %s with %d versions, want 8 and 8", first, h.Find(`[data-testid="history-item"]`).Length())
	}
	if h.Find(`[data-testid="history-older"]`).Length() != 0 || h.Find(`[data-testid="history-newest"]`).Length() != 1 {
		t.Fatal("the last page links to older versions, or not to the newest")
	}
}
