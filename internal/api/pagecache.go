package api

import (
	"net/http"
	"strconv"

	"github.com/ava-labs/avalanchego/cache/lru"

	"github.com/avaindex/avaindex/internal/coalesce"
)

// pageCacheBytes bounds the whole answers the Data API keeps.
const pageCacheBytes = 16 << 20

// pageCache keeps whole answers of routes whose answer is the store's
// content alone (no clock, price or node in it), each with the store's
// Generation read before the answer was computed: while the store has
// not changed since, the same request gets the same bytes. An explorer's
// first screen asks for the latest blocks again and again between two
// blocks.
//
// Requests that miss together compute the page once: under load every
// connection misses at each change of the store, and each would read the
// store while the others wait on it (on PostgreSQL a busy round trip
// turned one read a change into dozens).
type pageCache struct {
	lru    *lru.SizedCache[string, keptPage]
	flight coalesce.Group[keptPage]
}

type keptPage struct {
	gen  uint64
	body []byte
}

func newPageCache(maxBytes int) *pageCache {
	return &pageCache{lru: lru.NewSizedCache(maxBytes, func(k string, p keptPage) int { return len(k) + 8 + len(p.body) })}
}

// serve answers r with the kept body when the store is still at the
// generation it was computed at, else with compute's body, kept for the
// next request; compute's error is returned, and nothing kept. Bodies are
// written as writeRaw writes them.
func (c *pageCache) serve(w http.ResponseWriter, r *http.Request, gen uint64, compute func() ([]byte, error)) error {
	key := r.URL.Path + "?" + r.URL.RawQuery
	p, ok := c.lru.Get(key)
	if !ok || p.gen != gen {
		keep := func() (keptPage, error) {
			body, err := compute()
			if err != nil {
				return keptPage{}, err
			}
			// The kept slice is never appended to again: readers share it.
			p := keptPage{gen: gen, body: append(body[:len(body):len(body)], '\n')}
			c.lru.Put(key, p)
			return p, nil
		}
		var err error
		p, err = c.flight.Do(key+"\x00"+strconv.FormatUint(gen, 10), keep)
		if err != nil {
			return err
		}
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("Content-Length")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(p.body)
	return nil
}
