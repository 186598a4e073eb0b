package derive

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/cchain"
	"github.com/avaindex/avaindex/internal/derive/cstate"
	"github.com/avaindex/avaindex/internal/derive/pstate"
	"github.com/avaindex/avaindex/internal/derive/xstate"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/xchain"
)

// RederiveSource is what a rederive calls of the store: the rederive's
// state, what is stored of the chain, and the batch applies that move the
// rederive's cursor (see store.RederiveStore). store.Store satisfies it.
type RederiveSource interface {
	PendingRederives(ctx context.Context) ([]store.Rederive, error)
	StartRederive(ctx context.Context, chain internal.Chain) (store.Rederive, error)

	StoredPBlocks(ctx context.Context, from uint64, n int) ([]store.StoredBlock, error)
	RederivePBlocks(ctx context.Context, batch *internal.PBatch, derive store.PDerivation) (store.Rederive, error)
	StoredXBlocks(ctx context.Context, from uint64, n int) ([]store.StoredBlock, error)
	RederiveXBlocks(ctx context.Context, blocks []*internal.XBlockData, derive store.XDerivation) (store.Rederive, error)
	RederiveXDAGTxs(ctx context.Context, txs []*internal.XDAGTxData, derive store.XDAGDerivation) (store.Rederive, error)
	StoredCAtomicBlocks(ctx context.Context, from uint64, n int) ([]store.StoredCBlock, error)
	RederiveCBlocks(ctx context.Context, first, last uint64, blocks []*internal.CBlockData, derive store.CDerivation) (store.Rederive, error)

	// Setting reads the stored network (store.NetworkSetting), whose
	// X-chain genesis the X-chain's rederive needs.
	Setting(ctx context.Context, key string) ([]byte, bool, error)
	// ContainerRange reads the mirrored X/tx containers, the X-chain's
	// DAG txs.
	ContainerRange(ctx context.Context, index string, first, last uint64) ([]store.Container, error)
}

// RederiveOptions tune a rederive.
type RederiveOptions struct {
	// BatchSize is the blocks applied per transaction; 0 means
	// DefaultBatchSize.
	BatchSize int
	// BatchRecords also ends a batch once its blocks hold this many txs
	// (0 means DefaultBatchRecords), as the indexer bounds its batches:
	// a batch of BatchSize heavy blocks would hold too much at once.
	BatchRecords int
	// ProgressEvery is how often progress is logged; 0 means 10s.
	ProgressEvery time.Duration
	// OnBatch, when set, is called after each committed batch.
	OnBatch func(store.Rederive)
	// NetworkGenesis is the network's genesis bytes when avalanchego does
	// not build it in (Options.NetworkGenesis).
	NetworkGenesis []byte
}

// A rederive batches as the indexer does (ingest.DefaultBatchSize and
// ingest.DefaultBatchRecords; a test in internal/service holds them
// equal): the commit's writes and the per-batch reads are paid once for
// more blocks.
const (
	DefaultBatchSize    = 1024
	DefaultBatchRecords = 16_384
)

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

