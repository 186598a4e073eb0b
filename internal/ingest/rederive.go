package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
)

// RederiveSource is what a rederive reads and writes of the store.
type RederiveSource interface {
	store.RederiveStore
}

// RederiveOptions tune a rederive.
type RederiveOptions struct {
	// BatchSize is the blocks applied per transaction; 0 means 256.
	BatchSize int
	// ProgressEvery is how often progress is logged; 0 means 10s.
	ProgressEvery time.Duration
	// OnBatch, when set, is called after each committed batch.
	OnBatch func(store.Rederive)
}

// RunPendingRederives runs every rederive asked for (by a migration,
// store.RequestRederive or `avaindex rederive`) or cut short, to its end.
// The caller holds the indexer lease, and runs the indexer after it.
func RunPendingRederives(ctx context.Context, st RederiveSource, log *slog.Logger, opts RederiveOptions) error {
	pending, err := st.PendingRederives(ctx)
	if err != nil {
		return err
	}
	for _, r := range pending {
		if err := Rederive(ctx, st, r.Chain, log, opts); err != nil {
			return err
		}
	}
	return nil
}

// Rederive writes the derived state of chain again from the blocks
// stored, decoded with the chain's package as the indexer decodes the
// node's (the reward UTXOs from the store, where the indexer keeps what
// the node reported), in batches that each commit with the rederive's
// cursor: a rederive cut short resumes where it stopped. It must run
// under the indexer lease: the chain's indexer may not write meanwhile.
// A rederive must be asked for first (store.RequestRederive).
func Rederive(ctx context.Context, st RederiveSource, chain internal.Chain, log *slog.Logger, opts RederiveOptions) error {
	if opts.BatchSize <= 0 {
		opts.BatchSize = 256
	}
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = 10 * time.Second
	}
	if chain != internal.PChain {
		return fmt.Errorf("rederive: the %s-chain cannot be rederived (only the P-chain can)", chain)
	}
	r, err := st.StartRederive(ctx, chain)
	if err != nil {
		return err
	}
	if r.Done {
		log.Info("rederive: nothing stored to derive from", "chain", chain)
		return nil
	}
	log.Info("rederiving the derived state from the stored blocks", "chain", chain, "from", r.Next, "to", r.Target)
	start, progressAt := time.Now(), time.Now()
	first, applied, sinceLog := r.Next, 0, 0
	var last *pchain.Block
	for !r.Done {
		stored, err := st.StoredPBlocks(ctx, r.Next, int(min(uint64(opts.BatchSize), r.Target-r.Next+1)))
		if err != nil {
			return err
		}
		if len(stored) == 0 || stored[0].Height != r.Next {
			return fmt.Errorf("rederive: the stored P-chain block %d is missing", r.Next)
		}
		blocks := make([]*pchain.Block, len(stored))
		for i, sb := range stored {
			if blocks[i], err = decodeStoredPBlock(sb); err != nil {
				return err
			}
		}
		err = pchain.LinkProposals(blocks, func(h uint64, id ids.ID) (*pchain.Block, error) {
			if last != nil && last.Height == h && last.ID == id {
				return last, nil
			}
			sb, err := st.StoredPBlocks(ctx, h, 1)
			if err != nil {
				return nil, err
			}
			if len(sb) == 0 || sb[0].Height != h {
				return nil, fmt.Errorf("the stored P-chain block %d is missing", h)
			}
			return decodeStoredPBlock(sb[0])
		})
		if err != nil {
			return fmt.Errorf("rederive: %w", err)
		}
		if r, err = st.RederivePBlocks(ctx, blocks); err != nil {
			return err
		}
		last = blocks[len(blocks)-1]
		applied += len(blocks)
		sinceLog += len(blocks)
		if opts.OnBatch != nil {
			opts.OnBatch(r)
		}
		if since := time.Since(progressAt); since >= opts.ProgressEvery && !r.Done {
			rate := float64(sinceLog) / since.Seconds()
			eta := time.Duration(float64(r.Target+1-r.Next) / rate * float64(time.Second))
			log.Info("rederiving", "chain", chain, "at", r.Next, "to", r.Target,
				"blocksPerSecond", int(rate), "eta", eta.Round(time.Second).String())
			progressAt, sinceLog = time.Now(), 0
		}
		if err := ctx.Err(); err != nil && !r.Done {
			return err
		}
	}
	took := time.Since(start)
	log.Info("rederived the derived state from the stored blocks", "chain", chain, "from", first, "to", r.Target,
		"blocks", applied, "took", took.Round(time.Millisecond).String(),
		"blocksPerSecond", int(float64(applied)/max(took.Seconds(), 1e-9)))
	return nil
}

// decodeStoredPBlock decodes a stored P-chain block as the indexer
// decodes the node's, with the reward UTXOs stored for it.
func decodeStoredPBlock(sb store.StoredPBlock) (*pchain.Block, error) {
	b, err := pchain.Decode(sb.Height, sb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("rederive: %w", err)
	}
	for _, staker := range b.RewardedStakers() {
		if err := b.SetRewardUTXOs(staker, sb.Rewards[staker]); err != nil {
			return nil, fmt.Errorf("rederive: %w", err)
		}
	}
	return b, nil
}
