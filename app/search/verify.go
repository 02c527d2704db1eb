package search

import (
	"context"
	"maps"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/pocketbase/dbx"

	"github.com/loreweave/loreweave/app/store"
)

// verifyChunk is how many documents Verify checks under the writer lock at a time: the
// longest an outbox change waits for it is one chunk's check.
const verifyChunk = 500

// Verify makes the index agree with the database, as Reconcile does (by signature, removing
// the entries of documents that no longer exist), for an index that is already in step with
// the outbox: the one a server starts with. Unlike Reconcile it never holds the writer lock
// for more than a chunk of documents, nor the whole index's signatures in memory, so the
// outbox keeps being indexed while it runs, and a million documents cost no more memory than
// a thousand. A chunk reads its documents from the database and their entries from the index
// under the lock, so a change committed meanwhile is either seen by the chunk or indexed
// after it from the outbox. rest is called after each chunk with how long it took (to yield
// the cores to requests). It returns the number of documents repaired.
func (ix *Index) Verify(ctx context.Context, s *store.Store, rest func(busy time.Duration)) (int, error) {
	repaired := 0
	var after store.Document
	for {
		if err := ctx.Err(); err != nil {
			return repaired, err
		}
		start := time.Now()
		n, last, err := ix.verifyDocuments(s, after)
		repaired += n
		if err != nil || last.ID == "" {
			if err != nil {
				return repaired, err
			}
			break
		}
		after = last
		rest(time.Since(start))
	}
	// Entries of documents the database no longer holds: the index's document ids and the
	// database's, both in id order, merged.
	dict, err := ix.idx.FieldDict("docId")
	if err != nil {
		return repaired, failure("read document ids", err)
	}
	defer dict.Close()
	var ids []string
	for done := false; !done; {
		if err := ctx.Err(); err != nil {
			return repaired, err
		}
		start := time.Now()
		ids = ids[:0]
		for len(ids) < verifyChunk {
			e, err := dict.Next()
			if err != nil {
				return repaired, failure("read document ids", err)
			}
			if e == nil {
				done = true
				break
			}
			ids = append(ids, e.Term)
		}
		n, err := ix.dropVanished(s, ids)
		repaired += n
		if err != nil {
			return repaired, err
		}
		rest(time.Since(start))
	}
	return repaired, nil
}

// verifyDocuments checks the chunk of documents after after, and returns how many it
// repaired and the last one (the zero Document when there were none).
func (ix *Index) verifyDocuments(s *store.Store, after store.Document) (int, store.Document, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	docs, err := s.AllDocuments(after, verifyChunk)
	if err != nil || len(docs) == 0 {
		return 0, store.Document{}, err
	}
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	statesOf, err := s.StatesOf(ids)
	if err != nil {
		return 0, store.Document{}, err
	}
	indexed, err := ix.signaturesOf(ids)
	if err != nil {
		return 0, store.Document{}, err
	}
	b := ix.idx.NewBatch()
	repaired := 0
	for _, d := range docs {
		want, err := ix.entriesFor(s, d, statesOf[d.ID])
		if err != nil {
			return 0, store.Document{}, err
		}
		have := indexed[d.ID]
		if sameEntries(want, have) {
			continue
		}
		repaired++
		ids, _, err := replaceEntries(b, maps.Keys(have), want)
		if err != nil {
			return 0, store.Document{}, err
		}
		ix.remember(d.ID, ids)
	}
	if b.Size() > 0 {
		if err := ix.idx.Batch(b); err != nil {
			ix.entries = nil
			return 0, store.Document{}, failure("index a batch", err)
		}
	}
	return repaired, docs[len(docs)-1], nil
}

// signaturesOf reads the signatures of the entries of some documents: doc id -> entry id ->
// sig.
func (ix *Index) signaturesOf(docIDs []string) (map[string]map[string]string, error) {
	qs := make([]query.Query, len(docIDs))
	for i, id := range docIDs {
		q := query.NewTermQuery(id)
		q.SetField("docId")
		qs[i] = q
	}
	out := map[string]map[string]string{}
	req := bleve.NewSearchRequestOptions(query.NewDisjunctionQuery(qs), 10000, 0, false)
	req.Fields = []string{"docId", "sig"}
	for {
		res, err := ix.idx.Search(req)
		if err != nil {
			return nil, failure("read signatures", err)
		}
		addSignatures(out, res.Hits)
		if uint64(req.From+len(res.Hits)) >= res.Total || len(res.Hits) == 0 {
			return out, nil
		}
		req.From += len(res.Hits)
	}
}

// dropVanished removes the entries of those of ids (document ids the index holds) that the
// database no longer has, and returns how many there were.
func (ix *Index) dropVanished(s *store.Store, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	vals := make([]any, len(ids))
	for i, id := range ids {
		vals[i] = id
	}
	var have []string
	if err := s.App().DB().Select("id").From("documents").Where(dbx.In("id", vals...)).Column(&have); err != nil {
		return 0, err
	}
	exists := make(map[string]bool, len(have))
	for _, id := range have {
		exists[id] = true
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	b := ix.idx.NewBatch()
	gone := 0
	for _, id := range ids {
		if exists[id] {
			continue
		}
		entries, err := ix.indexedIDs(id)
		if err != nil {
			return gone, err
		}
		if len(entries) > 0 {
			gone++
		}
		for _, e := range entries {
			b.Delete(e)
		}
		ix.remember(id, nil)
	}
	if b.Size() > 0 {
		if err := ix.idx.Batch(b); err != nil {
			ix.entries = nil
			return gone, failure("index a batch", err)
		}
	}
	return gone, nil
}

// addSignatures adds to out (doc id -> entry id -> sig) what hits with the docId and sig
// fields say.
func addSignatures(out map[string]map[string]string, hits search.DocumentMatchCollection) {
	for _, h := range hits {
		doc, _ := h.Fields["docId"].(string)
		sig, _ := h.Fields["sig"].(string)
		if out[doc] == nil {
			out[doc] = map[string]string{}
		}
		out[doc][h.ID] = sig
	}
}