// Rederive writes the derived state of chain again from what is stored
// of it (blocks; the X-chain's mirrored DAG txs too), decoded with the
// chain's package as the indexer decodes the node's (the P-chain's reward
// UTXOs from the store, where the indexer keeps what the node reported),
// in batches that each commit with the rederive's cursor: a rederive cut
// short resumes where it stopped. It must run under the indexer lease:
// the chain's indexer may not write meanwhile. A rederive must be asked
// for first (store.RequestRederive).
func Rederive(ctx context.Context, st RederiveSource, chain internal.Chain, log *slog.Logger, opts RederiveOptions) error {
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.BatchRecords <= 0 {
		opts.BatchRecords = DefaultBatchRecords
	}
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = 10 * time.Second
	}
	var step func(ctx context.Context, r store.Rederive, n int) (store.Rederive, int, error)
	switch chain {
	case internal.PChain:
		step = (&pRederive{st: st, records: opts.BatchRecords}).step
	case internal.XChain:
		g, err := storedXGenesis(ctx, st, opts.NetworkGenesis)
		if err != nil {
			return err
		}
		step = (&xRederive{st: st, genesis: g, records: opts.BatchRecords}).step
	case internal.CChain:
		step = (&cRederive{st: st, records: opts.BatchRecords}).step
	default:
		return fmt.Errorf("rederive: the %s-chain cannot be rederived (the P-, X- and C-chains can)", chain)
	}
	r, err := st.StartRederive(ctx, chain)
	if err != nil {
		return err
	}
	if r.Done {
		log.Info("rederive: nothing stored to derive from", "chain", chain)
		return nil
	}
	log.Info("rederiving the derived state from what is stored", "chain", chain, "phase", r.Phase, "from", r.Next, "to", r.Target)
	start, progressAt := time.Now(), time.Now()
	applied, sinceLog := 0, 0
	for !r.Done {
		n := int(min(uint64(opts.BatchSize), r.Target-r.Next+1))
		var got int
		if r, got, err = step(ctx, r, n); err != nil {
			return err
		}
		applied += got
		sinceLog += got
		if opts.OnBatch != nil {
			opts.OnBatch(r)
		}
		if since := time.Since(progressAt); since >= opts.ProgressEvery && !r.Done {
			rate := float64(sinceLog) / since.Seconds()
			eta := time.Duration(float64(r.Left()) / max(rate, 1e-9) * float64(time.Second))
			log.Info("rederiving", "chain", chain, "phase", r.Phase, "at", r.Next, "to", r.Target,
				"perSecond", int(rate), "phaseEta", eta.Round(time.Second).String())
			progressAt, sinceLog = time.Now(), 0
		}
		if err := ctx.Err(); err != nil && !r.Done {
			return err
		}
	}
	took := time.Since(start)
	log.Info("rederived the derived state from what is stored", "chain", chain, "applied", applied,
		"took", took.Round(time.Millisecond).String(), "perSecond", int(float64(applied)/max(took.Seconds(), 1e-9)))
	return nil
}

// pRederive applies the stored P-chain blocks again, each option block
// linked to its proposal as the indexer links them.
type pRederive struct {
	st      RederiveSource
	records int // a batch's bound on txs (RederiveOptions.BatchRecords)
	last    *pchain.Block
}

func (p *pRederive) step(ctx context.Context, r store.Rederive, n int) (store.Rederive, int, error) {
	stored, err := p.st.StoredPBlocks(ctx, r.Next, n)
	if err != nil {
		return r, 0, err
	}
	if len(stored) == 0 || stored[0].Height != r.Next {
		return r, 0, fmt.Errorf("rederive: the stored P-chain block %d is missing", r.Next)
	}
	blocks, err := decodeBatch(stored, p.records, func(sb store.StoredBlock) (*pchain.Block, int, error) {
		b, err := decodeStoredPBlock(sb)
		if err != nil {
			return nil, 0, err
		}
		return b, len(b.Txs), nil
	})
	if err != nil {
		return r, 0, err
	}
	err = pchain.LinkProposals(blocks, func(h uint64, id ids.ID) (*pchain.Block, error) {
		if p.last != nil && p.last.Height == h && p.last.ID == id {
			return p.last, nil
		}
		sb, err := p.st.StoredPBlocks(ctx, h, 1)
		if err != nil {
			return nil, err
		}
		if len(sb) == 0 || sb[0].Height != h {
			return nil, fmt.Errorf("the stored P-chain block %d is missing", h)
		}
		return decodeStoredPBlock(sb[0])
	})
	if err != nil {
		return r, 0, fmt.Errorf("rederive: %w", err)
	}
	batch, err := pchain.Batch(blocks)
	if err != nil {
		return r, 0, fmt.Errorf("rederive: %w", err)
	}
	if r, err = p.st.RederivePBlocks(ctx, batch, pstate.Apply[*store.PTx]); err != nil {
		return r, 0, err
	}
	p.last = blocks[len(blocks)-1]
	return r, len(blocks), nil
}

// decodeBatch decodes stored blocks in order until they hold records txs
// (decode returns a block and its tx count); the rest is the next
// batch's. The first block is always taken.
func decodeBatch[B any](stored []store.StoredBlock, records int, decode func(store.StoredBlock) (B, int, error)) ([]B, error) {
	var (
		blocks []B
		txs    int
	)
	for _, sb := range stored {
		if txs >= records {
			break
		}
		b, n, err := decode(sb)
		if err != nil {
			return nil, err
		}
		blocks, txs = append(blocks, b), txs+n
	}
	return blocks, nil
}

// xRederive applies the X-chain's mirrored DAG txs, then its stored
// blocks, again, with the network's X-chain genesis as the indexer does.
type xRederive struct {
	st      RederiveSource
	genesis *xchain.Genesis
	records int // a batch's bound on txs (RederiveOptions.BatchRecords)
}

