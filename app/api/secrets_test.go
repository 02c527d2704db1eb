package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
)

// secretFixture is a world with an owner, an editor and a viewer, and a card with a public
// section ("Born in Orkney.") and a secret one (holding the word "zephyrword").
type secretFixture struct {
	s              *apptest.Server
	editor, viewer apptest.User
	world, card    string
	public, secret string // section ids
}

func newSecretFixture(t *testing.T) secretFixture {
	t.Helper()
	s := start(t)
	ann := s.NewUser("Ann")
	ed := s.NewUser("Ed")
	vi := s.NewUser("Vi")
	w := s.World(ann, "Eldoria")
	s.AddMember(ann, w, ed, "editor")
	s.AddMember(ann, w, vi, "viewer")
	card := s.Document(ann, w, "Mordred", "card")
	var res struct{ Created []struct{ ID string } }
	s.Must(s.Post(ed.Key, "/api/v1/worlds/"+w+"/documents/"+card+"/content", ops(
		map[string]any{"op": "card.addSection", "title": "Life", "body": "Born in Orkney."},
		map[string]any{"op": "card.addSection", "title": "Plot", "body": "Betrays the king at Camlann: zephyrword.", "secret": true},
	)), http.StatusOK).JSON(t, &res)
	return secretFixture{s: s, editor: ed, viewer: vi, world: w, card: card, public: res.Created[0].ID, secret: res.Created[1].ID}
}

func (f secretFixture) docPath() string { return "/api/v1/worlds/" + f.world + "/documents/" + f.card }

func (f secretFixture) write(t *testing.T, list ...map[string]any) {
	t.Helper()
	f.s.Must(f.s.Post(f.editor.Key, f.docPath()+"/content", ops(list...)), http.StatusOK)
}

// TestSecretSectionRead: the single-document read gives a viewer the card without its secret
// section (in data and text); the editor sees it, marked secret.
func TestSecretSectionRead(t *testing.T) {
	f := newSecretFixture(t)
	ed := string(f.s.Must(f.s.Get(f.editor.Key, f.docPath()), http.StatusOK).Body)
	if !strings.Contains(ed, "zephyrword") || !strings.Contains(ed, `"secret":true`) || !strings.Contains(ed, "Orkney") {
		t.Fatalf("editor read: %s", ed)
	}
	var doc struct {
		Content struct {
			Data struct {
				Sections []struct{ ID, Title, Body string }
			}
			Text string
		}
	}
	f.s.Must(f.s.Get(f.viewer.Key, f.docPath()), http.StatusOK).JSON(t, &doc)
	if len(doc.Content.Data.Sections) != 1 || doc.Content.Data.Sections[0].ID != f.public {
		t.Fatalf("viewer sections: %+v", doc.Content.Data.Sections)
	}
	vi := string(f.s.Get(f.viewer.Key, f.docPath()).Body)
	if strings.Contains(vi, "zephyrword") || strings.Contains(vi, "Plot") || strings.Contains(vi, f.secret) || !strings.Contains(doc.Content.Text, "Orkney") {
		t.Fatalf("viewer read shows the secret: %s", vi)
	}
}

// TestSecretSectionOpLog: the op log of a card is refused to viewers (its entries can hold
// secret text); editors read it; a viewer still reads a timeline's.
func TestSecretSectionOpLog(t *testing.T) {
	f := newSecretFixture(t)
	if body := string(f.s.Must(f.s.Get(f.editor.Key, f.docPath()+"/ops"), http.StatusOK).Body); !strings.Contains(body, "zephyrword") {
		t.Fatalf("editor op log: %s", body)
	}
	res := f.s.Get(f.viewer.Key, f.docPath()+"/ops")
	if res.Status != http.StatusForbidden || res.ErrorCode() != "forbidden" || strings.Contains(string(res.Body), "zephyrword") {
		t.Fatalf("viewer op log: %d %s", res.Status, res.Body)
	}
	tl := f.s.Document(f.editor, f.world, "History", "timeline")
	f.s.Must(f.s.Get(f.viewer.Key, "/api/v1/worlds/"+f.world+"/documents/"+tl+"/ops"), http.StatusOK)
}

