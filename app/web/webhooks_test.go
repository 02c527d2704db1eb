package web_test

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/loreweave/loreweave/app/apptest"
)

// The webhooks page's forms: every POST needs the CSRF token; a loopback target (private
// targets not allowed) is refused beside the URL field, in words, and nothing is made; a
// viewer cannot post, an admin may open the page.
func TestWebhooksPageForms(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann Owner")
	var w struct{ ID, Slug string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Harbour"}), http.StatusCreated).JSON(t, &w)
	page := "/w/" + w.Slug + "/webhooks"
	b := s.SignIn(ann)
	token := s.CSRFToken(b, page)

	form := url.Values{"url": {"https://93.184.215.14/hook"}, "events": {"document.created"}}
	if res := s.PostForm(b, page, form); res.Status != http.StatusForbidden {
		t.Errorf("create without the CSRF token: %d", res.Status)
	}
	if n := s.Count("webhooks", ""); n != 0 {
		t.Fatalf("%d webhooks made without the token", n)
	}

	form.Set("csrf", token)
	form.Set("url", "http://127.0.0.1:9000/hook")
	res := s.PostForm(b, page, form)
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(res.Body))
	if res.Status != http.StatusUnprocessableEntity || doc.Find(`#webhook-url-error[data-code="private_target"]`).Length() != 1 ||
		!strings.Contains(doc.Find(`#webhook-url-error`).Text(), "--webhooks-allow-private") {
		t.Fatalf("a loopback target: %d %s", res.Status, doc.Find(`main`).Text())
	}
	if v, _ := doc.Find(`#webhook-url`).Attr("aria-invalid"); v != "true" {
		t.Error("the URL field is not marked invalid")
	}
	if n := s.Count("webhooks", ""); n != 0 {
		t.Fatalf("%d webhooks made by a refused form", n)
	}

	form.Set("url", "https://93.184.215.14/hook")
	res = s.PostForm(b, page, form)
	doc, _ = goquery.NewDocumentFromReader(bytes.NewReader(res.Body))
	if res.Status != http.StatusCreated || !strings.HasPrefix(doc.Find(`[data-testid="new-secret-value"]`).Text(), "whsec_") {
		t.Fatalf("create: %d", res.Status)
	}
	id, _ := doc.Find(`[data-testid="webhook"]`).Attr("data-webhook-id")
	for _, action := range []string{"", "/enabled", "/rotate", "/test", "/delete"} {
		if res := s.PostForm(b, page+"/"+id+action, url.Values{"events": {"era.created"}, "enabled": {"false"}}); res.Status != http.StatusForbidden {
			t.Errorf("POST %s without the CSRF token: %d", action, res.Status)
		}
	}
	res = s.PostForm(b, page+"/"+id, url.Values{"csrf": {token}})
	doc, _ = goquery.NewDocumentFromReader(bytes.NewReader(res.Body))
	if res.Status != http.StatusUnprocessableEntity || doc.Find(`[data-testid="webhook"] [data-testid="form-error"]`).Length() != 1 {
		t.Errorf("saving no events: %d", res.Status)
	}

	adam := s.NewUser("Adam Admin")
	s.AddMember(ann, w.ID, adam, "admin")
	viewer := s.NewUser("Val Viewer")
	s.AddMember(ann, w.ID, viewer, "viewer")
	vb := s.SignIn(viewer)
	if res := s.PostForm(vb, page, url.Values{"csrf": {s.CSRFToken(vb, "/w/"+w.Slug)}, "url": {"https://93.184.215.14/x"}, "events": {"era.created"}}); res.Status != http.StatusForbidden {
		t.Errorf("a viewer creating a webhook: %d", res.Status)
	}
	ab := s.SignIn(adam)
	if res := s.Do(apptest.Request{Method: "GET", Path: page, Client: ab}); res.Status != http.StatusOK {
		t.Errorf("an admin opening the page: %d", res.Status)
	}
}
