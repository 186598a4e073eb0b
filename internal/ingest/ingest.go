// Package ingest is the worker that follows the chains of an avalanchego
// node and writes what it decodes into the store. Each batch of blocks is
// committed together with the chain's cursor, so a crash at any point
// resumes from the last committed block with nothing lost or doubled.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"golang.org/x/sync/errgroup"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/instrument"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
)

// Options tune the indexer; zero values take the defaults.
type Options struct {
	// PollInterval is the wait between asking the node for new blocks once
	// caught up.
	PollInterval time.Duration
	// BatchSize is how many blocks are committed per database transaction.
	BatchSize int
	// Fetchers is how many blocks are fetched from the node at once.
	Fetchers int
	// ProgressEvery is the interval of progress log lines while catching up.
	ProgressEvery time.Duration
}

func (o *Options) defaults() {
	if o.PollInterval == 0 {
		o.PollInterval = 250 * time.Millisecond
	}
	if o.BatchSize == 0 {
		o.BatchSize = 256
	}
	if o.Fetchers == 0 {
		o.Fetchers = 8
	}
	if o.ProgressEvery == 0 {
		o.ProgressEvery = 5 * time.Second
	}
}

// Indexer follows the P-chain of one node.
type Indexer struct {
	node    *node.Client
	network *internal.Network
	store   store.Store
	log     *slog.Logger
	opts    Options

	running atomic.Bool
	mu      sync.Mutex
	status  Status
}

// Status is what /readyz reports about the indexer.
type Status struct {
	Running bool              `json:"running"`
	Heights map[string]uint64 `json:"heights,omitempty"`
	Tips    map[string]uint64 `json:"tips,omitempty"`
	// LastError is the last failure, cleared by the next success.
	LastError string `json:"lastError,omitempty"`
}

// New returns an indexer of the chains of network, read from node n, into st.
func New(n *node.Client, network *internal.Network, st store.Store, log *slog.Logger, opts Options) *Indexer {
	opts.defaults()
	return &Indexer{node: n, network: network, store: st, log: log, opts: opts,
		status: Status{Heights: map[string]uint64{}, Tips: map[string]uint64{}}}
}

// Status returns a snapshot of the indexer's state.
func (ix *Indexer) Status() Status {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s := ix.status
	s.Running = ix.running.Load()
	s.Heights = cloneMap(s.Heights)
	s.Tips = cloneMap(s.Tips)
	return s
}

