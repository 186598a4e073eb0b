package ingest

import (
	"context"
	"fmt"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/cchain"
	"github.com/avaindex/avaindex/internal/derive/cstate"
	"github.com/avaindex/avaindex/internal/derive/pstate"
	"github.com/avaindex/avaindex/internal/derive/xstate"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/xchain"
)

// xGenesis returns the genesis of the network's X-chain, nil when it is
// not known (see xchain.GenesisFor): the X-chain then starts empty.
func (ix *Indexer) xGenesis() (*xchain.Genesis, error) {
	g, ok, err := xchain.GenesisFor(ix.network.XChainID, ix.opts.NetworkGenesis)
	if err != nil || !ok {
		return nil, err
	}
	return g, nil
}

func (ix *Indexer) xFollower(g *xchain.Genesis) follower[*xchain.Block] {
	return follower[*xchain.Block]{
		key:  store.ChainCursor(internal.XChain),
		name: "X-chain",
		tip:  ix.node.XHeight,
		fetch: func(ctx context.Context, h uint64) (*xchain.Block, error) {
			b, err := ix.node.XBlockByHeight(ctx, h)
			if err != nil {
				return nil, err
			}
			return xchain.Decode(h, b, g)
		},
		link: func(b *xchain.Block) (ids.ID, ids.ID) { return b.ID, b.ParentID },
		storedID: func(ctx context.Context, h uint64) (ids.ID, error) {
			b, err := ix.store.XBlockByHeight(ctx, h)
			if err != nil {
				return ids.Empty, err
			}
			return b.ID, nil
		},
		apply: func(ctx context.Context, bs []*xchain.Block) error {
			return ix.store.ApplyXBlocks(ctx, xchain.BlocksData(bs), xstate.Apply[*store.XTx])
		},
		records: func(b *xchain.Block) int { return len(b.Txs) },
	}
}

// cFollower reads every C-chain block and keeps its atomic txs.
func (ix *Indexer) cFollower() follower[*cchain.Block] {
	return follower[*cchain.Block]{
		key:  store.ChainCursor(internal.CChain),
		name: "C-chain",
		tip:  ix.node.CHeight,
		fetch: func(ctx context.Context, h uint64) (*cchain.Block, error) {
			hdr, err := ix.node.CBlockByNumber(ctx, h)
			if err != nil {
				return nil, err
			}
			txs, err := cchain.AtomicTxs(ix.network.ID, hdr.Timestamp, hdr.ExtData)
			if err != nil {
				return nil, err
			}
			return &cchain.Block{Height: h, Hash: hdr.Hash, Parent: hdr.Parent, Timestamp: hdr.Timestamp, AtomicTxs: txs}, nil
		},
		link: func(b *cchain.Block) (ids.ID, ids.ID) { return b.Hash, b.Parent },
		// Only the cursor's block hash is kept of blocks without atomic txs.
		storedID: func(ctx context.Context, _ uint64) (ids.ID, error) { return ix.store.CLastHash(ctx) },
		apply: func(ctx context.Context, bs []*cchain.Block) error {
			return ix.store.ApplyCBlocks(ctx, bs, cstate.Apply[*store.CTx])
		},
		records: func(b *cchain.Block) int { return len(b.AtomicTxs) },
	}
}

func (ix *Indexer) pFollower() follower[*pchain.Block] {
	return follower[*pchain.Block]{
		key:  store.ChainCursor(internal.PChain),
		name: "P-chain",
		tip:  ix.node.PHeight,
		fetch: func(ctx context.Context, h uint64) (*pchain.Block, error) {
			b, err := ix.node.PBlockByHeight(ctx, h)
			if err != nil {
				return nil, err
			}
			pb, err := pchain.Decode(h, b)
			if err != nil {
				return nil, err
			}
			if err := attachRewardUTXOs(ctx, ix.node, pb); err != nil {
				return nil, err
			}
			return pb, nil
		},
		link: func(b *pchain.Block) (ids.ID, ids.ID) { return b.ID, b.ParentID },
		storedID: func(ctx context.Context, h uint64) (ids.ID, error) {
			b, err := ix.store.PBlockByHeight(ctx, h)
			if err != nil {
				return ids.Empty, err
			}
			return b.ID, nil
		},
		apply:   ix.applyPBlocks,
		records: func(b *pchain.Block) int { return len(b.Txs) },
	}
}

// applyPBlocks stores a batch of P-chain blocks, each option block linked
// to the proposal block it decides: the block before it in the batch, or
// for a batch that starts with an option block, the previous batch's last
// block, kept from its apply, or after a restart the stored block, decoded.
func (ix *Indexer) applyPBlocks(ctx context.Context, blocks []*pchain.Block) error {
	err := pchain.LinkProposals(blocks, func(h uint64, id ids.ID) (*pchain.Block, error) {
		if last := ix.lastP; last != nil && last.Height == h && last.ID == id {
			return last, nil
		}
		stored, err := ix.store.PBlockByHeight(ctx, h)
		if err != nil {
			return nil, err
		}
		return pchain.Decode(h, stored.Bytes)
	})
	if err != nil {
		return err
	}
	// The staking and subnet changes and the replays are derived here,
	// from the decoded blocks; the store writes what they yield.
	batch, err := pchain.Batch(blocks)
	if err != nil {
		return err
	}
	if err := ix.store.ApplyPBlocks(ctx, batch, pstate.Apply[*store.PTx]); err != nil {
		return err
	}
	if len(blocks) > 0 {
		ix.lastP = blocks[len(blocks)-1]
	}
	return nil
}

