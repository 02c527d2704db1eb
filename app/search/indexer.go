package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/loreweave/loreweave/app/background"
	"github.com/loreweave/loreweave/app/store"
)

// Indexer keeps the index at Path in step with the database, and search available: when the
// index fails (an error or a panic from Bleve while it is opened, written or queried, or a
// damaged segment), the indexer moves it aside and rebuilds it from the database in the
// background. Searches answer 503 search_rebuilding until the new index has caught up;
// reads and writes carry on, and the writes made meanwhile reach the new index.
type Indexer struct {
	// Path is the index's directory.
	Path  string
	Store *store.Store
	// PollInterval bounds how late changes made by other processes are seen.
	PollInterval time.Duration
	// Gather is how long the indexer lets changes pile up after indexing a batch, so that
	// a stream of writes becomes a few larger batches instead of one per commit (Bleve merges
	// small segments at a cost). A write made while the indexer idles is indexed at once; one made
	// during a batch waits at most Gather plus the batch, well within the one-second promise.
	Gather time.Duration

	mu sync.Mutex
	// index is the open index, nil while there is none (after a failure, until the next
	// one is opened).
	index *Index
	// searchable says index may answer searches: it is the one the server started with, or
	// a rebuilt one that caught up with the database.
	searchable bool

	cancel context.CancelFunc
	done   chan struct{}
}

// Start opens the index, then reconciles it with the database and follows the outbox, on one
// goroutine. It fails only if another process holds the index (ErrLocked): an index of an
// older mapping is rebuilt in place, answering searches as it fills; one that cannot be
// opened is moved aside and rebuilt.
func (ix *Indexer) Start() error {
	if ix.PollInterval == 0 {
		ix.PollInterval = 250 * time.Millisecond
	}
	if ix.Gather == 0 {
		ix.Gather = 300 * time.Millisecond
	}
	idx, err := Open(ix.Path)
	if errors.Is(err, ErrOldMapping) {
		ix.log().Info("search: the index was built by an older version; rebuilding it from the database")
		if err = Remove(ix.Path); err == nil {
			idx, err = Open(ix.Path)
		}
	}
	switch {
	case errors.Is(err, ErrLocked):
		return err
	case err != nil:
		ix.discard(nil, err) // the goroutine opens a new one
	default:
		ix.index, ix.searchable = idx, true
	}
	ctx, cancel := context.WithCancel(context.Background())
	ix.cancel = cancel
	ix.done = make(chan struct{})
	go ix.run(ctx)
	return nil
}

// Stop ends the indexer, waits for its current batch and closes the index.
func (ix *Indexer) Stop() {
	if ix.cancel == nil {
		return
	}
	ix.cancel()
	<-ix.done
	ix.mu.Lock()
	idx := ix.index
	ix.index, ix.searchable = nil, false
	ix.mu.Unlock()
	ix.close(idx)
}

// close closes idx (if any), logging rather than returning a failure: nothing else is to
// be done about it.
func (ix *Indexer) close(idx *Index) {
	if idx == nil {
		return
	}
	if err := background.Catch(idx.Close); err != nil {
		background.Log(ix.log(), "search: close the index", err)
	}
}

// Index returns the index searches may use, or the 503 search_rebuilding error while it is
// rebuilt.
func (ix *Indexer) Index() (*Index, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.index == nil || !ix.searchable || ix.index.broken.Err() != nil {
		return nil, errRebuilding()
	}
	return ix.index, nil
}

func (ix *Indexer) log() *slog.Logger { return ix.Store.App().Logger() }

