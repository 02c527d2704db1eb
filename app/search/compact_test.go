package search

import (
	"fmt"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// compact merges the index into one segment in the background; Close waits for it.
func TestCompactMergesIntoOneSegment(t *testing.T) {
	ix, err := Open(t.TempDir() + "/index.bleve")
	if err != nil {
		t.Fatal(err)
	}
	code, err := ix.allocCode("world", "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 { // five batches, five segments
		b := ix.idx.NewBatch()
		for j := range 50 {
			id := fmt.Sprintf("d%d_%d", i, j)
			if err := b.Index(id+"/main", entry{DocID: id, Name: code + sep + id, Text: code + sep + "dragon " + id}); err != nil {
				t.Fatal(err)
			}
		}
		if err := ix.idx.Batch(b); err != nil {
			t.Fatal(err)
		}
	}
	adv, err := ix.idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	stats := func() (segments, forced uint64) {
		m := adv.(*scorch.Scorch).StatsMap()
		return m["TotFileSegmentsAtRoot"].(uint64) + m["TotMemorySegmentsAtRoot"].(uint64), m["TotFileMergeForceOpsCompleted"].(uint64)
	}
	if n, _ := stats(); n < 2 {
		t.Fatalf("%d segments before compacting, want several", n)
	}
	ix.compact()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		n, forced := stats()
		if n == 1 && forced == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after compacting: %d segments, %d forced merges", n, forced)
		}
	}
	if n, err := ix.DocCount(); err != nil || n != 250 {
		t.Fatalf("%d entries after compacting (%v), want 250", n, err)
	}
	ix.compact() // a second one, still running when the index closes
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
}
