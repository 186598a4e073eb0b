package ingest

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// readCounter counts the stored P-chain blocks read.
type readCounter struct {
	store.Store
	reads int
}

func (r *readCounter) PBlockByHeight(ctx context.Context, h uint64) (*internal.PBlock, error) {
	r.reads++
	return r.Store.PBlockByHeight(ctx, h)
}

// TestApplyPBlocksLinksProposal applies a proposal block and its commit
// in two batches: the commit's proposal comes from the previous batch, kept
// in memory, or, for an indexer that did not apply it (a restart), from
// the store, decoded.
func TestApplyPBlocksLinksProposal(t *testing.T) {
	owner := &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{{1}}}
	add, err := txs.NewSigned(&txs.AddValidatorTx{
		BaseTx:       txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.UnitTestID, BlockchainID: constants.PlatformChainID}},
		Validator:    txs.Validator{NodeID: ids.NodeID{1}, Start: 100, End: 200, Wght: 5},
		RewardsOwner: owner,
	}, txs.Codec, nil)
	if err != nil {
		t.Fatal(err)
	}
	var raw [][]byte
	parent := ids.ID{0xfe}
	for _, mk := range []func() (block.Block, error){
		func() (block.Block, error) { return block.NewApricotCommitBlock(parent, 0) },
		func() (block.Block, error) { return block.NewApricotProposalBlock(parent, 1, add) },
		func() (block.Block, error) { return block.NewApricotCommitBlock(parent, 2) },
	} {
		blk, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		raw = append(raw, blk.Bytes())
		parent = blk.ID()
	}
	decode := func(from, to int) []*pchain.Block {
		var bs []*pchain.Block
		for h := from; h < to; h++ {
			b, err := pchain.Decode(uint64(h), raw[h])
			if err != nil {
				t.Fatal(err)
			}
			bs = append(bs, b)
		}
		return bs
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		for _, restart := range []bool{false, true} {
			fresh := dbtest.SQLite(t)
			if !strings.HasPrefix(dsn, "sqlite:") {
				fresh = dbtest.Postgres(t)
			}
			st, err := store.Open(ctx, fresh)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			rc := &readCounter{Store: st}
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			ix := New(nil, &internal.Network{}, rc, log, Options{})
			if err := ix.applyPBlocks(ctx, decode(0, 2)); err != nil {
				t.Fatal(err)
			}
			if restart {
				ix = New(nil, &internal.Network{}, rc, log, Options{})
			}
			if err := ix.applyPBlocks(ctx, decode(2, 3)); err != nil {
				t.Fatal(err)
			}
			s, err := st.Staker(ctx, add.ID())
			if err != nil || s.Height != 2 || s.StartTime != 100 {
				t.Errorf("restart %t: staker %+v, %v; want added at the commit, height 2", restart, s, err)
			}
			if want := map[bool]int{false: 0, true: 1}[restart]; rc.reads != want {
				t.Errorf("restart %t: %d stored blocks read, want %d", restart, rc.reads, want)
			}
		}
	})
}
