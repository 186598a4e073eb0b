package nodeapi

import (
	"context"

	"github.com/ava-labs/avalanchego/cache/lru"
	"github.com/ava-labs/avalanchego/ids"
)

// blockCacheBytes bounds the P-chain blocks the platform service keeps in
// memory. A P-chain block is final once indexed, so its bytes never
// change; the busiest reads (platform.getBlockByHeight, getBlock) then
// cost no store round trip, which on PostgreSQL is most of their time.
const blockCacheBytes = 32 << 20

// cachedPBlocks is a PlatformSource whose block reads go through a cache.
// Only what the store found is kept: a height not indexed yet is asked
// again next time.
type cachedPBlocks struct {
	PlatformSource
	byHeight *lru.SizedCache[uint64, heightBlock]
	byID     *lru.SizedCache[ids.ID, []byte]
}

type heightBlock struct {
	id    ids.ID
	bytes []byte
}

func withBlockCache(src PlatformSource, maxBytes int) *cachedPBlocks {
	// Each block is kept under both keys (one backing array); half the
	// budget each.
	return &cachedPBlocks{
		PlatformSource: src,
		byHeight:       lru.NewSizedCache(maxBytes/2, func(_ uint64, b heightBlock) int { return 8 + len(b.id) + len(b.bytes) }),
		byID:           lru.NewSizedCache(maxBytes/2, func(id ids.ID, b []byte) int { return len(id) + len(b) }),
	}
}

func (c *cachedPBlocks) PBlockBytesByHeight(ctx context.Context, height uint64) (ids.ID, []byte, error) {
	if b, ok := c.byHeight.Get(height); ok {
		return b.id, b.bytes, nil
	}
	id, b, err := c.PlatformSource.PBlockBytesByHeight(ctx, height)
	if err != nil {
		return id, b, err
	}
	c.byHeight.Put(height, heightBlock{id, b})
	c.byID.Put(id, b)
	return id, b, nil
}

func (c *cachedPBlocks) PBlockBytesByID(ctx context.Context, id ids.ID) ([]byte, error) {
	if b, ok := c.byID.Get(id); ok {
		return b, nil
	}
	b, err := c.PlatformSource.PBlockBytesByID(ctx, id)
	if err != nil {
		return b, err
	}
	c.byID.Put(id, b)
	return b, nil
}
