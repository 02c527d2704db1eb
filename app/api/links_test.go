package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

type linksResponse struct {
	Outgoing struct {
		Items []struct {
			DocumentID, Name, DocumentType, Status, Context string
			Secret                                          bool
		}
		TotalItems int
	}
	Incoming struct {
		Items []struct {
			DocumentID, Name, Context string
			Secret                    bool
		}
		TotalItems int
	}
}

func getLinks(t *testing.T, s *apptest.Server, key, world, doc, query string) linksResponse {
	t.Helper()
	var l linksResponse
	s.Must(s.Get(key, "/api/v1/worlds/"+world+"/documents/"+doc+"/links"+query), http.StatusOK).JSON(t, &l)
	return l
}

func sectionBody(t *testing.T, s *apptest.Server, key, world, doc, query string) string {
	t.Helper()
	var d struct {
		Content struct {
			Data struct{ Sections []struct{ Body string } }
		}
	}
	s.Must(s.Get(key, "/api/v1/worlds/"+world+"/documents/"+doc+query), http.StatusOK).JSON(t, &d)
	if len(d.Content.Data.Sections) == 0 {
		return ""
	}
	return d.Content.Data.Sections[0].Body
}

// TestLinksByIDSurviveRenameAndMove: a link written by name is stored by id, so the target's
// rename and move keep it, and every place shows the new name.
func TestLinksByIDSurviveRenameAndMove(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	vharn := s.Document(ann, w, "Vharn", "card")
	ossa := s.Document(ann, w, "Ossa", "card")
	folder := s.Document(ann, w, "Smiths", "folder")
	base := "/api/v1/worlds/" + w + "/documents/"
	s.Must(s.Post(ann.Key, base+ossa+"/content", ops(map[string]any{"op": "card.addSection", "title": "Life",
		"body": "Born in the hills. Apprenticed to [[vharn]] in the north, then to [[Nobody|someone]]."})), http.StatusOK)

	if got, want := sectionBody(t, s, ann.Key, w, ossa, ""), "Apprenticed to [[doc:"+vharn+"]] in the north, then to [[Nobody|someone]]."; !strings.HasSuffix(got, want) {
		t.Fatalf("stored body = %q, want it to end %q", got, want)
	}
	s.Must(s.Do(patch(ann.Key, base+vharn, map[string]any{"name": "Vharn the Smith", "parentId": folder})), http.StatusOK)

	l := getLinks(t, s, ann.Key, w, ossa, "")
	if len(l.Outgoing.Items) != 2 || l.Outgoing.Items[0].DocumentID != vharn || l.Outgoing.Items[0].Name != "Vharn the Smith" || l.Outgoing.Items[0].Status != "ok" ||
		l.Outgoing.Items[1].Status != "unresolved" || l.Outgoing.Items[1].Name != "Nobody" {
		t.Fatalf("outgoing = %+v", l.Outgoing)
	}
	if want := "Apprenticed to Vharn the Smith in the north, then to someone."; l.Outgoing.Items[0].Context != want {
		t.Fatalf("context = %q, want %q", l.Outgoing.Items[0].Context, want)
	}
	in := getLinks(t, s, ann.Key, w, vharn, "").Incoming
	if in.TotalItems != 1 || in.Items[0].DocumentID != ossa || !strings.Contains(in.Items[0].Context, "Vharn the Smith") {
		t.Fatalf("incoming = %+v", in)
	}

	// The page shows the current name, linking to the target.
	page := string(s.Must(s.Do(apptest.Request{Method: "GET", Path: "/w/" + worldSlug(t, s, ann, w) + "/d/" + ossa, Client: s.SignIn(ann)}), http.StatusOK).Body)
	if !strings.Contains(page, `class="doclink" href="/w/`) || !strings.Contains(page, ">Vharn the Smith</a>") || !strings.Contains(page, "doclink-unresolved") {
		t.Fatalf("page does not show the link by its current name:\n%s", excerpt(page, "Apprenticed"))
	}

	// A deleted target: the link shows as broken, never as an error.
	s.Must(s.Do(del(ann.Key, base+vharn)), http.StatusNoContent)
	l = getLinks(t, s, ann.Key, w, ossa, "")
	if l.Outgoing.Items[0].Status != "broken" || l.Outgoing.Items[0].DocumentID != vharn {
		t.Fatalf("outgoing after delete = %+v", l.Outgoing.Items[0])
	}
	page = string(s.Must(s.Do(apptest.Request{Method: "GET", Path: "/w/" + worldSlug(t, s, ann, w) + "/d/" + ossa, Client: s.SignIn(ann)}), http.StatusOK).Body)
	if !strings.Contains(page, "doclink-broken") {
		t.Fatalf("page does not show the broken link:\n%s", excerpt(page, "Apprenticed"))
	}
}