// run follows the outbox into the index until ctx ends; whenever that stops on a failure of
// the index, it discards the index and starts again on a new one. Other failures (of the
// database) start it again on the same index. Failures in a row wait longer and longer.
func (ix *Indexer) run(ctx context.Context) {
	defer close(ix.done)
	for failures := 0; ; {
		err := background.Catch(func() error {
			return ix.follow(ctx, func() { failures = 0 })
		})
		if ctx.Err() != nil {
			return
		}
		ix.mu.Lock()
		idx := ix.index
		ix.mu.Unlock()
		if isFailure(err) {
			ix.discard(idx, err)
		} else {
			background.Log(ix.log(), "search: the indexer stopped; starting it again", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(retryDelay(failures)):
		}
		failures++
	}
}

// retryDelay is how long the indexer waits before starting again after failures failures in
// a row: not at all after the first, then 1 s, 2 s, 4 s… up to a minute.
func retryDelay(failures int) time.Duration {
	if failures == 0 {
		return 0
	}
	return min(time.Minute, time.Second<<min(failures-1, 6))
}

// follow opens an index if there is none, reconciles it with the database, and follows the
// outbox into it until ctx ends or something fails, and returns why it stopped. ready is
// called once the index has caught up.
func (ix *Indexer) follow(ctx context.Context, ready func()) error {
	ix.mu.Lock()
	idx := ix.index
	ix.mu.Unlock()
	if idx == nil {
		var err error
		if idx, err = Open(ix.Path); err != nil {
			return err
		}
		ix.mu.Lock()
		ix.index = idx
		ix.mu.Unlock()
	}
	// A failure found by a query or a compaction ends the reconcile or the tail.
	ctx, interrupt := context.WithCancelCause(ctx)
	defer interrupt(nil)
	defer context.AfterFunc(idx.broken, func() { interrupt(context.Cause(idx.broken)) })()

	// The sequence is read before the reconcile: whatever commits during it is indexed
	// again from the outbox, which is harmless.
	head, err := ix.Store.OutboxHead()
	if err != nil {
		return fmt.Errorf("search: read the outbox head: %w", err)
	}
	seq, err := idx.Seq()
	if err != nil {
		return err
	}
	ix.mu.Lock()
	rebuilding := !ix.searchable
	ix.mu.Unlock()
	if !rebuilding {
		inStep, err := ix.inStep(seq, head)
		if err != nil {
			return err
		}
		if inStep {
			// The index the server started with, and the outbox holds every change since
			// it was last written: follow the outbox at once, and check the index against
			// the database (what a reconcile is for: changes made behind the outbox's back)
			// in the background, a chunk at a time, instead of before the first change.
			var checking sync.WaitGroup
			checking.Add(1)
			go func() {
				defer checking.Done()
				ix.check(ctx, idx, interrupt)
			}()
			defer checking.Wait()
			ready()
			ix.tail(ctx, idx, seq, interrupt)
			return context.Cause(ctx)
		}
	}
	if rebuilding {
		atFailpoint("rebuild")
	}
	if _, err := idx.Reconcile(ctx, ix.Store, head, nil); err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return err
	}
	ix.mu.Lock()
	ix.searchable = true
	ix.mu.Unlock()
	if rebuilding {
		ix.log().Info("search: the index was rebuilt from the database")
	}
	ready()
	ix.tail(ctx, idx, max(seq, head), interrupt)
	return context.Cause(ctx) // the tail returns once ctx ended
}

// tail indexes the outbox's changes after from until ctx ends.
func (ix *Indexer) tail(ctx context.Context, idx *Index, from int64, interrupt context.CancelCauseFunc) {
	ix.Store.TailOutbox(ctx, from, ix.PollInterval, 0, nil, func(rows []store.OutboxRow) {
		if err := idx.Apply(ix.Store, rows); isFailure(err) {
			interrupt(err)
			return
		} else if err != nil && ctx.Err() == nil {
			ix.log().Error("search: index changes", "error", err.Error())
		}
		if len(rows) < store.TailBatch { // caught up: let the next changes gather
			select {
			case <-ctx.Done():
			case <-time.After(ix.Gather):
			}
		}
	})
}

// inStep reports whether an index that holds the changes up to seq can catch up from the
// outbox alone: it has been written (a new index has not), it is not ahead of the database
// (a restored database), and the outbox still holds every change after seq (rows are pruned
// after OutboxKeep).
func (ix *Indexer) inStep(seq, head int64) (bool, error) {
	if seq <= 0 || seq > head {
		return false, nil
	}
	oldest, err := ix.Store.OutboxOldest()
	if err != nil {
		return false, fmt.Errorf("search: read the outbox's oldest row: %w", err)
	}
	return oldest <= seq+1, nil
}

// check runs Verify on the index the server started with, using at most about half a core
// (it rests as long as each chunk took), and reports what it repaired.
func (ix *Indexer) check(ctx context.Context, idx *Index, interrupt context.CancelCauseFunc) {
	start := time.Now()
	var repaired int
	err := background.Catch(func() error {
		var err error
		repaired, err = idx.Verify(ctx, ix.Store, func(busy time.Duration) {
			select {
			case <-ctx.Done():
			case <-time.After(busy):
			}
		})
		return err
	})
	switch {
	case ctx.Err() != nil:
	case isFailure(err):
		interrupt(err)
	case err != nil:
		background.Log(ix.log(), "search: check the index against the database", err)
	default:
		ix.log().Info("search: the index was checked against the database", "repaired", repaired, "took", time.Since(start).Round(time.Millisecond).String())
	}
}

// discard takes a failed index out of service: searches answer 503 search_rebuilding, the
// index is closed and moved aside, and the next follow builds a new one.
func (ix *Indexer) discard(idx *Index, cause error) {
	ix.mu.Lock()
	ix.index, ix.searchable = nil, false
	ix.mu.Unlock()
	ix.close(idx)
	aside, err := moveAside(ix.Path)
	if err != nil {
		background.Log(ix.log(), "search: set the failed index aside", err)
	}
	background.Log(ix.log(), "search: the index failed; rebuilding it from the database (search answers search_rebuilding meanwhile)", cause, "movedTo", aside)
}

