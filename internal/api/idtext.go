package api

import (
	"sync"

	"github.com/ava-labs/avalanchego/ids"
)

// maxIDTexts bounds idTexts: about 6 MB of ids and their text.
const maxIDTexts = 1 << 16

// idTexts remembers the cb58 text of ids rendered again and again (the
// block and tx ids of the latest pages): base58 is the largest cost of a
// page of blocks. When full it is emptied, so it holds the ids of recent
// requests and never grows past maxIDTexts.
type idTexts struct {
	mu sync.RWMutex
	m  map[ids.ID]string
}

func (c *idTexts) text(id ids.ID) string {
	c.mu.RLock()
	s, ok := c.m[id]
	c.mu.RUnlock()
	if ok {
		return s
	}
	s = cb58ID(id)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxIDTexts {
		c.m = make(map[ids.ID]string, 1024)
	}
	c.m[id] = s
	c.mu.Unlock()
	return s
}
