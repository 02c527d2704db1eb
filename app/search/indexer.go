package search

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/loreweave/loreweave/app/store"
)

// Indexer keeps the index in step with the database.
type Indexer struct {
	Index *Index
	Store *store.Store
	// PollInterval bounds how late changes made by other processes are seen.
	PollInterval time.Duration
	// Gather is how long the indexer lets changes pile up after indexing a batch, so that
	// a stream of writes becomes a few larger batches instead of one per commit (Bleve merges
	// small segments at a cost). A write made while the indexer idles is indexed at once; one made
	// during a batch waits at most Gather plus the batch, well within the one-second promise.
	Gather time.Duration

	cancel context.CancelFunc
	done   chan struct{}
}

// Start reconciles the index with the database, then follows the outbox, on one goroutine.
func (ix *Indexer) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	ix.cancel = cancel
	ix.done = make(chan struct{})
	if ix.PollInterval == 0 {
		ix.PollInterval = 250 * time.Millisecond
	}
	if ix.Gather == 0 {
		ix.Gather = 300 * time.Millisecond
	}
	go func() {
		defer close(ix.done)
		// The sequence is read before the reconcile: whatever commits during it is indexed
		// again from the outbox, which is harmless.
		head, err := ix.Store.OutboxHead()
		if err != nil {
			ix.Store.App().Logger().Error("search: outbox head", "error", err.Error())
			return
		}
		seq, err := ix.Index.Seq()
		if err != nil {
			ix.Store.App().Logger().Error("search: read indexed sequence", "error", err.Error())
		}
		if _, err := ix.Index.Reconcile(ctx, ix.Store, head, nil); err != nil && ctx.Err() == nil {
			ix.Store.App().Logger().Error("search: reconcile", "error", err.Error())
		}
		seq = max(seq, head)
		ix.Store.TailOutbox(ctx, seq, ix.PollInterval, nil, func(rows []store.OutboxRow) {
			if err := ix.Index.Apply(ix.Store, rows); err != nil && ctx.Err() == nil {
				ix.Store.App().Logger().Error("search: index changes", "error", err.Error())
			}
			if len(rows) < 500 { // caught up: let the next changes gather
				select {
				case <-ctx.Done():
				case <-time.After(ix.Gather):
				}
			}
		})
	}()
}

// Stop ends the indexer and waits for its current batch.
func (ix *Indexer) Stop() {
	if ix.cancel != nil {
		ix.cancel()
		<-ix.done
	}
}

