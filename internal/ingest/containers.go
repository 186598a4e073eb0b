package ingest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
)

// reprobeEvery is how often a node that has no index is asked again
// whether it serves it (it may be restarted with --index-enabled).
const reprobeEvery = time.Minute

// followIndexes mirrors each of the node's container indexes into the
// store, one loop per index, until ctx is done; the returned function waits
// for them to stop.
func (ix *Indexer) followIndexes(ctx context.Context) (wait func()) {
	var wg sync.WaitGroup
	for _, name := range store.IndexNames {
		src := store.SourceUnknown
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix.loop(ctx, "index "+name, ix.guarded(func(ctx context.Context) (bool, error) {
				caughtUp, err := ix.stepIndex(ctx, name, &src)
				if errors.Is(err, node.ErrNoIndex) {
					return false, &idleError{wait: reprobeEvery}
				}
				return caughtUp, err
			}))
		}()
	}
	return wg.Wait
}

// stepIndex copies the containers of index name that the node accepted
// beyond the store's cursor, in batches of up to 1024 each committed with
// the cursor. src is the source last recorded for the index; the store is
// told when it changes. It reports whether it was already caught up; a
// node without the index gives node.ErrNoIndex.
func (ix *Indexer) stepIndex(ctx context.Context, name string, src *store.IndexSource) (caughtUp bool, err error) {
	tip, nonEmpty, err := ix.node.IndexLast(ctx, name)
	newSrc := store.SourceNode
	if errors.Is(err, node.ErrNoIndex) {
		newSrc = store.SourceNone
	} else if err != nil {
		return false, err
	}
	if newSrc != *src {
		if err := ix.store.SetIndexSource(ctx, name, newSrc); err != nil {
			return false, err
		}
		if newSrc == store.SourceNone {
			ix.log.Info("the node does not serve this index; not mirroring it", "index", name)
		}
		*src = newSrc
	}
	if newSrc == store.SourceNone {
		return false, err
	}
	key := store.IndexCursor(name)
	next := uint64(0)
	cur, ok, err := ix.store.Cursor(ctx, key)
	if err != nil {
		return false, err
	}
	if ok {
		next = cur + 1
		ix.setHeights(key, cur, max(tip, cur))
	}
	if !nonEmpty || next > tip {
		return true, nil
	}
	if ok {
		if err := ix.continuesIndex(ctx, name, cur); err != nil {
			return false, err
		}
	}
	progressAt, progressFrom := time.Now(), next
	for next <= tip {
		cs, err := ix.node.IndexRange(ctx, name, next, node.MaxContainersPerCall)
		if err != nil {
			return false, err
		}
		if len(cs) == 0 {
			return false, fmt.Errorf("index %s: the node has no container at %d but reported %d as its last", name, next, tip)
		}
		batch := make([]store.Container, len(cs))
		for i, c := range cs {
			batch[i] = store.Container{Index: c.Index, ID: c.ID, Bytes: c.Bytes, Timestamp: c.Timestamp}
		}
		if err := ix.store.ApplyContainers(ctx, name, batch); err != nil {
			return false, fmt.Errorf("storing containers %d-%d of index %s: %w", next, next+uint64(len(cs))-1, name, err)
		}
		end := next + uint64(len(cs)) - 1
		tip = max(tip, end)
		ix.setHeights(key, end, tip)
		ix.applied(key, len(cs))
		next = end + 1
		if since := time.Since(progressAt); since >= ix.opts.ProgressEvery {
			rate := float64(next-progressFrom) / since.Seconds()
			ix.log.Info("mirroring a node index", "index", name, "at", end, "last", tip, "containersPerSecond", int(rate))
			progressAt, progressFrom = time.Now(), next
		}
	}
	return false, nil
}

// continuesIndex checks that the node's container at index cur is the
// stored one, before containers beyond it are mirrored: a node replaced by
// one of the same network with another history (another local network)
// numbers other containers, and none of them may be stored.
func (ix *Indexer) continuesIndex(ctx context.Context, name string, cur uint64) error {
	stored, err := ix.store.ContainerRange(ctx, name, cur, cur)
	if err != nil {
		return err
	}
	if len(stored) != 1 {
		return nil // not kept (nothing to compare)
	}
	cs, err := ix.node.IndexRange(ctx, name, cur, 1)
	if err != nil {
		return err
	}
	if len(cs) != 1 || cs[0].ID != stored[0].ID {
		got := "none"
		if len(cs) == 1 {
			got = cs[0].ID.String()
		}
		return fmt.Errorf("the node's container %d is %s, but the stored one is %s (a node of another history?); not mirroring it",
			cur, got, stored[0].ID)
	}
	return nil
}
