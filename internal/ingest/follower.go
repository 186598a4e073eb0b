package ingest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"golang.org/x/sync/errgroup"

	"github.com/avaindex/avaindex/internal/store"
)

// follower is how one linear chain is followed: B is the chain's decoded
// block type.
type follower[B any] struct {
	// key is the chain's cursor; name names the chain in logs and errors.
	key  store.CursorKey
	name string
	// tip returns the node's last accepted height.
	tip func(ctx context.Context) (uint64, error)
	// fetch fetches and decodes the accepted block at height.
	fetch func(ctx context.Context, height uint64) (B, error)
	// link returns a block's id and its parent's id.
	link func(b B) (id, parent ids.ID)
	// storedID returns the id of the stored block at height.
	storedID func(ctx context.Context, height uint64) (ids.ID, error)
	// apply stores a batch with the chain's cursor.
	apply func(ctx context.Context, blocks []B) error
	// records counts a block's records (its txs; on an EVM chain also its
	// logs and internal txs): a batch also ends once it holds
	// Options.BatchRecords of them, so that heavy blocks do not make a
	// batch of BatchSize blocks too big to hold.
	records func(b B) int
}

// idleError is a step's answer that there is nothing to do for a while
// (e.g. the node serves no such index): the loop waits, without logging.
type idleError struct{ wait time.Duration }

func (e *idleError) Error() string { return fmt.Sprintf("idle for %s", e.wait) }

// loop runs step until ctx is done: at once again while it makes progress,
// after PollInterval once caught up, and with backoff after failures.
func (ix *Indexer) loop(ctx context.Context, what string, step func(context.Context) (caughtUp bool, err error)) {
	backoff := ix.opts.PollInterval
	for {
		caughtUp, err := step(ctx)
		if ctx.Err() != nil {
			return
		}
		var idle *idleError
		if err == nil || errors.As(err, &idle) {
			ix.setError(what, nil)
		}
		wait := time.Duration(0)
		switch {
		case idle != nil:
			backoff = ix.opts.PollInterval
			wait = idle.wait
		case err != nil:
			ix.setError(what, err)
			ix.checkNetworkSoon() // a node on another network fails steps first
			ix.log.Warn("indexing failed; retrying", "what", what, "err", err, "in", backoff)
			wait = backoff
			backoff = min(backoff*2, 10*time.Second)
		case caughtUp:
			backoff = ix.opts.PollInterval
			wait = ix.opts.PollInterval
		default:
			backoff = ix.opts.PollInterval
		}
		if wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
	}
}

// follow indexes f's chain up to the node's current tip in batches; it
// reports whether it was already caught up.
func follow[B any](ctx context.Context, ix *Indexer, f follower[B]) (caughtUp bool, err error) {
	next := uint64(0)
	cur, ok, err := ix.store.Cursor(ctx, f.key)
	if err != nil {
		return false, err
	}
	if ok {
		next = cur + 1
	}
	tip, err := f.tip(ctx)
	if err != nil {
		return false, err
	}
	if ok {
		ix.setHeights(f.key, cur, tip)
	}
	if next > tip {
		return true, nil
	}
	var parent ids.ID
	if ok {
		if parent, err = f.storedID(ctx, cur); err != nil {
			return false, fmt.Errorf("reading the last indexed %s block: %w", f.name, err)
		}
	}
	// The next batch is fetched (and decoded) while one is applied, so
	// the node, the decoding and the store work at once.
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type fetched struct {
		blocks []B
		err    error
	}
	prefetch := func(from uint64) <-chan fetched {
		ch := make(chan fetched, 1)
		go func() {
			to := min(tip, from+uint64(ix.opts.BatchSize)-1)
			blocks, err := fetchRange(fctx, ix.opts.Fetchers, from, to, f.fetch, f.records, ix.opts.BatchRecords)
			ch <- fetched{blocks, err}
		}()
		return ch
	}
	pending := prefetch(next)
	progressAt, progressFrom := time.Now(), next
	for next <= tip {
		got := <-pending
		if got.err != nil {
			return false, got.err
		}
		end := next + uint64(len(got.blocks)) - 1
		if end < tip {
			pending = prefetch(end + 1)
		}
		blocks := got.blocks
		for i, b := range blocks {
			id, p := f.link(b)
			if h := next + uint64(i); h > 0 && p != parent {
				return false, fmt.Errorf("%s block %s at height %d has parent %s, but the block at height %d is %s",
					f.name, id, h, p, h-1, parent)
			}
			parent = id
		}
		if err := f.apply(ctx, blocks); err != nil {
			return false, fmt.Errorf("storing %s blocks %d-%d: %w", f.name, next, end, err)
		}
		ix.setHeights(f.key, end, tip)
		ix.applied(f.key, len(blocks))
		next = end + 1
		if since := time.Since(progressAt); since >= ix.opts.ProgressEvery {
			rate := float64(next-progressFrom) / since.Seconds()
			ix.log.Info("indexing", "chain", f.name, "height", end, "tip", tip, "blocksPerSecond", int(rate))
			progressAt, progressFrom = time.Now(), next
		}
	}
	return false, nil
}

// fetchRange fetches heights from..to (inclusive) with up to n requests in
// flight, in order. It asks for no further height once the blocks
// fetched hold maxRecords records, and returns the blocks of the heights
// asked (from on, at least one).
//
// n workers take the heights in turn, rather than a goroutine a height:
// decoding (avalanchego's reflect codec) runs deep, and a new goroutine
// grew its stack again for every block, a third of the fetchers' CPU in
// a P-chain catch-up (docs/benchmarks.md).
func fetchRange[B any](ctx context.Context, n int, from, to uint64, fetch func(context.Context, uint64) (B, error),
	records func(B) int, maxRecords int) ([]B, error) {
	out := make([]B, to-from+1)
	g, gctx := errgroup.WithContext(ctx)
	var (
		mu    sync.Mutex
		asked uint64 // heights from..from+asked-1 are taken
		held  int    // records of the blocks fetched
		done  bool   // no further height is asked
	)
	// take returns the next height's index. A worker takes one only
	// when it has none in flight, after reading the count, so the blocks
	// in flight past the bound are at most n-1.
	take := func() (uint64, bool) {
		mu.Lock()
		defer mu.Unlock()
		if done || asked == to-from+1 || (asked > 0 && held >= maxRecords) {
			done = true
			return 0, false
		}
		asked++
		return asked - 1, true
	}
	for range min(uint64(max(n, 1)), to-from+1) {
		g.Go(func() error {
			for {
				if err := gctx.Err(); err != nil {
					return err // another worker failed, or ctx is done
				}
				i, ok := take()
				if !ok {
					return nil
				}
				b, err := fetch(gctx, from+i)
				if err != nil {
					return err
				}
				out[i] = b
				mu.Lock()
				held += records(b)
				mu.Unlock()
			}
		})
	}
	if err := g.Wait(); err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return out[:asked], nil
}
