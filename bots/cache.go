package bots

import (
	"sync"

	"twserver/world/twmap"
)

// MaxNavCacheEntries bounds a NavCache whatever NewNavCache is given.
const MaxNavCacheEntries = 64

// NavCache shares one Nav between the games on the same map: graphs are
// keyed by the map file's SHA-256, built once (concurrent callers wait for
// the one build) and the least recently used graph is dropped beyond the
// cache's size. It is safe for concurrent use.
type NavCache struct {
	mu      sync.Mutex
	max     int
	entries map[[32]byte]*navEntry
	clock   uint64
}

type navEntry struct {
	done chan struct{}
	nav  *Nav
	err  error
	used uint64
}

// NewNavCache returns a cache holding at most max graphs (clamped to
// 1..MaxNavCacheEntries).
func NewNavCache(size int) *NavCache {
	size = min(MaxNavCacheEntries, max(1, size))
	return &NavCache{max: size, entries: make(map[[32]byte]*navEntry, size)}
}

// Get returns the graph of m, building it on first use.
func (c *NavCache) Get(m *twmap.Map) (*Nav, error) {
	if m == nil {
		return nil, ErrNavMap
	}
	c.mu.Lock()
	c.clock++
	e, ok := c.entries[m.SHA256]
	if ok {
		e.used = c.clock
		c.mu.Unlock()
		<-e.done
		return e.nav, e.err
	}
	e = &navEntry{done: make(chan struct{}), used: c.clock}
	for len(c.entries) >= c.max {
		var oldK [32]byte
		var oldE *navEntry
		for k, v := range c.entries {
			if oldE == nil || v.used < oldE.used {
				oldK, oldE = k, v
			}
		}
		delete(c.entries, oldK)
	}
	c.entries[m.SHA256] = e
	c.mu.Unlock()
	e.nav, e.err = BuildNav(m)
	close(e.done)
	if e.err != nil {
		c.mu.Lock()
		if c.entries[m.SHA256] == e {
			delete(c.entries, m.SHA256)
		}
		c.mu.Unlock()
	}
	return e.nav, e.err
}

// Len returns the number of graphs held.
func (c *NavCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
