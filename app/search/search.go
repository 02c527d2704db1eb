// Package search answers full-text queries over one world's document names and content with
// a Bleve index kept in the data directory.
//
// One index holds every world; each entry is one document state (document × era). Every term
// starts with the short code of the entry's world and era (its scope), so a query walks one
// world's postings and a prefix or fuzzy query one world's words, however many worlds the
// index holds. The name and the text are each indexed as words (lower-cased, as typed, so
// invented names like Qo'noS match exactly, plus each word's English stem at the same
// position); the name also as edge n-grams (search as you type; a prefix in the text walks
// the world's words in the dictionary). An entry also lists the eras that hold
// their own copy of the document ("shadowed"), so a query in era E sees inherited documents
// and E's own versions but never a parent's overridden copy. The text of secret parts (a
// card's secret sections) is indexed in a field of its own, "secret", that only the queries
// of a world's editors look in (Query.Secrets): a viewer never matches it nor sees it in a
// snippet.
//
// The index follows the outbox: an indexer goroutine reads change rows after the sequence it
// stored (with Batch.SetInternal, in the same batch as the documents) and re-indexes the
// documents they name. On start, a full reconcile compares every document and state with
// the index by signature (version, name, type, shadowing) and repairs differences.
//
// The index holds nothing the database does not: when it fails (a segment that does not
// match its checksum, an error or a panic from Bleve while opening, indexing or querying),
// the indexer sets it aside and rebuilds it, and searches answer 503 search_rebuilding
// meanwhile (failure.go).
package search

import "github.com/loreweave/loreweave/app/store"

// Query is one search request, always scoped to one world and one era.
type Query struct {
	WorldID      string
	EraID        string
	Text         string
	DocumentType string
	Page         store.Page
	// Secrets is set for callers who may see secret parts (the world's owners, admins and
	// editors): the query then also matches the text of secret card sections, and snippets
	// may show it. Unset, secret text is never matched nor shown.
	Secrets bool
}

// Hit is one matching document.
type Hit struct {
	ID           string  `json:"id"`
	Name         string  `json:"name"`
	DocumentType string  `json:"documentType"`
	Score        float64 `json:"score"`
	// Snippet is a short HTML fragment: the text is escaped and hits are wrapped in <mark>.
	Snippet string `json:"snippet"`
}

// Results is one page of hits.
type Results struct {
	Hits  []Hit
	Total int
}
