package store

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// benchBatch is the batch size the ingester applies.
const benchBatch = 256

// benchBlocks returns n blocks from height from, like P-chain standard
// blocks: ~300 bytes and one AddPermissionlessDelegatorTx each, random
// node ids, built with avalanchego's constructors and decoded by pchain.
func benchBlocks(tb testing.TB, rng *rand.ChaCha8, from uint64, n int) []*pchain.Block {
	bs := make([]*pchain.Block, n)
	owner := &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{{1}}}
	for i := range bs {
		h := from + uint64(i)
		var node ids.NodeID
		var parent ids.ID
		rng.Read(node[:])
		rng.Read(parent[:])
		ts := time.Unix(1_700_000_000+int64(h), 0)
		tx, err := txs.NewSigned(&txs.AddPermissionlessDelegatorTx{
			BaseTx: txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.UnitTestID, BlockchainID: constants.PlatformChainID,
				Memo: make([]byte, 64)}},
			Validator:              txs.Validator{NodeID: node, End: uint64(ts.Unix()) + 3600, Wght: 1},
			Subnet:                 constants.PrimaryNetworkID,
			DelegationRewardsOwner: owner,
		}, txs.Codec, nil)
		if err != nil {
			tb.Fatal(err)
		}
		blk, err := block.NewBanffStandardBlock(ts, parent, h, []*txs.Tx{tx})
		if err != nil {
			tb.Fatal(err)
		}
		if bs[i], err = pchain.Decode(h, blk.Bytes()); err != nil {
			tb.Fatal(err)
		}
	}
	return bs
}

// BenchmarkApplyPBlocks applies batches of 256 blocks (one batch per
// iteration) to a database that grows as it runs, and reports blocks/s.
func BenchmarkApplyPBlocks(b *testing.B) {
	dbtest.Run(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		s := openStore(b, dsn)
		rng := rand.NewChaCha8([32]byte{1})
		var next uint64
		blocks := 0
		for b.Loop() {
			b.StopTimer()
			bs := benchBlocks(b, rng, next, benchBatch)
			b.StartTimer()
			if err := applyPBlocks(ctx, s, bs); err != nil {
				b.Fatal(err)
			}
			next += benchBatch
			blocks += benchBatch
		}
		b.ReportMetric(float64(blocks)/b.Elapsed().Seconds(), "blocks/s")
	})
}

// BenchmarkPBlockPage reads the Data API's page of the 10 latest P-chain
// blocks (the tip, then their summaries) from 1,024 stored blocks.
func BenchmarkPBlockPage(b *testing.B) {
	dbtest.Run(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		s := openStore(b, dsn)
		rng := rand.NewChaCha8([32]byte{1})
		for h := uint64(0); h < 1024; h += benchBatch {
			if err := applyPBlocks(ctx, s, benchBlocks(b, rng, h, benchBatch)); err != nil {
				b.Fatal(err)
			}
		}
		for b.Loop() {
			if _, ok, err := s.Cursor(ctx, ChainCursor(internal.PChain)); err != nil || !ok {
				b.Fatal(ok, err)
			}
			page, err := s.BlockSummaries(ctx, BlockQuery{Chain: internal.PChain, Desc: true}, nil, 10)
			if err != nil || len(page) != 10 {
				b.Fatal(len(page), err)
			}
		}
	})
}