// TestBacklinksFollowWritesAndEras: a backlink appears and disappears with the write that adds
// or removes the link, in the era written only.
func TestBacklinksFollowWritesAndEras(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	vharn := s.Document(ann, w, "Vharn", "card")
	ossa := s.Document(ann, w, "Ossa", "folder")
	base := "/api/v1/worlds/" + w + "/documents/"
	incoming := func(query string) int { return getLinks(t, s, ann.Key, w, vharn, query).Incoming.TotalItems }

	s.Must(s.Post(ann.Key, base+ossa+"/content", ops(map[string]any{"op": "folder.setDescription", "description": "Home of [[doc:" + vharn + "|the smith]]."})), http.StatusOK)
	if n := incoming(""); n != 1 {
		t.Fatalf("after adding the link: %d backlinks, want 1", n)
	}
	var era struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/eras", map[string]any{"name": "Second Age"}), http.StatusCreated).JSON(t, &era)
	if n := incoming("?era=" + era.ID); n != 1 {
		t.Fatalf("the era inherits the link: %d backlinks, want 1", n)
	}
	// Removed in the era: gone there, still on the main line.
	s.Must(s.Post(ann.Key, base+ossa+"/content?era="+era.ID, ops(map[string]any{"op": "folder.setDescription", "description": "Home of no one."})), http.StatusOK)
	if n := incoming("?era=" + era.ID); n != 0 {
		t.Fatalf("after removing the link in the era: %d backlinks there, want 0", n)
	}
	if n := incoming(""); n != 1 {
		t.Fatalf("after removing the link in the era: %d backlinks on the main line, want 1", n)
	}
	// A document of the era links: seen in the era only.
	var kell struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/documents?era="+era.ID, map[string]any{"name": "Kell", "documentType": "timeline"}), http.StatusCreated).JSON(t, &kell)
	s.Must(s.Post(ann.Key, base+kell.ID+"/content?era="+era.ID, ops(map[string]any{"op": "timeline.addEvent", "label": "Forging", "dateMs": 0, "description": "[[Vharn]] forges the blade."})), http.StatusOK)
	in := getLinks(t, s, ann.Key, w, vharn, "?era="+era.ID).Incoming
	if in.TotalItems != 1 || in.Items[0].DocumentID != kell.ID || in.Items[0].Context != "Vharn forges the blade." {
		t.Fatalf("era backlinks = %+v", in)
	}
	if n := incoming(""); n != 1 {
		t.Fatalf("main line backlinks = %d, want 1 (Ossa)", n)
	}
	// Removed on the main line: gone there.
	s.Must(s.Post(ann.Key, base+ossa+"/content", ops(map[string]any{"op": "folder.setDescription", "description": "Empty."})), http.StatusOK)
	if n := incoming(""); n != 0 {
		t.Fatalf("after removing the link on the main line: %d backlinks, want 0", n)
	}
	// A deleted source takes its links with it.
	s.Must(s.Do(del(ann.Key, base+kell.ID+"?era="+era.ID)), http.StatusNoContent)
	if n := incoming("?era=" + era.ID); n != 0 {
		t.Fatalf("after deleting the linking document: %d backlinks, want 0", n)
	}
}