func (x *xRederive) step(ctx context.Context, r store.Rederive, n int) (store.Rederive, int, error) {
	if r.Phase == store.RederiveDAG {
		n = min(n, x.records) // a container is a tx
		cs, err := x.st.ContainerRange(ctx, store.XTxIndex, r.Next, r.Next+uint64(n)-1)
		if err != nil {
			return r, 0, err
		}
		if len(cs) == 0 || cs[0].Index != r.Next {
			return r, 0, fmt.Errorf("rederive: the mirrored X/tx container %d is missing", r.Next)
		}
		dtxs := make([]*xchain.DAGTx, len(cs))
		for i, c := range cs {
			if dtxs[i], err = xchain.DecodeDAGTx(c.Index, c.ID, c.Bytes, c.Timestamp, x.genesis); err != nil {
				return r, 0, fmt.Errorf("rederive: %w", err)
			}
		}
		r, err = x.st.RederiveXDAGTxs(ctx, xchain.DAGTxsData(dtxs), xstate.ApplyDAG[*store.DAGTx])
		return r, len(dtxs), err
	}
	stored, err := x.st.StoredXBlocks(ctx, r.Next, n)
	if err != nil {
		return r, 0, err
	}
	if len(stored) == 0 || stored[0].Height != r.Next {
		return r, 0, fmt.Errorf("rederive: the stored X-chain block %d is missing", r.Next)
	}
	blocks, err := decodeBatch(stored, x.records, func(sb store.StoredBlock) (*xchain.Block, int, error) {
		b, err := xchain.Decode(sb.Height, sb.Bytes, x.genesis)
		if err != nil {
			return nil, 0, fmt.Errorf("rederive: %w", err)
		}
		return b, len(b.Txs), nil
	})
	if err != nil {
		return r, 0, err
	}
	r, err = x.st.RederiveXBlocks(ctx, xchain.BlocksData(blocks), xstate.Apply[*store.XTx])
	return r, len(blocks), err
}

// cRederive applies the C-chain's stored atomic txs again: only they are
// stored of its blocks, so a batch is the range of heights up to the n-th
// block with any (or the first whose txs reach the records bound), or to
// the cursor.
type cRederive struct {
	st      RederiveSource
	records int // a batch's bound on atomic txs (RederiveOptions.BatchRecords)
}

func (c *cRederive) step(ctx context.Context, r store.Rederive, n int) (store.Rederive, int, error) {
	stored, err := c.st.StoredCAtomicBlocks(ctx, r.Next, n)
	if err != nil {
		return r, 0, err
	}
	txs := 0
	for i, sb := range stored {
		if txs += len(sb.Txs); txs >= c.records {
			stored, n = stored[:i+1], i+1
			break
		}
	}
	last := r.Target
	if len(stored) == n && stored[n-1].Height < last {
		last = stored[n-1].Height
	}
	var blocks []*cchain.Block
	for _, sb := range stored {
		if sb.Height > last {
			break
		}
		b := &cchain.Block{Height: sb.Height, Hash: sb.Hash, Timestamp: sb.Timestamp}
		for _, raw := range sb.Txs {
			t, err := cchain.DecodeAtomicTx(raw)
			if err != nil {
				return r, 0, fmt.Errorf("rederive: C-chain block %d: %w", sb.Height, err)
			}
			b.AtomicTxs = append(b.AtomicTxs, t)
		}
		blocks = append(blocks, b)
	}
	from := r.Next
	r, err = c.st.RederiveCBlocks(ctx, from, last, blocks, cstate.Apply[*store.CTx])
	return r, int(last - from + 1), err
}

// storedXGenesis returns the X-chain genesis of the stored network, nil
// when it is not known (as the indexer's xGenesis).
func storedXGenesis(ctx context.Context, st RederiveSource, networkGenesis []byte) (*xchain.Genesis, error) {
	v, ok, err := st.Setting(ctx, store.NetworkSetting)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, nil
	}
	var n internal.Network
	if err := json.Unmarshal(v, &n); err != nil {
		return nil, fmt.Errorf("rederive: the stored network: %w", err)
	}
	g, ok, err := xchain.GenesisFor(n.XChainID, networkGenesis)
	if err != nil || !ok {
		return nil, err
	}
	return g, nil
}

// decodeStoredPBlock decodes a stored P-chain block as the indexer
// decodes the node's, with the reward UTXOs stored for it.
func decodeStoredPBlock(sb store.StoredBlock) (*pchain.Block, error) {
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
