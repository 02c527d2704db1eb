package live_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/live"
)

// bigHistory gives a new card of the fixture's world n+2 versions: a section, n writes of
// about 1 MB of ops each (the card itself stays small), then a marker property. It waits
// for the search indexer to catch up, so that nothing else runs while a test measures, and
// returns the card's id and version.
func bigHistory(t *testing.T, f fixture, n int) (string, int) {
	t.Helper()
	card := f.s.Document(f.ann, f.w, "Aerendyl", "card")
	f.write(t, card, map[string]any{"ops": []any{map[string]any{"op": "card.addSection", "title": "Life", "body": "Born."}}})
	for i := range n {
		f.write(t, card, apptest.BigCardWrite(i))
	}
	v := f.write(t, card, map[string]any{"ops": []any{map[string]any{"op": "card.setProperty", "key": "marker", "value": "zanzibar"}}})
	f.s.WaitSearchable(f.ann.Key, f.w, "zanzibar")
	return card, v
}

// opLogBytes returns the size of a document's op-log entries after version since.
func (f fixture) opLogBytes(t *testing.T, doc string, since int) int64 {
	t.Helper()
	var n int64
	if err := f.s.PB.DB().NewQuery(fmt.Sprintf("SELECT COALESCE(SUM(octet_length(ops)), 0) FROM document_ops WHERE document = '%s' AND version > %d", doc, since)).Row(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// resume opens the document stream at path with Last-Event-ID: from.
func (f fixture) resume(path string, from int) *apptest.Stream {
	return f.s.StreamRequest(path, http.Header{"Authorization": {"Bearer " + f.ann.Key}, "Last-Event-ID": {strconv.Itoa(from)}}, nil)
}

// A resume whose missing versions hold more bytes than the replay budget gets a snapshot
// instead, and costs the server about that snapshot, not the history (about 12 MB here, all
// of it within the 1,000 versions a resume may replay and within what the op log keeps); one within the budget is replayed
// version by version, and live events follow it with no gap and no duplicate.
func TestResumeReplayIsBoundedInBytes(t *testing.T) {
	f := setup(t)
	card, v := bigHistory(t, f, 12)
	path := f.docPath(card) + "/events"
	if all, last5 := f.opLogBytes(t, card, 0), f.opLogBytes(t, card, v-5); all <= live.MaxReplayBytes || last5 > live.MaxReplayBytes {
		t.Fatalf("the history (%d bytes, %d in the last five versions) must straddle the replay budget", all, last5)
	}

	var st *apptest.Stream
	var first apptest.Event
	alloc := apptest.Allocated(func() {
		st = f.resume(path, 0)
		first = st.Expect(t, "")
		st.Expect(t, "presence")
	})
	st.Close()
	if first.Event != "snapshot" || first.ID != strconv.Itoa(v) {
		t.Fatalf("resume from 0 over ~12 MB of history: first event %s id %s, want a snapshot at %d", first.Event, first.ID, v)
	}
	if alloc > 4<<20 {
		t.Fatalf("resume from 0 over ~12 MB of history allocated %.1f MiB, want under 4 MiB (the card is small)", float64(alloc)/(1<<20))
	}

	// Five versions back (about 5 MB) is within the budget: replayed from the op log.
	st = f.resume(path, v-5)
	for want := v - 4; want <= v; want++ {
		if ev := st.Expect(t, ""); ev.Event != "ops" || ev.ID != strconv.Itoa(want) {
			t.Fatalf("replay: got %s %s, want ops %d", ev.Event, ev.ID, want)
		}
	}
	st.Expect(t, "presence")
	f.write(t, card, map[string]any{"ops": []any{map[string]any{"op": "card.setProperty", "key": "after", "value": "live"}}})
	if ev := st.Expect(t, "ops"); ev.ID != strconv.Itoa(v+1) {
		t.Fatalf("live after replay: %s %s, want %d", ev.Event, ev.ID, v+1)
	}
}
