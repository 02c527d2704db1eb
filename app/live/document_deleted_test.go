package live_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/live"
)

// TestDeleteEndsDocumentStreams: deleting a document tells every stream that no longer sees
// it, with a `deleted` event, and closes it; streams of eras that still see it go on.
func TestDeleteEndsDocumentStreams(t *testing.T) {
	f := setup(t)
	f.write(t, f.tl, addEvent("one", 1))
	era := func(name, parent string) string {
		var e struct{ ID string }
		f.s.Must(f.s.Post(f.ann.Key, "/api/v1/worlds/"+f.w+"/eras", map[string]any{"name": name, "parentId": parent}), http.StatusCreated).JSON(t, &e)
		return e.ID
	}
	age := era("Age", "")
	later := era("Later Age", age) // descends from age
	other := era("Other Age", "")
	open := func(era string) *apptest.Stream {
		path := f.docPath(f.tl) + "/events"
		if era != "" {
			path += "?era=" + era
		}
		st := f.s.Stream(f.ann.Key, path)
		st.Expect(t, "presence")
		return st
	}
	expectDeleted := func(how string, st *apptest.Stream, eraID string) {
		t.Helper()
		ev, err := st.Next(wait)
		if err != nil {
			t.Fatalf("%s: no deleted event: %v", how, err)
		}
		got := decode[live.DeletedEvent](t, ev)
		if ev.Event != "deleted" || ev.ID != "" || got.ID != f.tl || got.EraID != eraID {
			t.Fatalf("%s: got %s id=%q %s, want a deleted event of %s in era %q", how, ev.Event, ev.ID, ev.Data, f.tl, eraID)
		}
		if err := st.Closed(time.Second); err != nil {
			t.Fatalf("%s: %v", how, err)
		}
	}
	expectOpen := func(how string, st *apptest.Stream) {
		t.Helper()
		if ev, err := st.Next(300 * time.Millisecond); err == nil {
			t.Fatalf("%s: unexpected event %s %s", how, ev.Event, ev.Data)
		}
	}

	// A delete in an era ends the streams of that era and of the eras descending from it.
	mainSt, ageSt, laterSt, otherSt := open(""), open(age), open(later), open(other)
	f.s.Must(f.s.Do(apptest.Request{Method: http.MethodDelete, Path: f.docPath(f.tl) + "?era=" + age, Key: f.ann.Key}), http.StatusNoContent)
	expectDeleted("era delete, that era", ageSt, age)
	expectDeleted("era delete, a descendant era", laterSt, age)
	expectOpen("era delete, the main line", mainSt)
	expectOpen("era delete, a sibling era", otherSt)
	f.write(t, f.tl, addEvent("two", 2))
	mainSt.Expect(t, "ops")
	otherSt.Expect(t, "ops")
	if st := f.s.Stream(f.ann.Key, f.docPath(f.tl)+"/events?era="+later); st.Status != http.StatusNotFound {
		t.Fatalf("reconnecting in a descendant era: %d, want 404", st.Status)
	}

	// A main-line delete ends every stream of the document.
	f.s.Must(f.s.Do(apptest.Request{Method: http.MethodDelete, Path: f.docPath(f.tl), Key: f.ann.Key}), http.StatusNoContent)
	expectDeleted("main-line delete, main line", mainSt, "")
	expectDeleted("main-line delete, another era", otherSt, "")
	if st := f.s.Stream(f.ann.Key, f.docPath(f.tl)+"/events"); st.Status != http.StatusNotFound {
		t.Fatalf("reconnecting: %d, want 404", st.Status)
	}
	for deadline := time.Now().Add(time.Second); f.s.LW.Live.Connections() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections left open", f.s.LW.Live.Connections())
		}
	}
}