// TestSecretSectionStream: a viewer's event stream never carries secret text: its snapshot
// is the public card, a write to the secret section reaches it as a public snapshot, a write
// that touches nothing secret as ops, marking a section secret drops it from the viewer's
// card, and a resume gets a public snapshot, not the op log. The editor's stream, opened
// alongside, carries every write as ops.
func TestSecretSectionStream(t *testing.T) {
	f := newSecretFixture(t)
	edStream := f.s.Stream(f.editor.Key, f.docPath()+"/events")
	if ev := edStream.Expect(t, "snapshot"); !strings.Contains(ev.Data, "zephyrword") {
		t.Fatalf("editor snapshot: %s", ev.Data)
	}
	viStream := f.s.Stream(f.viewer.Key, f.docPath()+"/events")
	ev := viStream.Expect(t, "snapshot")
	if strings.Contains(ev.Data, "zephyrword") || strings.Contains(ev.Data, f.secret) || !strings.Contains(ev.Data, "Orkney") {
		t.Fatalf("viewer snapshot: %s", ev.Data)
	}
	// Presence spans both streams: the viewer sees the editor watching.
	for ev := viStream.Expect(t, "presence"); !strings.Contains(ev.Data, `"Ed"`); ev = viStream.Expect(t, "presence") {
	}

	// A write to the secret section: ops for the editor, a public snapshot for the viewer.
	f.write(t, map[string]any{"op": "card.updateSection", "id": f.secret, "body": "The quixoticplan."})
	if ev := edStream.Expect(t, "ops"); !strings.Contains(ev.Data, "quixoticplan") || ev.ID != "2" {
		t.Fatalf("editor ops: %s %s", ev.ID, ev.Data)
	}
	ev = viStream.Expect(t, "")
	for ev.Event == "presence" {
		ev = viStream.Expect(t, "")
	}
	if ev.Event != "snapshot" || ev.ID != "2" || strings.Contains(ev.Data, "quixoticplan") || strings.Contains(ev.Data, f.secret) || !strings.Contains(ev.Data, "Orkney") {
		t.Fatalf("viewer event for a secret write: %s %s %s", ev.Event, ev.ID, ev.Data)
	}

	// A write that touches nothing secret reaches the viewer as ops.
	f.write(t, map[string]any{"op": "card.updateSection", "id": f.public, "body": "Born in Orkney, to Morgause."})
	edStream.Expect(t, "ops")
	if ev := viStream.Expect(t, "ops"); !strings.Contains(ev.Data, "Morgause") || ev.ID != "3" {
		t.Fatalf("viewer ops: %s %s", ev.ID, ev.Data)
	}

	// Marking the public section secret: the viewer's card loses it.
	f.write(t, map[string]any{"op": "card.setSectionSecret", "id": f.public, "secret": true})
	if ev := edStream.Expect(t, "ops"); !strings.Contains(ev.Data, "card.setSectionSecret") {
		t.Fatalf("editor ops: %s", ev.Data)
	}
	ev = viStream.Expect(t, "snapshot")
	if ev.ID != "4" || strings.Contains(ev.Data, "Morgause") || strings.Contains(ev.Data, f.public) || strings.Contains(ev.Data, "setSectionSecret") {
		t.Fatalf("viewer after marking secret: %s %s", ev.ID, ev.Data)
	}

	// A viewer resuming from an old version gets a public snapshot, never the op log.
	h := http.Header{"Authorization": {"Bearer " + f.viewer.Key}, "Last-Event-ID": {"1"}}
	resumed := f.s.StreamRequest(f.docPath()+"/events", h, nil)
	ev = resumed.Expect(t, "")
	if ev.Event != "snapshot" || ev.ID != "4" || strings.Contains(ev.Data, "zephyrword") || strings.Contains(ev.Data, "quixoticplan") || strings.Contains(ev.Data, "Morgause") {
		t.Fatalf("viewer resume: %s %s %s", ev.Event, ev.ID, ev.Data)
	}
	// An editor resuming gets the op log, secret text and all.
	h = http.Header{"Authorization": {"Bearer " + f.editor.Key}, "Last-Event-ID": {"1"}}
	edResumed := f.s.StreamRequest(f.docPath()+"/events", h, nil)
	if ev := edResumed.Expect(t, ""); ev.Event != "ops" || !strings.Contains(ev.Data, "quixoticplan") {
		t.Fatalf("editor resume: %s %s", ev.Event, ev.Data)
	}
}

// TestSecretSectionSearch: a viewer's search neither matches nor shows secret text; the
// editor's finds it, with a snippet.
func TestSecretSectionSearch(t *testing.T) {
	f := newSecretFixture(t)
	f.s.WaitSearchable(f.editor.Key, f.world, "zephyrword")
	type hits struct {
		TotalItems int
		Items      []struct{ ID, Snippet string }
	}
	search := func(key, q string) hits {
		var h hits
		f.s.Must(f.s.Get(key, "/api/v1/worlds/"+f.world+"/search?q="+q), http.StatusOK).JSON(t, &h)
		return h
	}
	for _, q := range []string{"zephyrword", "zephyrwor", "zephyrwords", "Camlann", "%22the+king%22"} {
		if h := search(f.editor.Key, q); h.TotalItems != 1 || h.Items[0].ID != f.card {
			t.Fatalf("editor search %s: %+v", q, h)
		}
		if h := search(f.viewer.Key, q); h.TotalItems != 0 {
			t.Fatalf("viewer search %s matched: %+v", q, h)
		}
	}
	if h := search(f.editor.Key, "zephyrword"); !strings.Contains(h.Items[0].Snippet, "<mark>zephyrword</mark>") {
		t.Fatalf("editor snippet: %+v", h)
	}
	// A word in the public text: the viewer finds the card, and its snippet has no secret.
	h := search(f.viewer.Key, "Orkney")
	if h.TotalItems != 1 || !strings.Contains(h.Items[0].Snippet, "<mark>Orkney</mark>") || strings.Contains(h.Items[0].Snippet, "Camlann") {
		t.Fatalf("viewer public search: %+v", h)
	}
	// Unmarking the section makes it the viewer's too.
	f.write(t, map[string]any{"op": "card.setSectionSecret", "id": f.secret, "secret": false})
	f.s.WaitSearchable(f.viewer.Key, f.world, "zephyrword")
	// And marking it again hides it once more.
	f.write(t, map[string]any{"op": "card.setSectionSecret", "id": f.secret, "secret": true},
		map[string]any{"op": "card.setProperty", "key": "marker", "value": "m1"})
	f.s.WaitSearchable(f.editor.Key, f.world, "m1")
	deadline := time.Now().Add(10 * time.Second)
	for search(f.viewer.Key, "zephyrword").TotalItems != 0 {
		if time.Now().After(deadline) {
			t.Fatal("viewer still finds the re-hidden section")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
