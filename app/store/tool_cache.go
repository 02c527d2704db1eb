package store

import "sync"

// toolCache keeps each world's installed tools, parsed, in memory: every read and write of a
// tool document needs its type. Installing or uninstalling a tool writes an outbox row; the
// cache forgets the world as soon as this process makes the change or sees the row (another
// process, such as the command line, within OutboxPoll).
type toolCache struct {
	mu     sync.RWMutex
	worlds map[string]*toolSet
	// gen counts forgets, as metaCache's does: a set read while a forget happened is not kept.
	gen uint64
}

func newToolCache() *toolCache { return &toolCache{worlds: map[string]*toolSet{}} }

const maxCachedToolWorlds = 10_000

func (c *toolCache) generation() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen
}

func (c *toolCache) get(worldID string) (*toolSet, bool) {
	c.mu.RLock()
	ts, ok := c.worlds[worldID]
	c.mu.RUnlock()
	return ts, ok
}

func (c *toolCache) put(gen uint64, worldID string, ts *toolSet) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.worlds) >= maxCachedToolWorlds {
		c.worlds = map[string]*toolSet{}
	}
	c.worlds[worldID] = ts
}

// forget drops the worlds whose tools outbox rows say changed.
func (c *toolCache) forget(rows []OutboxRow) {
	var worlds []string
	for _, r := range rows {
		switch r.Kind {
		case "tool.installed", "tool.uninstalled", "world.deleted":
			worlds = append(worlds, r.World)
		}
	}
	if len(worlds) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, w := range worlds {
		delete(c.worlds, w)
	}
}
