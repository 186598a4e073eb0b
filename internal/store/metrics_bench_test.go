package store

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// transferBlocks returns n P-chain standard blocks from height from, one
// every 2 s, each with one BaseTx paying two of 10,000 addresses, built
// with avalanchego's constructors and decoded by pchain.
func transferBlocks(tb testing.TB, rng *rand.ChaCha8, from uint64, n int) []*pchain.Block {
	bs := make([]*pchain.Block, n)
	for i := range bs {
		h := from + uint64(i)
		var parent ids.ID
		rng.Read(parent[:])
		var outs []*avax.TransferableOutput
		for range 2 {
			var a ids.ShortID
			a[0], a[1] = byte(rng.Uint64()%100), byte(rng.Uint64()%100)
			outs = append(outs, &avax.TransferableOutput{Asset: avax.Asset{ID: ids.ID{1}},
				Out: &secp256k1fx.TransferOutput{Amt: 1 + h, OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{a}}}})
		}
		avax.SortTransferableOutputs(outs, txs.Codec)
		tx, err := txs.NewSigned(&txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.UnitTestID,
			BlockchainID: constants.PlatformChainID, Outs: outs}}, txs.Codec, nil)
		if err != nil {
			tb.Fatal(err)
		}
		blk, err := block.NewBanffStandardBlock(time.Unix(1_700_000_000+2*int64(h), 0), parent, h, []*txs.Tx{tx})
		if err != nil {
			tb.Fatal(err)
		}
		if bs[i], err = pchain.Decode(h, blk.Bytes()); err != nil {
			tb.Fatal(err)
		}
	}
	return bs
}

// BenchmarkRollupCost applies the same 40 batches of 256 blocks with the
// metrics rollup off and on, each to a fresh database, alternating within
// each iteration so that a change of the machine's load weighs on both, and
// reports both rates and the rollup's cost to ingestion.
func BenchmarkRollupCost(b *testing.B) {
	dbtest.Run(b, func(b *testing.B, dsn string) {
		const batches = 40
		rng := rand.NewChaCha8([32]byte{2})
		var all [][]*pchain.Block
		for i := range batches {
			all = append(all, transferBlocks(b, rng, uint64(i*benchBatch), benchBatch))
		}
		withMetrics := pAppliers
		without := slices.Clone(pAppliers[:len(pAppliers)-1]) // applyPMetrics is last
		defer func() { pAppliers = withMetrics }()
		var took [2]time.Duration
		blocks := 0
		for b.Loop() {
			for mode, appliers := range [][]pApplier{without, withMetrics} {
				fresh := dbtest.SQLite(b)
				if !strings.HasPrefix(dsn, "sqlite:") {
					fresh = dbtest.Postgres(b)
				}
				s := openStore(b, fresh)
				pAppliers = appliers
				start := time.Now()
				for _, bs := range all {
					if err := s.ApplyPBlocks(context.Background(), bs); err != nil {
						b.Fatal(err)
					}
				}
				took[mode] += time.Since(start)
				s.Close()
			}
			blocks += batches * benchBatch
		}
		b.ReportMetric(float64(blocks)/took[0].Seconds(), "off-blocks/s")
		b.ReportMetric(float64(blocks)/took[1].Seconds(), "on-blocks/s")
		b.ReportMetric(100*(took[1].Seconds()/took[0].Seconds()-1), "cost-%")
	})
}