func cloneMap(m map[string]uint64) map[string]uint64 {
	out := make(map[string]uint64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Run follows the chains until ctx is done. Failures of the node or the
// store are logged and retried with backoff; Run returns only when ctx ends.
func (ix *Indexer) Run(ctx context.Context) error {
	ix.running.Store(true)
	defer ix.running.Store(false)
	// The node's container indexes are mirrored alongside (containers.go).
	defer ix.followIndexes(ctx)()
	defer ix.followChains(ctx)()
	backoff := ix.opts.PollInterval
	for {
		caughtUp, err := ix.stepP(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err == nil {
			ix.observeSupply(ctx)
		}
		wait := time.Duration(0)
		switch {
		case err != nil:
			ix.setError(err)
			ix.log.Warn("indexing the P-chain failed; retrying", "err", err, "in", backoff)
			wait = backoff
			backoff = min(backoff*2, 10*time.Second)
		case caughtUp:
			ix.setError(nil)
			backoff = ix.opts.PollInterval
			wait = ix.opts.PollInterval
		default:
			ix.setError(nil)
			backoff = ix.opts.PollInterval
		}
		if wait > 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
		}
	}
}

func (ix *Indexer) setError(err error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err == nil {
		ix.status.LastError = ""
	} else {
		ix.status.LastError = err.Error()
	}
}

func (ix *Indexer) setHeights(chain internal.Chain, height, tip uint64) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.status.Heights[string(chain)] = height
	ix.status.Tips[string(chain)] = tip
	instrument.SetIndexedHeight(string(chain), height)
}

// progress logs catch-up progress at most every ProgressEvery.
type progress struct {
	last       time.Time
	lastHeight uint64
}

// stepP indexes the P-chain up to the node's current tip in batches; it
// reports whether it was already caught up.
func (ix *Indexer) stepP(ctx context.Context) (caughtUp bool, err error) {
	next := uint64(0)
	cur, ok, err := ix.store.Cursor(ctx, internal.PChain)
	if err != nil {
		return false, err
	}
	if ok {
		next = cur + 1
	}
	tip, err := ix.node.PHeight(ctx)
	if err != nil {
		return false, err
	}
	if ok {
		ix.setHeights(internal.PChain, cur, tip)
	}
	if next > tip {
		return true, nil
	}
	var parent ids.ID
	if ok {
		prev, err := ix.store.PBlockByHeight(ctx, cur)
		if err != nil {
			return false, fmt.Errorf("reading the last indexed P-chain block: %w", err)
		}
		parent = prev.ID
	}
	p := progress{last: time.Now(), lastHeight: next}
	for next <= tip {
		end := min(tip, next+uint64(ix.opts.BatchSize)-1)
		blocks, err := ix.fetchP(ctx, next, end)
		if err != nil {
			return false, err
		}
		for _, b := range blocks {
			if b.Height > 0 && b.ParentID != parent {
				return false, fmt.Errorf("P-chain block %s at height %d has parent %s, but the block stored at height %d is %s",
					b.ID, b.Height, b.ParentID, b.Height-1, parent)
			}
			parent = b.ID
		}
		if err := ix.store.ApplyPBlocks(ctx, blocks); err != nil {
			return false, fmt.Errorf("storing P-chain blocks %d-%d: %w", next, end, err)
		}
		ix.setHeights(internal.PChain, end, tip)
		next = end + 1
		if since := time.Since(p.last); since >= ix.opts.ProgressEvery {
			rate := float64(end+1-p.lastHeight) / since.Seconds()
			ix.log.Info("indexing the P-chain", "height", end, "tip", tip, "blocksPerSecond", int(rate))
			p = progress{last: time.Now(), lastHeight: end + 1}
		}
	}
	return false, nil
}

// fetchP fetches and decodes blocks from..to (inclusive) with up to
// Fetchers requests in flight.
func (ix *Indexer) fetchP(ctx context.Context, from, to uint64) ([]*internal.PBlock, error) {
	blocks := make([]*internal.PBlock, to-from+1)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(ix.opts.Fetchers)
	for h := from; h <= to; h++ {
		g.Go(func() error {
			b, err := ix.node.PBlockByHeight(gctx, h)
			if err != nil {
				return err
			}
			pb, err := pchain.Decode(h, b)
			if err != nil {
				return err
			}
			// The reward UTXOs of its RewardValidatorTxs (node/rewards.go).
			if err := ix.node.AttachRewardUTXOs(gctx, []*internal.PBlock{pb}); err != nil {
				return err
			}
			blocks[h-from] = pb
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return blocks, nil
}

// observeSupply records the node's platform.getCurrentSupply answer for the
// primary network when the node's height is the height just indexed, so
// that avaindex serves the supply that goes with what it indexed. The
// supply is not derived from the blocks: it starts from the genesis supply
// and moves by stakers' potential rewards, computed with the node's reward
// configuration, and neither is in any block (see store.PStateStore).
// Failures are logged only: the supply is retried at the next height.
func (ix *Indexer) observeSupply(ctx context.Context) {
	cur, ok, err := ix.store.Cursor(ctx, internal.PChain)
	if err != nil || !ok {
		return
	}
	if _, h, err := ix.store.Supply(ctx, constants.PrimaryNetworkID); err == nil && h >= cur {
		return
	}
	var reply platformvm.GetCurrentSupplyReply
	args := platformvm.GetCurrentSupplyArgs{SubnetID: constants.PrimaryNetworkID}
	if err := ix.node.Call(ctx, "/ext/bc/P", "platform.getCurrentSupply", args, &reply); err != nil {
		ix.log.Debug("reading the node's current supply", "err", err)
		return
	}
	if uint64(reply.Height) != cur {
		return // the node moved on: observe at the next indexed height
	}
	if err := ix.store.PutSupply(ctx, constants.PrimaryNetworkID, cur, uint64(reply.Supply)); err != nil {
		ix.log.Warn("storing the node's current supply", "err", err)
	}
}
