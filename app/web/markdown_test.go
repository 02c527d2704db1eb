package web_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/loreweave/loreweave/app/apptest"
)

// Task lists keep their checkboxes, as disabled checkbox inputs named Done or To do; no other
// input gets through.
func TestMarkdownTaskListsKeepTheirCheckboxes(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	card := w.doc(t, "Aria", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Quests", "body": "- [x] find the sword\n- [ ] slay the dragon\n- rest\n\n" +
		"<input type=\"text\" name=\"q\" value=\"x\"> <input type=\"checkbox\" onclick=\"alert(1)\"> <form action=\"/logout\"><input type=checkbox checked></form>\n\n" +
		"Inline <input type=\"hidden\" name=\"csrf\"> and `<input>`"})
	d := page(t, s, s.SignIn(ann), "/w/"+w.Slug+"/d/"+card, 200)
	sb := d.Find(`[data-testid="section-body"]`)
	inputs := sb.Find("input")
	if inputs.Length() != 2 {
		h, _ := sb.Html()
		t.Fatalf("%d inputs in the section: %s", inputs.Length(), h)
	}
	var state []string
	inputs.Each(func(_ int, in *goquery.Selection) {
		typ, _ := in.Attr("type")
		_, disabled := in.Attr("disabled")
		_, checked := in.Attr("checked")
		label, _ := in.Attr("aria-label")
		if typ != "checkbox" || !disabled || len(in.Nodes[0].Attr) > 4 || label != map[bool]string{true: "Done", false: "To do"}[checked] {
			t.Fatalf("input %v", in.Nodes[0].Attr)
		}
		if li := strings.TrimSpace(in.Parent().Text()); checked {
			state = append(state, "[x] "+li)
		} else {
			state = append(state, "[ ] "+li)
		}
	})
	if strings.Join(state, ", ") != "[x] find the sword, [ ] slay the dragon" {
		t.Fatalf("task list %v", state)
	}
	if sb.Find("form").Length() != 0 || sb.Find("[onclick]").Length() != 0 || !strings.Contains(sb.Find("code").Text(), "<input>") {
		h, _ := sb.Html()
		t.Fatalf("section body %s", h)
	}
}

// TestMarkdownImagesStayOnThisServer: an image on another host would load for every reader
// and tell its host their addresses, so it is shown as a link; images on this server stay, and
// the page's CSP allows no other image host.
func TestMarkdownImagesStayOnThisServer(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	card := w.doc(t, "Aria", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Portrait", "body": "![tracker](https://evil.example/p.png) " +
		"![proto](//evil.example/q.png) ![slash](/\\evil.example/r.png) ![](http://evil.example/s.png) ![own](/static/app.css) ![rel](pic.png)"})
	res := s.Must(s.Do(apptest.Request{Method: "GET", Path: "/w/" + w.Slug + "/d/" + card, Client: s.SignIn(ann)}), 200)
	sb := doc(t, res).Find(`[data-testid="section-body"]`)
	var srcs []string
	sb.Find("img").Each(func(_ int, img *goquery.Selection) { srcs = append(srcs, img.AttrOr("src", "")) })
	if strings.Join(srcs, " ") != "/static/app.css pic.png" {
		h, _ := sb.Html()
		t.Fatalf("images %v: %s", srcs, h)
	}
	if a := sb.Find(`a[href="https://evil.example/p.png"]`); a.Text() != "tracker" {
		h, _ := sb.Html()
		t.Fatalf("foreign image not a link: %s", h)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self' data: blob:;") {
		t.Fatalf("card CSP %q", csp)
	}
}

// A section body's headings continue the page's outline: under the section's h2 its
// shallowest heading is an h3 whatever its number of #, and the steps below it are kept; a
// folder description's, under the page's h1, start at h2.
func TestMarkdownHeadingsFollowThePage(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Eldoria")
	card := w.doc(t, "Aria", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Biography", "body": "## Early life\n\n#### Childhood\n\n## Later"})
	folder := w.doc(t, "People", "folder", "", "")
	w.apply(t, folder, "", map[string]any{"op": "folder.setDescription", "description": "### Houses\n\n#### Great"})
	b := s.SignIn(ann)
	levels := func(sel *goquery.Selection) string {
		var got []string
		sel.Find("h1, h2, h3, h4, h5, h6").Each(func(_ int, h *goquery.Selection) { got = append(got, goquery.NodeName(h)+" "+h.Text()) })
		return strings.Join(got, ", ")
	}
	if got := levels(page(t, s, b, "/w/"+w.Slug+"/d/"+card, 200).Find(`[data-testid="section-body"]`)); got != "h3 Early life, h5 Childhood, h3 Later" {
		t.Errorf("section headings: %s", got)
	}
	if got := levels(page(t, s, b, "/w/"+w.Slug+"/d/"+folder, 200).Find(`[data-testid="folder-description"]`)); got != "h2 Houses, h3 Great" {
		t.Errorf("folder description headings: %s", got)
	}
}