// TestLinksByAmbiguousName: a name two documents have stays a link by name, unresolved until
// one of them goes; backlinks by name follow.
func TestLinksByAmbiguousName(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	twin1 := s.Document(ann, w, "Twin", "card")
	twin2 := s.Document(ann, w, "Twin", "card")
	src := s.Document(ann, w, "Story", "card")
	base := "/api/v1/worlds/" + w + "/documents/"
	s.Must(s.Post(ann.Key, base+src+"/content", ops(map[string]any{"op": "card.addSection", "title": "T", "body": "Meets [[Twin]]."})), http.StatusOK)
	if got := sectionBody(t, s, ann.Key, w, src, ""); got != "Meets [[Twin]]." {
		t.Fatalf("an ambiguous name was resolved: %q", got)
	}
	if l := getLinks(t, s, ann.Key, w, src, ""); l.Outgoing.Items[0].Status != "unresolved" {
		t.Fatalf("outgoing = %+v", l.Outgoing)
	}
	s.Must(s.Do(del(ann.Key, base+twin2)), http.StatusNoContent)
	if l := getLinks(t, s, ann.Key, w, src, ""); l.Outgoing.Items[0].Status != "ok" || l.Outgoing.Items[0].DocumentID != twin1 {
		t.Fatalf("outgoing once the name is unique = %+v", l.Outgoing)
	}
	if in := getLinks(t, s, ann.Key, w, twin1, "").Incoming; in.TotalItems != 1 || in.Items[0].DocumentID != src {
		t.Fatalf("incoming by name = %+v", in)
	}
}

// TestLinksFromSecretSections: a link that only a secret section holds is for editors: a
// viewer sees neither the backlink nor its sentence.
func TestLinksFromSecretSections(t *testing.T) {
	f := newSecretFixture(t)
	target := f.s.Document(f.editor, f.world, "Camlann", "card")
	f.write(t, map[string]any{"op": "card.updateSection", "id": f.secret, "body": "Dies at [[Camlann]]: zephyrword."})
	ed := getLinks(t, f.s, f.editor.Key, f.world, target, "").Incoming
	if ed.TotalItems != 1 || !ed.Items[0].Secret || !strings.Contains(ed.Items[0].Context, "zephyrword") {
		t.Fatalf("editor's incoming = %+v", ed)
	}
	if vi := getLinks(t, f.s, f.viewer.Key, f.world, target, "").Incoming; vi.TotalItems != 0 || len(vi.Items) != 0 {
		t.Fatalf("viewer's incoming = %+v", vi)
	}
	if vi := getLinks(t, f.s, f.viewer.Key, f.world, f.card, "").Outgoing; vi.TotalItems != 0 {
		t.Fatalf("viewer's outgoing = %+v", vi)
	}
	// Made public, the same link is the viewer's too.
	f.write(t, map[string]any{"op": "card.setSectionSecret", "id": f.secret, "secret": false})
	if vi := getLinks(t, f.s, f.viewer.Key, f.world, target, "").Incoming; vi.TotalItems != 1 || vi.Items[0].Secret {
		t.Fatalf("viewer's incoming once public = %+v", vi)
	}
}

func TestLinksPaging(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	target := s.Document(ann, w, "Hub", "card")
	for _, name := range []string{"C", "A", "B"} {
		d := s.Document(ann, w, name, "folder")
		s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/documents/"+d+"/content", ops(map[string]any{"op": "folder.setDescription", "description": "To [[Hub]]."})), http.StatusOK)
	}
	l := getLinks(t, s, ann.Key, w, target, "?perPage=2&page=2")
	if l.Incoming.TotalItems != 3 || len(l.Incoming.Items) != 1 || l.Incoming.Items[0].Name != "C" {
		t.Fatalf("page 2 = %+v", l.Incoming)
	}
	if code := s.Get(ann.Key, "/api/v1/worlds/"+w+"/documents/"+target+"/links?perPage=0").ErrorCode(); code != "invalid_field" {
		t.Fatalf("perPage=0: %s", code)
	}
	if l := getLinks(t, s, ann.Key, w, target, "?page=999999999999"); len(l.Outgoing.Items) != 0 || len(l.Incoming.Items) != 0 {
		t.Fatalf("a page past the end = %+v", l)
	}
}

func excerpt(page, near string) string {
	i := strings.Index(page, near)
	if i < 0 {
		return "(" + near + " not on the page)"
	}
	return page[max(0, i-200):min(len(page), i+400)]
}

func worldSlug(t *testing.T, s *apptest.Server, u apptest.User, world string) string {
	t.Helper()
	var w struct{ Slug string }
	s.Must(s.Get(u.Key, "/api/v1/worlds/"+world), http.StatusOK).JSON(t, &w)
	return w.Slug
}
