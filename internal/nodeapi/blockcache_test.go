package nodeapi

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/derrors"
)

// countingBlocks is a PlatformSource holding blocks at heights 0..tip
// that counts the store reads.
type countingBlocks struct {
	PlatformSource
	tip   uint64
	reads int
}

func blockAt(h uint64) (ids.ID, []byte) {
	b := bytes.Repeat([]byte{byte(h)}, 100)
	return ids.ID{byte(h), 1}, b
}

func (c *countingBlocks) PBlockBytesByHeight(_ context.Context, h uint64) (ids.ID, []byte, error) {
	c.reads++
	if h > c.tip {
		return ids.Empty, nil, derrors.NotFound
	}
	id, b := blockAt(h)
	return id, b, nil
}

func (c *countingBlocks) PBlockBytesByID(_ context.Context, id ids.ID) ([]byte, error) {
	c.reads++
	if id[1] != 1 || uint64(id[0]) > c.tip {
		return nil, derrors.NotFound
	}
	_, b := blockAt(uint64(id[0]))
	return b, nil
}

func TestBlockCache(t *testing.T) {
	ctx := context.Background()
	src := &countingBlocks{tip: 5}
	c := withBlockCache(src, 1<<20)
	for range 3 {
		id, b, err := c.PBlockBytesByHeight(ctx, 4)
		wantID, wantB := blockAt(4)
		if err != nil || id != wantID || !bytes.Equal(b, wantB) {
			t.Fatalf("height 4: %s %x %v", id, b, err)
		}
	}
	if src.reads != 1 {
		t.Fatalf("3 reads of height 4 reached the store %d times, want 1", src.reads)
	}
	// The block read by height is also known by id.
	id, _ := blockAt(4)
	if _, err := c.PBlockBytesByID(ctx, id); err != nil || src.reads != 1 {
		t.Fatalf("by id after by height: err %v, store reads %d, want 1", err, src.reads)
	}
	// What the store does not hold yet is asked again: it may be indexed
	// by the next call.
	for range 2 {
		if _, _, err := c.PBlockBytesByHeight(ctx, 6); !errors.Is(err, derrors.NotFound) {
			t.Fatalf("height 6: %v, want not found", err)
		}
	}
	if src.reads != 3 {
		t.Fatalf("store reads %d, want 3 (a miss is not kept)", src.reads)
	}
	src.tip = 6
	if _, _, err := c.PBlockBytesByHeight(ctx, 6); err != nil {
		t.Fatalf("height 6 once indexed: %v", err)
	}
}

// TestBlockCacheBounded: the cache keeps at most its budget; the least
// recently used blocks leave first.
func TestBlockCacheBounded(t *testing.T) {
	ctx := context.Background()
	src := &countingBlocks{tip: 200}
	c := withBlockCache(src, 2*20*(100+8+32)) // about 20 blocks per key
	for h := range uint64(200) {
		if _, _, err := c.PBlockBytesByHeight(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.byHeight.Len(); n > 20 || n == 0 {
		t.Fatalf("%d blocks kept by height, want 1..20", n)
	}
	before := src.reads
	if _, _, err := c.PBlockBytesByHeight(ctx, 0); err != nil || src.reads != before+1 {
		t.Fatalf("the oldest block was not evicted: err %v, reads %d → %d", err, before, src.reads)
	}
}
