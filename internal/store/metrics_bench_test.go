package store

import (
	"context"
	"encoding/binary"
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

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/chainmetrics"
	"github.com/avaindex/avaindex/internal/derive/pstate"
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

// walletBlocks returns n P-chain standard blocks from height from, one
// every 2 s, each with one BaseTx that moves money on as wallets do: it
// spends the payment the tx before it made, pays one of 10,000 addresses
// drawn from a Zipf distribution (a few hot addresses, as exchanges and
// custodians are, and a long tail), and returns the change to its sender.
// Its first block's tx spends a UTXO the store does not hold (an import's
// would look the same); prev is the payment to spend, updated.
func walletBlocks(tb testing.TB, zipf *rand.Zipf, prev *walletUTXO, from uint64, n int) []*pchain.Block {
	bs := make([]*pchain.Block, n)
	for i := range bs {
		h := from + uint64(i)
		var parent ids.ID
		binary.BigEndian.PutUint64(parent[:], h)
		to := walletAddress(zipf.Uint64())
		pay := &avax.TransferableOutput{Asset: avax.Asset{ID: ids.ID{1}},
			Out: &secp256k1fx.TransferOutput{Amt: prev.amount / 2, OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{to}}}}
		change := &avax.TransferableOutput{Asset: avax.Asset{ID: ids.ID{1}},
			Out: &secp256k1fx.TransferOutput{Amt: prev.amount - prev.amount/2 - 1, OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{prev.owner}}}}
		outs := []*avax.TransferableOutput{pay, change}
		avax.SortTransferableOutputs(outs, txs.Codec)
		in := &avax.TransferableInput{UTXOID: prev.id, Asset: avax.Asset{ID: ids.ID{1}},
			In: &secp256k1fx.TransferInput{Amt: prev.amount, Input: secp256k1fx.Input{SigIndices: []uint32{0}}}}
		tx, err := txs.NewSigned(&txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.UnitTestID,
			BlockchainID: constants.PlatformChainID, Ins: []*avax.TransferableInput{in}, Outs: outs}}, txs.Codec, nil)
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
		idx := uint32(slices.Index(outs, pay))
		*prev = walletUTXO{id: avax.UTXOID{TxID: tx.ID(), OutputIndex: idx}, owner: to, amount: pay.Out.Amount()}
	}
	return bs
}

// walletUTXO is the payment the next tx of walletBlocks spends.
type walletUTXO struct {
	id     avax.UTXOID
	owner  ids.ShortID
	amount uint64
}

func walletAddress(k uint64) ids.ShortID {
	var a ids.ShortID
	binary.BigEndian.PutUint64(a[:], k+1)
	return a
}

// rollupWorkloads are the blocks BenchmarkRollupCost applies: fresh, the
// worst case, where nearly every address a block touches was last seen in
// another hour, so that each one's row is written; wallets, the case of a
// chain in use, where hot addresses recur within the hour.
var rollupWorkloads = []struct {
	name   string
	blocks func(tb testing.TB, batches int) [][]*pchain.Block
}{
	{"fresh", func(tb testing.TB, batches int) [][]*pchain.Block {
		rng := rand.NewChaCha8([32]byte{2})
		var all [][]*pchain.Block
		for i := range batches {
			all = append(all, transferBlocks(tb, rng, uint64(i*benchBatch), benchBatch))
		}
		return all
	}},
	{"wallets", func(tb testing.TB, batches int) [][]*pchain.Block {
		zipf := rand.NewZipf(rand.New(rand.NewChaCha8([32]byte{3})), 1.1, 1, 9_999)
		prev := &walletUTXO{id: avax.UTXOID{TxID: ids.ID{9}}, owner: walletAddress(0), amount: 1 << 62}
		var all [][]*pchain.Block
		for i := range batches {
			all = append(all, walletBlocks(tb, zipf, prev, uint64(i*benchBatch), benchBatch))
		}
		return all
	}},
}

// BenchmarkRollupCost applies the same 40 batches of 256 blocks with the
// metrics rollup off and on, each to a fresh database, alternating within
// each iteration so that a change of the machine's load weighs on both, and
// reports both rates and the rollup's cost to ingestion (cost-%), and the
// rollup's own share of the run with it on (in-run-cost-%), for each of
// rollupWorkloads.
func BenchmarkRollupCost(b *testing.B) {
	dbtest.Run(b, func(b *testing.B, dsn string) {
		for _, w := range rollupWorkloads {
			b.Run(w.name, func(b *testing.B) {
				const batches = 40
				all := w.blocks(b, batches)
				// The rollup's own time in the run with it on, next to the
				// rest: steadier than two runs' difference, which also
				// counts what the rollup costs the rest (a larger WAL).
				var inRollup time.Duration
				derivation := func(on bool) PDerivation {
					return func(ctx context.Context, tx *PTx, batch *internal.PBatch) error {
						return pstate.Apply(ctx, timedMetrics{PTx: tx, on: on, took: &inRollup}, batch)
					}
				}
				var took [2]time.Duration
				blocks := 0
				for b.Loop() {
					for mode, derive := range []PDerivation{derivation(false), derivation(true)} {
						fresh := dbtest.SQLite(b)
						if !strings.HasPrefix(dsn, "sqlite:") {
							fresh = dbtest.Postgres(b)
						}
						s := openStore(b, fresh)
						start := time.Now()
						for _, bs := range all {
							if err := applyPBlocksWith(context.Background(), s, bs, derive); err != nil {
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
				b.ReportMetric(100*inRollup.Seconds()/(took[1]-inRollup).Seconds(), "in-run-cost-%")
			})
		}
	})
}

// timedMetrics is a P-chain batch's transaction whose metrics step reads
// and writes only when on, and then adds the time of its reads and
// writes to took (what is left when off is the step's own loop over the
// blocks' effects).
type timedMetrics struct {
	*PTx
	on   bool
	took *time.Duration
}

func (m timedMetrics) InputOwners(ctx context.Context, utxos []ids.ID) (map[ids.ID][][]byte, error) {
	if !m.on {
		return nil, nil
	}
	start := time.Now()
	defer func() { *m.took += time.Since(start) }()
	return m.PTx.InputOwners(ctx, utxos)
}

func (m timedMetrics) RollupMetrics(ctx context.Context, blocks []chainmetrics.Block) error {
	if !m.on {
		return nil
	}
	start := time.Now()
	defer func() { *m.took += time.Since(start) }()
	return m.PTx.RollupMetrics(ctx, blocks)
}
