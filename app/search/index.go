package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/loreweave/loreweave/app/background"
	"github.com/loreweave/loreweave/app/store"
)

// mainEra stands for the main line in the index (era ids are 15 characters, so it cannot
// collide with one).
const mainEra = "main"

// Field names.
const (
	fieldName     = "name"
	fieldNameGram = "name_ngram"
	fieldText     = "text"
	// fieldSecret holds the text of secret parts (a card's secret sections): only the
	// world's editors' queries look in it (Query.Secrets).
	fieldSecret = "secret"
	fieldKind   = "kind"
)

// internalSeq is the internal key under which the last indexed outbox sequence is stored.
var internalSeq = []byte("lw_outbox_seq")

// internalMapping records the mapping an index was built with; an index of another mapping
// is rebuilt.
var internalMapping = []byte("lw_mapping")

// mappingVersion changes whenever newMapping changes.
const mappingVersion = "8"

// ErrOldMapping means the index was built by another version of Loreweave's mapping.
var ErrOldMapping = errors.New("search: the index was built with an older mapping")

// ErrLocked means another process (a running server) holds the index.
var ErrLocked = errors.New("search: the index is in use by another process (is the server running?)")

// Index is the search index.
type Index struct {
	idx  bleve.Index
	path string
	// mu serialises writers (the indexer and reindex); searches do not take it.
	mu sync.Mutex
	// entries maps each document to the ids of its entries in the index, once a reconcile
	// has read them: the writer then knows what to delete without searching. A slice, not a
	// set: a document has one entry or a few, and at a million documents a map each cost
	// ~300 bytes of pointer-filled heap that every garbage collection scanned.
	entries map[string][]string

	codesMu sync.RWMutex
	codes   map[string]string // scope -> code

	// closing ends a compaction when the index closes.
	closing        context.Context
	stopCompacting context.CancelFunc
	compactions    sync.WaitGroup

	// broken ends, with the failure as its cause, once the index is found broken away from
	// its writer (by a query, a compaction): the indexer then rebuilds it.
	broken     context.Context
	markBroken context.CancelCauseFunc
}

// entry is what is indexed for one document state. Name, Text and Kind are analysed as
// "code<sep>value" (see analysis.go), code being the short code of the entry's world and era
// (see allocCode).
// An entry's world and era are in its scoped terms (see allocCode) and its id: queries go by
// the scoped terms, which never walk another world's postings, so no field holds them (two
// keyword fields that nothing read cost two dictionaries in every segment).
type entry struct {
	Shadowed     []string `json:"shadowed"`
	DocID        string   `json:"docId"`
	DocumentType string   `json:"documentType"`
	Kind         string   `json:"kind"`
	Name         string   `json:"name"`
	Text         string   `json:"text"`
	Secret       string   `json:"secret,omitempty"`
	Version      float64  `json:"version"`
	// Sig summarises what the reconcile compares: version, name, type, shadowing.
	Sig string `json:"sig"`
}

func entryID(docID, era string) string {
	if era == "" {
		era = mainEra
	}
	return docID + "/" + era
}