// applyBatchText and applyBatchDocs bound one Bleve batch of Apply. A batch is analysed
// whole in memory before it becomes a segment, so its memory follows the text it indexes,
// and a writer far ahead of the indexer hands it store.TailBatch outbox rows at a time (500
// when this was measured): in the rss bench
// (cards of ~100 words), batches of 100 documents instead of up to 500 lowered the server's
// peak from ~290 to ~215 MiB (50 gained nothing more). New documents, mostly a name and no
// text yet, cost little memory each but a segment per hundred is a lot of merging: hence a
// bound on the text (about 100 such cards) and a larger one on documents.
const (
	applyBatchText = 64 << 10
	applyBatchDocs = 2000
)

// Apply indexes the documents a run of outbox rows names, in batches bounded by
// applyBatchText and applyBatchDocs, each of which also records the last sequence it covers.
func (ix *Index) Apply(s *store.Store, rows []store.OutboxRow) error {
	if len(rows) == 0 {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	atFailpoint("apply")
	// A document named again in a later batch is not indexed again: its state was read after
	// the row naming it the second time had committed.
	done := map[string]bool{}
	for len(rows) > 0 {
		n, err := ix.applyBatch(s, rows, done)
		if err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// applyBatch indexes the documents named by the first rows, up to the bounds of a batch, in
// one batch, and returns how many rows it covered.
func (ix *Index) applyBatch(s *store.Store, rows []store.OutboxRow, done map[string]bool) (int, error) {
	b := ix.idx.NewBatch()
	updated := map[string][]string{}
	indexes := func(r store.OutboxRow) bool {
		return r.Document != "" && strings.HasPrefix(r.Kind, "document.") && !done[r.Document]
	}
	// States are read statesAhead documents at a time: one query instead of one a document.
	states := map[string][]store.State{}
	read := map[string]bool{}
	n, text := 0, 0
	for i, r := range rows {
		if len(updated) == applyBatchDocs || text >= applyBatchText {
			break
		}
		n++
		if !indexes(r) {
			continue
		}
		if !read[r.Document] {
			var next []string
			for _, r := range rows[i:] {
				if len(next) == statesAhead {
					break
				}
				if indexes(r) && !read[r.Document] {
					read[r.Document] = true
					next = append(next, r.Document)
				}
			}
			var err error
			if states, err = s.StatesOf(next); err != nil {
				return 0, fmt.Errorf("search: reindex %s: %w", r.Document, err)
			}
		}
		ids, size, err := ix.reindexInto(b, s, r.Document, states[r.Document])
		if err != nil {
			return 0, fmt.Errorf("search: reindex %s: %w", r.Document, err)
		}
		text += size
		updated[r.Document] = ids
		done[r.Document] = true
	}
	b.SetInternal(internalSeq, []byte(strconv.FormatInt(rows[n-1].Seq, 10)))
	if err := ix.idx.Batch(b); err != nil {
		ix.entries = nil // unsure what went in: search for old entries until the next reconcile
		return 0, failure("index changes", err)
	}
	for doc, ids := range updated {
		ix.remember(doc, ids)
	}
	return n, nil
}

// statesAhead is how many documents' states the running indexer reads in one query.
const statesAhead = 64

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
	entries := make(map[string][]string, len(indexed))
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
				// A panic here would end the process: this goroutine is not the caller's.
				if err := background.Catch(func() error { return ix.idx.Batch(b) }); err != nil {
					errOnce.Do(func() { batchErr = failure("index a batch", err); cancel() })
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
			if len(want) > 0 {
				ids := make([]string, 0, len(want))
				for id := range want {
					ids = append(ids, id)
				}
				entries[d.ID] = ids
			}
			if sameEntries(want, have) {
				continue
			}
			repaired++
			if _, _, err := replaceEntries(b, maps.Keys(have), want); err != nil {
				return fail(err)
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
	// Batches return once searchable (see open); the reconcile returns once all of them are
	// on disk, so that a finished `search reindex` is not done again after a crash.
	persisted := make(chan error, 1)
	b.SetPersistedCallback(func(err error) { persisted <- err })
	if err := ix.idx.Batch(b); err != nil {
		return repaired, failure("index a batch", err)
	}
	ix.entries = entries
	select {
	case err := <-persisted:
		if err != nil {
			return repaired, failure("persist the index", err)
		}
	case <-ctx.Done():
		return repaired, ctx.Err()
	}
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
// A compaction that panics marks the index broken.
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
		err := background.Catch(func() error { _ = sc.ForceMerge(ix.closing, &opts); return nil })
		if err != nil {
			ix.markBroken(failure("compact", err))
		}
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
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, failure("read signatures", err)
		}
		addSignatures(out, res.Hits)
		if len(res.Hits) < 5000 {
			return out, nil
		}
		after = []string{res.Hits[len(res.Hits)-1].ID}
	}
}
