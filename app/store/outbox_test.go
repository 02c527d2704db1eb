package store_test

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/pocketbase/dbx"

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

// Creates that share a transaction count their world's events in memory and store the count
// once: with many at once in two worlds, and renames (world events written in transactions
// of their own) in between, each world's events are still numbered 1, 2, 3, … without a gap
// or a repeat, and the stored count is the last number.
func TestWorldEventsNumberedUnderGroupCommit(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	worlds := []string{s.World(ann, "Eldoria"), s.World(ann, "Vantor")}
	renamed := s.Document(ann, worlds[0], "Renamed", "card")
	var wg sync.WaitGroup
	for c := range 20 {
		wg.Go(func() {
			for i := range 15 {
				w := worlds[(c+i)%2]
				if _, err := s.LW.Store.CreateDocument(w, "", fmt.Sprintf("Doc %d-%d", c, i), "card", "", store.Actor{UserID: ann.ID}); err != nil {
					t.Error(err)
					return
				}
				if c == 0 {
					s.Must(s.Do(apptest.Request{Method: http.MethodPatch, Key: ann.Key, Path: "/api/v1/worlds/" + worlds[0] + "/documents/" + renamed, Body: map[string]any{"name": fmt.Sprint("Renamed ", i)}}), http.StatusOK)
				}
			}
		})
	}
	wg.Wait()
	for _, w := range worlds {
		var seqs []int64
		if err := s.PB.DB().NewQuery("SELECT worldSeq FROM outbox WHERE world = {:w} AND worldSeq > 0 ORDER BY worldSeq").Bind(dbx.Params{"w": w}).Column(&seqs); err != nil {
			t.Fatal(err)
		}
		for i, seq := range seqs {
			if seq != int64(i+1) {
				t.Fatalf("world %s: event %d is numbered %d (%v)", w, i+1, seq, seqs)
			}
		}
		var count int64
		if err := s.PB.DB().NewQuery("SELECT seq FROM world_event_seqs WHERE world = {:w}").Bind(dbx.Params{"w": w}).Row(&count); err != nil {
			t.Fatal(err)
		}
		if count != int64(len(seqs)) || len(seqs) < 150 {
			t.Fatalf("world %s: %d events, count %d", w, len(seqs), count)
		}
	}
}
