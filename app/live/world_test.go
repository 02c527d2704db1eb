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
