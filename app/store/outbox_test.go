package store_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/store"
)

// Rows older than the cutoff go, the newest row always stays (so the sequence never goes
// back), and a world stream resuming from a pruned change gets a reset.
func TestPruneOutboxKeepsTheNewestRowAndResetsStaleStreams(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	s.Document(ann, w, "Old", "card")
	var oldSeq, oldWorldSeq int64 // the change's outbox sequence, and its number in its world's stream
	if err := s.PB.DB().NewQuery("SELECT MAX(seq), MAX(worldSeq) FROM outbox").Row(&oldSeq, &oldWorldSeq); err != nil {
		t.Fatal(err)
	}
	// Age every row so far by eight days.
	if _, err := s.PB.DB().NewQuery("UPDATE outbox SET created = '2000-01-01 00:00:00.000Z'").Execute(); err != nil {
		t.Fatal(err)
	}
	before := s.Count("outbox", "")
	cutoff := time.Now().Add(-store.OutboxKeep)

	// Everything is old: all but the newest row goes.
	n, err := s.LW.Store.PruneOutbox(cutoff)
	if err != nil || n != int64(before-1) {
		t.Fatalf("pruned %d of %d rows (%v), want all but one", n, before, err)
	}
	if head, _ := s.LW.Store.OutboxHead(); head != oldSeq {
		t.Fatalf("head %d after pruning, want %d", head, oldSeq)
	}

	s.Document(ann, w, "New", "card")
	s.Document(ann, w, "Newer", "card")
	if n, err := s.LW.Store.PruneOutbox(cutoff); err != nil || n != 1 {
		t.Fatalf("second prune removed %d rows (%v), want the one old row", n, err)
	}
	if got := s.Count("outbox", ""); got != 2 {
		t.Fatalf("%d rows kept, want the two new ones", got)
	}
	oldest, err := s.LW.Store.OutboxOldest()
	if err != nil || oldest != oldSeq+1 {
		t.Fatalf("oldest %d (%v), want %d", oldest, err, oldSeq+1)
	}

	path := "/api/v1/worlds/" + w + "/events"
	// Resuming from the last pruned change still replays what is kept...
	st := s.StreamRequest(path, http.Header{"Authorization": {"Bearer " + ann.Key}, "Last-Event-ID": {itoa(oldWorldSeq)}}, nil)
	if ev := st.Expect(t, ""); ev.Event != "document.created" {
		t.Fatalf("resume at the oldest kept change: %+v", ev)
	}
	st.Close()
	// ...but from before it, changes are missing: the client must reload.
	st = s.StreamRequest(path, http.Header{"Authorization": {"Bearer " + ann.Key}, "Last-Event-ID": {itoa(oldWorldSeq - 1)}}, nil)
	if ev := st.Expect(t, ""); ev.Event != "reset" {
		t.Fatalf("resume from a pruned change: %+v, want reset", ev)
	}
	st.Close()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// An outbox follower that panics ends neither the process nor the others' feed.
func TestAPanickingFollowerLeavesTheOthersFed(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	s.LW.Store.OnOutbox(func([]store.OutboxRow) { panic("follower") })
	fed := make(chan string, 100)
	s.LW.Store.OnOutbox(func(rows []store.OutboxRow) {
		for _, r := range rows {
			fed <- r.Document
		}
	})
	seen := func(id string) {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for {
			select {
			case doc := <-fed:
				if doc == id {
					return
				}
			case <-deadline:
				t.Fatalf("the follower after the panicking one never saw %s", id)
			}
		}
	}
	seen(s.Document(ann, w, "First", "card"))
	seen(s.Document(ann, w, "Second", "card"))
}
