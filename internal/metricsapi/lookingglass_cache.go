package metricsapi

import (
	"context"
	"strconv"
	"sync"

	"github.com/avaindex/avaindex/internal/coalesce"
	"github.com/avaindex/avaindex/internal/store"
)

// lgCache keeps the Looking Glass answers computed whole (a balance
// query's addresses) for the chain's state they were computed at: the
// next pages and the same sub-query in another composite read them again
// without the scan, until the chain's next applied block. It holds at most lgCacheBudget addresses; the oldest
// entries go first.
type lgCache struct {
	mu      sync.Mutex
	entries map[string]*lgEntry
	order   []string
	size    int
	flight  coalesce.Group[*lgEntry]
}

type lgEntry struct {
	version int64
	list    []store.AddressAmount
}

// lgCacheBudget bounds the addresses the cache holds (about 100 bytes
// each).
const lgCacheBudget = 2_000_000

func (c *lgCache) get(key string, version int64) (*lgEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || e.version != version {
		return nil, false
	}
	return e, true
}

func (c *lgCache) put(key string, e *lgEntry) {
	n := len(e.list) + 1
	if n > lgCacheBudget/2 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]*lgEntry{}
	}
	if old, ok := c.entries[key]; ok {
		c.size -= len(old.list) + 1
	} else {
		c.order = append(c.order, key)
	}
	c.entries[key] = e
	c.size += n
	for c.size > lgCacheBudget && len(c.order) > 0 {
		k := c.order[0]
		c.order = c.order[1:]
		if old, ok := c.entries[k]; ok {
			c.size -= len(old.list) + 1
			delete(c.entries, k)
		}
	}
}

// cached answers key at the chain's current state from the cache, or
// computes it with f and keeps it.
func (a *API) cached(ctx context.Context, chain uint64, key string, f func() (*lgEntry, error)) (*lgEntry, error) {
	version, err := a.store.EVMChainVersion(ctx, chain)
	if err != nil {
		return nil, err
	}
	if e, ok := a.lg.get(key, version); ok {
		return e, nil
	}
	// Requests that miss together scan once: each scan is tens of
	// milliseconds of CPU, and every waiting request misses at each block.
	return a.lg.flight.Do(key+"\x00"+strconv.FormatInt(version, 10), func() (*lgEntry, error) {
		e, err := f()
		if err != nil {
			return nil, err
		}
		e.version = version
		a.lg.put(key, e)
		return e, nil
	})
}