// stepXDAG decodes the X/tx containers mirrored from the node (the
// X-chain's pre-Cortina txs) into DAG txs and their UTXO changes, in
// batches, until it has caught up with the mirror (mainnet has millions).
// It reports whether it was caught up already.
func (ix *Indexer) stepXDAG(ctx context.Context) (caughtUp bool, err error) {
	g, err := ix.xGenesis()
	if err != nil {
		return false, err
	}
	return ix.stepMirrored(ctx, store.XDAGCursor, store.XTxIndex, "DAG txs",
		func(ctx context.Context) (int, error) { return ix.applyXDAG(ctx, g) })
}

// stepMirrored runs apply, which decodes and applies the next batch of an
// index's mirrored containers beyond cursor (0 when caught up), until it
// has caught up with the mirror, reporting the cursor's height and tip and
// logging its progress (what it decodes, per second) on long runs. It
// reports whether it was caught up already.
func (ix *Indexer) stepMirrored(ctx context.Context, cursor store.CursorKey, index, what string,
	apply func(context.Context) (int, error)) (caughtUp bool, err error) {
	progressAt, applied := time.Now(), 0
	for first := true; ; first = false {
		n, err := apply(ctx)
		if err != nil || n == 0 {
			return first && err == nil, err
		}
		applied += n
		done, _, err := ix.store.Cursor(ctx, cursor)
		if err != nil {
			return false, err
		}
		mirrored, _, err := ix.store.Cursor(ctx, store.IndexCursor(index))
		if err != nil {
			return false, err
		}
		ix.setHeights(cursor, done, max(done, mirrored))
		ix.applied(cursor, n)
		if since := time.Since(progressAt); since >= ix.opts.ProgressEvery {
			ix.log.Info("decoding the X-chain's "+what, "at", done, "mirrored", mirrored,
				"perSecond", int(float64(applied)/since.Seconds()))
			progressAt, applied = time.Now(), 0
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
	}
}

// applyXDAG decodes and applies the next batch of mirrored X/tx containers
// beyond the DAG cursor; g is the X-chain's genesis, nil when unknown. It
// returns how many it applied: 0 when caught up with the mirror.
func (ix *Indexer) applyXDAG(ctx context.Context, g *xchain.Genesis) (int, error) {
	cs, err := ix.store.XDAGContainers(ctx, ix.opts.BatchSize)
	if err != nil || len(cs) == 0 {
		return 0, err
	}
	dtxs := make([]*xchain.DAGTx, len(cs))
	for i, c := range cs {
		if dtxs[i], err = xchain.DecodeDAGTx(c.Index, c.ID, c.Bytes, c.Timestamp, g); err != nil {
			return 0, err
		}
	}
	if err := ix.store.ApplyXDAGTxs(ctx, xchain.DAGTxsData(dtxs), xstate.ApplyDAG[*store.DAGTx]); err != nil {
		return 0, err
	}
	return len(cs), nil
}

// stepXVertices decodes the X/vtx containers mirrored from the node (the
// vertices of the X-chain's pre-Cortina DAG) into the txs each carried, in
// batches, until it has caught up with the mirror. It reports whether it
// was caught up already.
func (ix *Indexer) stepXVertices(ctx context.Context) (caughtUp bool, err error) {
	return ix.stepMirrored(ctx, store.XVtxCursor, store.XVtxIndex, "DAG vertices", ix.applyXVertices)
}

// applyXVertices decodes and applies the next batch of mirrored X/vtx
// containers beyond the vertex cursor. It returns how many it applied: 0
// when caught up with the mirror.
func (ix *Indexer) applyXVertices(ctx context.Context) (int, error) {
	cs, err := ix.store.XVertexContainers(ctx, ix.opts.BatchSize)
	if err != nil || len(cs) == 0 {
		return 0, err
	}
	vs := make([]*xchain.Vertex, len(cs))
	for i, c := range cs {
		if vs[i], err = xchain.DecodeVertex(c.Index, c.ID, c.Bytes, c.Timestamp); err != nil {
			return 0, err
		}
	}
	if err := ix.store.ApplyXVertices(ctx, vs); err != nil {
		return 0, err
	}
	return len(cs), nil
}

// attachRewardUTXOs sets the reward UTXOs of each RewardValidatorTx of b
// (pchain.Block.Rewards) from the node. A block is fetchable by height only
// once its whole decision (a proposal block and its commit or abort option)
// is committed by the node, with the reward UTXOs, so they are complete
// here.
func attachRewardUTXOs(ctx context.Context, n *node.Client, b *pchain.Block) error {
	for _, s := range b.RewardedStakers() {
		utxos, err := n.RewardUTXOs(ctx, s)
		if err != nil {
			return fmt.Errorf("reward UTXOs of staker %s (block %d): %w", s, b.Height, err)
		}
		if err := b.SetRewardUTXOs(s, utxos); err != nil {
			return fmt.Errorf("platform.getRewardUTXOs(%s): %w: %w", s, derrors.BadGateway, err)
		}
	}
	return nil
}
