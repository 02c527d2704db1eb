package store

import (
	"sync"

	"github.com/loreweave/loreweave/ops"
)

// liveState is a document's state in an era that has its own state row, kept in memory
// once loaded or written: writes and reads of busy documents skip the database read and the
// JSON decode. It is write-through: the database is always written first, and the memory
// copy only replaced after the commit.
type liveState struct {
	row stateRow // id, era, version, forkedVersion; data and text are not kept here
	// typ is the tool type doc was read as (nil for a built-in type): a state is used only
	// while its world still has that very type installed (see Store.liveState).
	typ  *ops.ToolType
	doc  ops.Document
	data []byte // doc.JSON()
	// links are the document's rows in document_links for this era, when known
	links      []ops.Link
	linksKnown bool
	// opTotal is the op log's total (see appendOp) at row.Version, when opTotalKnown: the
	// next write then need not read it.
	opTotal      int64
	opTotalKnown bool
}

// stateCache holds live states up to a total size of their data.
type stateCache struct {
	mu    sync.Mutex
	m     map[string]*liveState
	bytes int
	max   int
}

const maxStateBytes = 256 << 20

func newStateCache() *stateCache { return &stateCache{m: map[string]*liveState{}, max: maxStateBytes} }

func stateKey(docID, era string) string { return docID + "/" + era }

func (c *stateCache) get(docID, era string) (*liveState, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.m[stateKey(docID, era)]
	return st, ok
}

// put keeps st unless a newer version of the same state is already held.
func (c *stateCache) put(docID string, st *liveState) {
	if len(st.data) > c.max/16 {
		return // too big to be worth holding
	}
	k := stateKey(docID, st.row.Era)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[k]; ok {
		if old.row.Version >= st.row.Version {
			return
		}
		c.bytes -= len(old.data)
	}
	for c.bytes+len(st.data) > c.max && len(c.m) > 0 {
		for victim, v := range c.m { // map order is random: evict an arbitrary entry
			c.bytes -= len(v.data)
			delete(c.m, victim)
			break
		}
	}
	c.m[k] = st
	c.bytes += len(st.data)
}

// liveState returns the cached state of d in era, if held and still of the type typ (the
// tool type installed now, nil for a built-in type): a state read before its tool was
// upgraded, uninstalled or installed again is dropped.
func (s *Store) liveState(d Document, era string, typ *ops.ToolType) (*liveState, bool) {
	st, ok := s.states.get(d.ID, era)
	if !ok {
		return nil, false
	}
	if st.typ != typ {
		s.states.drop(d.ID, era, false)
		return nil, false
	}
	return st, true
}

// drop forgets a document's states: in one era, or in all of them when all is true.
func (c *stateCache) drop(docID, era string, all bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, v := range c.m {
		if (all && len(k) > len(docID) && k[:len(docID)+1] == docID+"/") || k == stateKey(docID, era) {
			c.bytes -= len(v.data)
			delete(c.m, k)
		}
	}
}
