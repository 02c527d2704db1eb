package store

import (
	"sync"
)

// metaCache keeps worlds and memberships, read on every request, in memory. Every change to
// them writes an outbox row; the cache forgets what a row names as soon as this process
// makes the change (synchronously) or sees the row (another process, within OutboxPoll).
// Misses are not cached, so a new member or world is seen at once.
type metaCache struct {
	mu     sync.RWMutex
	worlds map[string]World
	roles  map[[2]string]string // (world, user) -> role
	docs   map[string]docEntry
	// gen counts forgets: a value read from the database is cached only if no forget
	// happened since the read began, so a read racing a change cannot cache the old value.
	gen uint64
}

// generation is taken before a database read and handed to put.
func (c *metaCache) generation() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen
}

func newMetaCache() *metaCache {
	return &metaCache{worlds: map[string]World{}, roles: map[[2]string]string{}, docs: map[string]docEntry{}}
}

const maxCached = 100_000

func (c *metaCache) world(id string) (World, bool) {
	c.mu.RLock()
	w, ok := c.worlds[id]
	c.mu.RUnlock()
	return w, ok
}

func (c *metaCache) putWorld(gen uint64, w World) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.worlds) >= maxCached {
		c.worlds = map[string]World{}
	}
	c.worlds[w.ID] = w
}

func (c *metaCache) role(world, user string) (string, bool) {
	c.mu.RLock()
	r, ok := c.roles[[2]string{world, user}]
	c.mu.RUnlock()
	return r, ok
}

func (c *metaCache) putRole(gen uint64, world, user, role string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.roles) >= maxCached {
		c.roles = map[[2]string]string{}
	}
	c.roles[[2]string{world, user}] = role
}

// forget drops what outbox rows say has changed.
func (c *metaCache) forget(rows []OutboxRow) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Only a row that forgets something counts: content writes and creates (most rows) change
	// nothing cached, and counting them refused the reads that raced them, creates' own
	// entries among them.
	forgot := false
	for _, r := range rows {
		switch r.Kind {
		case "world.plan", "world.updated", "world.deleted", "world.restored", "world.purged":
			delete(c.worlds, r.World)
		case "member.added", "member.removed", "member.role":
			delete(c.roles, [2]string{r.World, r.Subject})
		case "document.renamed", "document.moved", "document.deleted", "document.purged":
			delete(c.docs, r.Document)
		default:
			continue
		}
		forgot = true
	}
	if forgot {
		c.gen++
	}
}

// docEntry is a document's metadata and the eras it is deleted in.
type docEntry struct {
	doc     Document
	deleted []string
}

func (c *metaCache) doc(id string) (docEntry, bool) {
	c.mu.RLock()
	d, ok := c.docs[id]
	c.mu.RUnlock()
	return d, ok
}

func (c *metaCache) putDoc(gen uint64, d docEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.docs) >= maxCached {
		c.docs = map[string]docEntry{}
	}
	c.docs[d.doc.ID] = d
}