func newMapping() (mapping.IndexMapping, error) {
	im := bleve.NewIndexMapping()
	keyword := func(index, store bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Index, f.Store = index, store
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	// filter is a keyword no query scores: no frequency and norm (5 bytes an entry) for it.
	filter := func() *mapping.FieldMapping {
		f := keyword(true, false)
		f.SkipFreqNorm = true
		return f
	}
	// Term vectors (positions) only on the text: phrase queries and snippets need them.
	text := func(name, analyzer string, store, vectors bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Name = name
		f.Analyzer = analyzer
		f.Store = store
		f.IncludeTermVectors = vectors
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("shadowed", filter())
	docID := filter()
	docID.Store = true
	dm.AddFieldMappingsAt("docId", docID)
	dm.AddFieldMappingsAt("documentType", keyword(false, true))
	dm.AddFieldMappingsAt("kind", keyword(true, false))
	dm.AddFieldMappingsAt("sig", keyword(false, true))
	version := bleve.NewNumericFieldMapping()
	version.Index = false
	version.Store = true
	version.IncludeInAll = false
	dm.AddFieldMappingsAt("version", version)
	dm.AddFieldMappingsAt("name", text(fieldName, wordsAnalyzer, true, false), text(fieldNameGram, gramsAnalyzer, false, false))
	dm.AddFieldMappingsAt("text", text(fieldText, wordsAnalyzer, true, true))
	dm.AddFieldMappingsAt("secret", text(fieldSecret, wordsAnalyzer, true, true))
	im.DefaultMapping = dm
	im.DefaultAnalyzer = wordsAnalyzer
	return im, nil
}

// Open opens (or creates) the index at path. It fails with ErrLocked within a second when
// another process holds it, rather than waiting, and with ErrOldMapping for an index of an
// older mapping; any other error (or a panic) from Bleve, or a segment whose checksum does
// not match, means the index is damaged: delete it or move it aside, and rebuild it.
func Open(path string) (*Index, error) {
	var idx bleve.Index
	err := background.Catch(func() (err error) {
		idx, err = open(path)
		return err
	})
	if errors.Is(err, ErrLocked) || errors.Is(err, ErrOldMapping) {
		return nil, err
	}
	if err != nil {
		return nil, failure("open "+path, err)
	}
	closing, stop := context.WithCancel(context.Background())
	broken, markBroken := context.WithCancelCause(context.Background())
	ix := &Index{idx: idx, path: path, codes: map[string]string{}, closing: closing, stopCompacting: stop, broken: broken, markBroken: markBroken}
	inBackground.Store(storePath(path), ix)
	return ix, nil
}

// open opens or creates the Bleve index at path, and checks it.
func open(path string) (bleve.Index, error) {
	// A batch returns once it is searchable, not once it is on disk (unsafe_batch): the
	// reconcile's workers no longer sit idle while a segment is written and synced. A crash
	// loses at most the batches not yet persisted, and with them the sequence they stored
	// (each batch records its sequence), so the next start indexes those changes again.
	cfg := map[string]any{"bolt_timeout": "1s", "asyncErrorCallbackName": asyncErrors, "unsafe_batch": true}
	idx, err := bleve.OpenUsing(path, cfg)
	if errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
		m, merr := newMapping()
		if merr != nil {
			return nil, fmt.Errorf("mapping: %w", merr)
		}
		if idx, err = bleve.NewUsing(path, m, bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, cfg); err != nil {
			return nil, err
		}
		if err := idx.SetInternal(internalMapping, []byte(mappingVersion)); err != nil {
			_ = idx.Close()
			return nil, err
		}
		return idx, nil
	}
	if err != nil {
		if strings.Contains(err.Error(), "timeout") {
			return nil, ErrLocked
		}
		return nil, err
	}
	if v, err := idx.GetInternal(internalMapping); err != nil || string(v) != mappingVersion {
		_ = idx.Close()
		if err != nil {
			return nil, err
		}
		return nil, ErrOldMapping
	}
	if err := verify(idx); err != nil {
		_ = idx.Close()
		return nil, err
	}
	return idx, nil
}

// Close closes the index.
func (ix *Index) Close() error {
	inBackground.CompareAndDelete(storePath(ix.path), ix)
	ix.stopCompacting()
	ix.compactions.Wait()
	return ix.idx.Close()
}

// Remove deletes an index directory (for a rebuild from scratch).
func Remove(path string) error { return os.RemoveAll(path) }

// Seq returns the last outbox sequence the index holds.
func (ix *Index) Seq() (int64, error) {
	b, err := ix.idx.GetInternal(internalSeq)
	if err != nil || len(b) == 0 {
		return 0, failure("read the indexed sequence", err)
	}
	seq, err := strconv.ParseInt(string(b), 10, 64)
	return seq, failure("read the indexed sequence", err)
}

// DocCount is the number of entries.
func (ix *Index) DocCount() (uint64, error) {
	n, err := ix.idx.DocCount()
	return n, failure("count entries", err)
}

// entriesFor computes the entries a document should have: one per stored state (deleted
// states only shadow), plus a name-only entry in its era of origin while that era has no
// state of its own (a never-written document is still found by name).
func (ix *Index) entriesFor(s *store.Store, d store.Document, states []store.State) (map[string]entry, error) {
	own := map[string]bool{}
	for _, st := range states {
		own[st.Era] = true
	}
	chains := map[string][]string{}
	chainOf := func(era string) ([]string, error) {
		if c, ok := chains[era]; ok {
			return c, nil
		}
		c, err := s.EraChain(d.WorldID, era)
		chains[era] = c
		return c, err
	}
	deleted := map[string]bool{}
	for _, st := range states {
		if st.Deleted {
			deleted[st.Era] = true
		}
	}
	// shadowedBy lists the eras (other than era) with their own state whose chain passes
	// through era: they, and their descendants, see their own copy instead. An era where the
	// document is deleted hides every copy from itself and its descendants.
	shadowedBy := func(era string) ([]string, error) {
		var out []string
		for other := range own {
			if other == era {
				continue
			}
			if deleted[other] {
				out = append(out, indexEra(other))
				continue
			}
			c, err := chainOf(other)
			if err != nil {
				return nil, err
			}
			if slices.Contains(c, era) {
				out = append(out, indexEra(other))
			}
		}
		slices.Sort(out)
		return out, nil
	}
	out := map[string]entry{}
	add := func(era, name, text, secret string, version int64) error {
		sh, err := shadowedBy(era)
		if err != nil {
			return err
		}
		code, err := ix.allocCode(d.WorldID, era)
		if err != nil {
			return err
		}
		sc := code + sep
		e := entry{Shadowed: sh, DocID: d.ID, DocumentType: d.DocumentType, Kind: sc + d.DocumentType,
			Name: sc + name, Text: sc + indexedText(text), Version: float64(version)}
		if secret != "" {
			e.Secret = sc + indexedText(secret)
		}
		e.Sig = signature(e)
		out[entryID(d.ID, era)] = e
		return nil
	}
	for _, st := range states {
		if st.Deleted {
			continue
		}
		public, secret := readerText(s, d, st)
		if err := add(st.Era, displayName(d, st.Data), public, secret, st.Version); err != nil {
			return nil, err
		}
	}
	if !own[d.EraID] {
		if err := add(d.EraID, d.Name, d.Name, "", 0); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MaxIndexedText is how much of a document's text is indexed, in bytes: the rest is not
// searchable. Every write re-indexes the whole entry on the one indexer goroutine (a
// multi-megabyte text cost seconds of CPU and gigabytes of memory there, and held up every
// other world's writes); cut here, a re-index costs bounded memory and time.
const MaxIndexedText = 256 << 10

// indexedText is the part of text that is indexed: at most MaxIndexedText bytes, cut at a
// UTF-8 character boundary.
func indexedText(text string) string {
	if len(text) <= MaxIndexedText {
		return text
	}
	n := MaxIndexedText
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n]
}

// scope names a world's era.
func scope(worldID, era string) string { return worldID + "/" + indexEra(era) }

// Every world's era (scope) has a short code that starts its terms: "3f\x1fdragon" is
// "dragon" in scope 3f. Codes are allocated in order and kept in the index (one internal
// key per scope, and the next code): short codes keep the dictionaries small and fuzzy
// automata cheap, which the scope's 20-odd characters of ids did not.
const (
	internalScope    = "lw_scope:"
	internalNextCode = "lw_scope_next"
)

// code returns the code of a world's era, if it has one.
func (ix *Index) code(worldID, era string) (string, bool, error) {
	sc := scope(worldID, era)
	ix.codesMu.RLock()
	c, ok := ix.codes[sc]
	ix.codesMu.RUnlock()
	if ok {
		return c, true, nil
	}
	b, err := ix.idx.GetInternal([]byte(internalScope + sc))
	if err != nil || len(b) == 0 {
		return "", false, failure("read a scope code", err)
	}
	ix.codesMu.Lock()
	ix.codes[sc] = string(b)
	ix.codesMu.Unlock()
	return string(b), true, nil
}

// allocCode returns the code of a world's era, allocating one if it has none. Writers call
// it (under ix.mu). The next code and the scope's are stored in one batch, before any entry
// uses the code.
func (ix *Index) allocCode(worldID, era string) (string, error) {
	if c, ok, err := ix.code(worldID, era); ok || err != nil {
		return c, err
	}
	next := int64(0)
	if b, err := ix.idx.GetInternal([]byte(internalNextCode)); err != nil {
		return "", failure("read the next scope code", err)
	} else if len(b) > 0 {
		if next, err = strconv.ParseInt(string(b), 36, 64); err != nil {
			return "", failure("read the next scope code", fmt.Errorf("bad code %q", b))
		}
	}
	c := strconv.FormatInt(next, 36)
	b := ix.idx.NewBatch()
	b.SetInternal([]byte(internalNextCode), []byte(strconv.FormatInt(next+1, 36)))
	b.SetInternal([]byte(internalScope+scope(worldID, era)), []byte(c))
	if err := ix.idx.Batch(b); err != nil {
		return "", failure("allocate a scope code", err)
	}
	ix.codesMu.Lock()
	ix.codes[scope(worldID, era)] = c
	ix.codesMu.Unlock()
	return c, nil
}

func indexEra(era string) string {
	if era == "" {
		return mainEra
	}
	return era
}

func signature(e entry) string {
	return fmt.Sprintf("%d|%s|%s|%s|%d|%d", int64(e.Version), e.DocumentType, e.Name, strings.Join(e.Shadowed, ","), len(e.Text), len(e.Secret))
}

// displayName is the name a state shows: a card's own name (card.rename) wins in its era.
func displayName(d store.Document, data string) string {
	if d.DocumentType == "card" {
		var c struct {
			Name string `json:"name"`
		}
		if json.Unmarshal([]byte(data), &c) == nil && strings.TrimSpace(c.Name) != "" {
			return c.Name
		}
	}
	return d.Name
}

// indexedIDs returns the ids of the entries the index holds for a document.
func (ix *Index) indexedIDs(docID string) ([]string, error) {
	q := query.NewTermQuery(docID)
	q.SetField("docId")
	req := bleve.NewSearchRequestOptions(q, 10000, 0, false)
	res, err := ix.idx.Search(req)
	if err != nil {
		return nil, failure("find a document's entries", err)
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return ids, nil
}

// reindexInto adds to b what makes the index hold exactly the current entries of docID,
// given its stored states, and returns the ids it will then have and the size of the text
// it indexes.
func (ix *Index) reindexInto(b *bleve.Batch, s *store.Store, docID string, states []store.State) ([]string, int, error) {
	var old []string
	if ix.entries != nil {
		old = ix.entries[docID]
	} else {
		var err error
		if old, err = ix.indexedIDs(docID); err != nil {
			return nil, 0, err
		}
	}
	want := map[string]entry{}
	d, err := s.DocumentByID(docID)
	if err == nil {
		if want, err = ix.entriesFor(s, d, states); err != nil {
			return nil, 0, err
		}
	}
	return replaceEntries(b, slices.Values(old), want)
}

// replaceEntries adds to b what turns a document's old entries (their ids) into want, and
// returns want's ids and the size of the text it indexes.
func replaceEntries(b *bleve.Batch, old iter.Seq[string], want map[string]entry) ([]string, int, error) {
	for id := range old {
		if _, ok := want[id]; !ok {
			b.Delete(id)
		}
	}
	ids, size := make([]string, 0, len(want)), 0
	for id, e := range want {
		size += len(e.Name) + len(e.Text) + len(e.Secret)
		if err := b.Index(id, e); err != nil {
			return nil, 0, failure("index "+id, err)
		}
		ids = append(ids, id)
	}
	return ids, size, nil
}

// remember records a document's entries after its batch went in.
func (ix *Index) remember(docID string, ids []string) {
	if ix.entries == nil {
		return
	}
	if len(ids) == 0 {
		delete(ix.entries, docID)
		return
	}
	ix.entries[docID] = ids
}
