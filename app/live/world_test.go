package live_test

import (
	"net/http"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/live"
)

// TestWorldStreamDeleteCarriesMetadata checks that a main-line delete, whose document row is
// gone by the time the event is built, still tells watchers what was deleted: live, and
// when a client resuming with Last-Event-ID gets it replayed.
func TestWorldStreamDeleteCarriesMetadata(t *testing.T) {
	f := setup(t)
	folder := f.s.Document(f.ann, f.w, "People", "folder")
	var card struct{ ID string }
	f.s.Must(f.s.Post(f.ann.Key, "/api/v1/worlds/"+f.w+"/documents",
		map[string]any{"name": "Aerendyl", "documentType": "card", "parentId": folder}), http.StatusCreated).JSON(t, &card)

	st := f.s.Stream(f.ann.Key, "/api/v1/worlds/"+f.w+"/events")
	ready := st.Expect(t, "ready")
	f.s.Must(f.s.Do(apptest.Request{Method: http.MethodDelete, Path: f.docPath(card.ID), Key: f.ann.Key}), http.StatusNoContent)

	want := live.DocumentMeta{ID: card.ID, Name: "Aerendyl", DocumentType: "card", ParentID: folder, EraID: ""}
	check := func(how string, ev apptest.Event) {
		t.Helper()
		we := decode[live.WorldEvent](t, ev)
		if ev.Event != "document.deleted" || we.Kind != "document.deleted" || we.EraID != "" || we.Document == nil || *we.Document != want {
			t.Fatalf("%s: delete event %s %s, want document %+v", how, ev.Event, ev.Data, want)
		}
	}
	check("live", st.Expect(t, ""))

	replay := f.s.StreamRequest("/api/v1/worlds/"+f.w+"/events",
		http.Header{"Authorization": {"Bearer " + f.ann.Key}, "Last-Event-ID": {ready.ID}}, nil)
	check("replayed", replay.Expect(t, ""))
}

// TestWorldStreamIDsCountThisWorldOnly: a world stream's event ids number that world's own
// events, so they neither reveal nor depend on other worlds' writes, and resuming from one
// still replays exactly what was missed.
func TestWorldStreamIDsCountThisWorldOnly(t *testing.T) {
	f := setup(t)
	path := "/api/v1/worlds/" + f.w + "/events"
	st := f.s.Stream(f.ann.Key, path)
	ready := st.Expect(t, "ready")
	// setup created one document: the world's first event.
	if ready.ID != "1" || decode[map[string]int64](t, ready)["seq"] != 1 {
		t.Fatalf("ready %+v, want id 1", ready)
	}

	// Another user's busy world moves nothing here.
	bob := f.s.NewUser("Bob")
	other := f.s.World(bob, "Outsider World")
	for i := 0; i < 5; i++ {
		f.s.Document(bob, other, "Elsewhere", "card")
	}
	f.s.Document(f.ann, f.w, "Aerendyl", "card")
	ev := st.Expect(t, "document.created")
	if ev.ID != "2" || decode[live.WorldEvent](t, ev).Seq != 2 {
		t.Fatalf("next event %+v, want id 2", ev)
	}
	f.s.Document(f.ann, f.w, "Brannoc", "card")
	st.Expect(t, "document.created")
	st.Close()

	// A fresh connection's head is this world's count too.
	fresh := f.s.Stream(f.ann.Key, path)
	if ready := fresh.Expect(t, "ready"); ready.ID != "3" {
		t.Fatalf("fresh ready %+v, want id 3", ready)
	}
	fresh.Close()

	// Resuming from 1 replays events 2 and 3, in order, and nothing of the other world.
	replay := f.s.StreamRequest(path+"?lastEventId=1", http.Header{"Authorization": {"Bearer " + f.ann.Key}}, nil)
	for _, want := range []string{"2", "3"} {
		if ev := replay.Expect(t, "document.created"); ev.ID != want {
			t.Fatalf("replayed %+v, want id %s", ev, want)
		}
	}
	replay.Close()
	// Ahead of this world's count (say, an id from before the cursor was per world): reset.
	ahead := f.s.StreamRequest(path+"?lastEventId=9", http.Header{"Authorization": {"Bearer " + f.ann.Key}}, nil)
	if ev := ahead.Expect(t, "reset"); ev.ID != "3" {
		t.Fatalf("ahead %+v, want reset at 3", ev)
	}
}