// Apply indexes the documents a run of outbox rows names, in one batch that also records the
// last sequence.
func (ix *Index) Apply(s *store.Store, rows []store.OutboxRow) error {
	if len(rows) == 0 {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	b := ix.idx.NewBatch()
	updated := map[string]map[string]bool{}
	for _, r := range rows {
		if r.Document == "" || !strings.HasPrefix(r.Kind, "document.") {
			continue
		}
		if _, done := updated[r.Document]; done {
			continue
		}
		ids, err := ix.reindexInto(b, s, r.Document)
		if err != nil {
			return fmt.Errorf("search: reindex %s: %w", r.Document, err)
		}
		updated[r.Document] = ids
	}
	b.SetInternal(internalSeq, []byte(strconv.FormatInt(rows[len(rows)-1].Seq, 10)))
	if err := ix.idx.Batch(b); err != nil {
		ix.entries = nil // unsure what went in: search for old entries until the next reconcile
		return err
	}
	for doc, ids := range updated {
		ix.remember(doc, ids)
	}
	return nil
}

// reconcileBatch is how many entries a reconcile puts in one Bleve batch (one segment):
// larger segments repeat less dictionary work and leave less to merge.
const reconcileBatch = 5000

// Progress reports reconcile progress: documents checked so far.
type Progress func(done int)

// Reconcile compares every document and state in the database with the index by signature
// and repairs the differences, including entries of documents that no longer exist. It
// stores seq as the indexed outbox sequence when done. It returns the number of documents
// repaired.
func (ix *Index) Reconcile(ctx context.Context, s *store.Store, seq int64, progress Progress) (int, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	indexed, err := ix.signatures(ctx)
	if err != nil {
		return 0, err
	}
	entries := make(map[string]map[string]bool, len(indexed))
	repaired, checked := 0, 0
	// Full batches go to workers, so that building Bleve segments (most of the cost) uses
	// every core while this goroutine reads the next documents. The last batch, with the
	// deletions of vanished documents and the sequence, goes in after all the others.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan *bleve.Batch)
	var wg sync.WaitGroup
	var batchErr error
	var errOnce sync.Once
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func(batches <-chan *bleve.Batch) {
			defer wg.Done()
			for b := range batches {
				if err := ix.idx.Batch(b); err != nil {
					errOnce.Do(func() { batchErr = err; cancel() })
				}
			}
		}(batches)
	}
	finish := func() error {
		if batches != nil {
			close(batches)
			batches = nil
			wg.Wait()
		}
		return batchErr
	}
	defer finish()
	// fail reports a failed batch rather than the cancellation it caused.
	fail := func(err error) (int, error) {
		if berr := finish(); berr != nil {
			return repaired, berr
		}
		return repaired, err
	}
	b := ix.idx.NewBatch()
	flush := func() error {
		select {
		case batches <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
		b = ix.idx.NewBatch()
		return nil
	}
	var after store.Document
	for {
		docs, err := s.AllDocuments(after, 500)
		if err != nil {
			return fail(err)
		}
		if len(docs) == 0 {
			break
		}
		ids := make([]string, len(docs))
		for i, d := range docs {
			ids[i] = d.ID
		}
		statesOf, err := s.StatesOf(ids)
		if err != nil {
			return fail(err)
		}
		for _, d := range docs {
			if err := ctx.Err(); err != nil {
				return fail(err)
			}
			want, err := ix.entriesFor(s, d, statesOf[d.ID])
			if err != nil {
				return fail(err)
			}
			have := indexed[d.ID]
			delete(indexed, d.ID)
			ids := make(map[string]bool, len(want))
			for id := range want {
				ids[id] = true
			}
			if len(ids) > 0 {
				entries[d.ID] = ids
			}
			if sameEntries(want, have) {
				continue
			}
			repaired++
			for id := range have {
				if _, ok := want[id]; !ok {
					b.Delete(id)
				}
			}
			for id, e := range want {
				if err := b.Index(id, e); err != nil {
					return fail(err)
				}
			}
			if b.Size() >= reconcileBatch {
				if err := flush(); err != nil {
					return fail(err)
				}
			}
		}
		checked += len(docs)
		if progress != nil {
			progress(checked)
		}
		after = docs[len(docs)-1]
	}
	// Whatever is left belongs to documents that no longer exist.
	for _, entries := range indexed {
		repaired++
		for id := range entries {
			b.Delete(id)
		}
	}
	if err := finish(); err != nil {
		return repaired, err
	}
	b.SetInternal(internalSeq, []byte(strconv.FormatInt(seq, 10)))
	if err := ix.idx.Batch(b); err != nil {
		return repaired, err
	}
	ix.entries = entries
	if repaired >= compactAfter {
		ix.compact()
	}
	return repaired, nil
}

// WaitCompacted waits for a compaction a reconcile started (the command line waits; a
// closing server stops it instead).
func (ix *Index) WaitCompacted() { ix.compactions.Wait() }

// compactAfter is how many documents a reconcile must have indexed for the index to be
// compacted afterwards.
const compactAfter = 10000

// compact merges the whole index into one segment in the background, once a reconcile
// indexed many documents (a rebuild, a restore): a query then opens one segment's
// dictionaries instead of a dozen. Scorch keeps answering queries meanwhile; Close stops it.
func (ix *Index) compact() {
	adv, err := ix.idx.Advanced()
	if err != nil {
		return
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return
	}
	ix.compactions.Add(1)
	go func() {
		defer ix.compactions.Done()
		opts := mergeplan.SingleSegmentMergePlanOptions
		// A compaction that fails or is stopped leaves the segments as they were.
		_ = sc.ForceMerge(ix.closing, &opts)
	}()
}

func sameEntries(want map[string]entry, have map[string]string) bool {
	if len(want) != len(have) {
		return false
	}
	for id, e := range want {
		if have[id] != e.Sig {
			return false
		}
	}
	return true
}

// signatures reads every entry's signature: doc id -> entry id -> sig.
func (ix *Index) signatures(ctx context.Context) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	var after []string
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		req := bleve.NewSearchRequestOptions(query.NewMatchAllQuery(), 5000, 0, false)
		req.Fields = []string{"docId", "sig"}
		req.SortBy([]string{"_id"})
		if after != nil {
			req.SetSearchAfter(after)
		}
		res, err := ix.idx.SearchInContext(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("search: read signatures: %w", err)
		}
		for _, h := range res.Hits {
			doc, _ := h.Fields["docId"].(string)
			sig, _ := h.Fields["sig"].(string)
			if out[doc] == nil {
				out[doc] = map[string]string{}
			}
			out[doc][h.ID] = sig
		}
		if len(res.Hits) < 5000 {
			return out, nil
		}
		after = []string{res.Hits[len(res.Hits)-1].ID}
	}
}
