package store

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// withHeaderExtras gives blocks from 2 on Granite's header fields and a
// block gas cost, as a chain that activated them at block 2.
func withHeaderExtras(bs []*internal.EVMBlockData) []*internal.EVMBlockData {
	for _, b := range bs[min(2, len(bs)):] {
		ms := uint64(b.Timestamp.UnixMilli()) + 250
		delay := 7_000_000 + b.Number
		b.TimeMilliseconds, b.MinDelayExcess, b.BlockGasCost = &ms, &delay, big.NewInt(int64(1000*b.Number))
	}
	return bs
}

// wantBlock is b as read back: with what its txs paid (makeEVMBlocks'
// txs each use 50,000 gas at 26 gwei) and the txs up to it.
func wantBlock(b *internal.EVMBlockData, cumulative uint64) internal.EVMBlock {
	w := b.EVMBlock
	w.FeesSpent = new(big.Int).Mul(big.NewInt(int64(len(b.Txs))), big.NewInt(50_000*26e9))
	w.CumulativeTxs = &cumulative
	return w
}

// TestEVMBlock reads stored blocks by number and by hash, with their
// header extras, fees and cumulative txs, also for a block stored before
// fees were (summed from its txs), and a block not stored.
func TestEVMBlock(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		bs := withHeaderExtras(makeEVMBlocks("b", 4))
		// Two batches: the second's cumulative count continues the first's.
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[:2], deriveEVM); err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[2:], deriveEVM); err != nil {
			t.Fatal(err)
		}
		check := func() {
			t.Helper()
			cumulative := uint64(0)
			for _, b := range bs {
				cumulative += uint64(len(b.Txs))
				want := wantBlock(b, cumulative)
				got, err := s.EVMBlock(ctx, testEVMChain, b.Number)
				if err != nil {
					t.Fatal(err)
				}
				jsonEqual(t, "block", got, &want)
				byHash, err := s.EVMBlockByHash(ctx, testEVMChain, b.Hash)
				if err != nil {
					t.Fatal(err)
				}
				jsonEqual(t, "block by hash", byHash, &want)
			}
		}
		check()
		if _, err := s.db.Exec(ctx, "UPDATE evm_blocks SET fees_spent = NULL"); err != nil {
			t.Fatal(err)
		}
		check()
		for _, tc := range []struct{ chain, number uint64 }{{testEVMChain, 4}, {1, 0}, {testEVMChain, 1 << 63}} {
			if _, err := s.EVMBlock(ctx, tc.chain, tc.number); !errors.Is(err, derrors.NotFound) {
				t.Errorf("EVMBlock(%d, %d): %v, want NotFound", tc.chain, tc.number, err)
			}
		}
		if _, err := s.EVMBlockByHash(ctx, testEVMChain, evmHash("no block")); !errors.Is(err, derrors.NotFound) {
			t.Errorf("EVMBlockByHash of an unknown hash: %v, want NotFound", err)
		}
	})
}

// TestEVMBlockAndTxLists pages through the latest blocks and txs of one
// chain and of two whose blocks interleave in time (the second's a
// second later, so that every second holds blocks of both), with and
// without the status filter, and compares each with the same list sorted
// here.
func TestEVMBlockAndTxLists(t *testing.T) {
	const other = 7
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		a := makeEVMBlocks("a", 9)
		b := makeEVMBlocks("b", 7)
		for _, blk := range b {
			blk.Timestamp = blk.Timestamp.Add(time.Second)
			for i := range blk.Txs {
				blk.Txs[i].Timestamp = blk.Timestamp
				blk.Txs[i].Status = uint8(1 - i%2) // every second tx of a block failed
			}
		}
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, a, deriveEVM); err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyEVMBlocks(ctx, other, b, deriveEVM); err != nil {
			t.Fatal(err)
		}
		chains := map[uint64][]*internal.EVMBlockData{testEVMChain: a, other: b}

		// Blocks: all of each chain, then of both, by time then chain.
		var want []EVMTimeKey
		for id, bs := range chains {
			for _, blk := range bs {
				want = append(want, EVMTimeKey{Timestamp: blk.Timestamp.Unix(), ChainID: id, Number: blk.Number})
			}
		}
		slices.SortFunc(want, func(x, y EVMTimeKey) int {
			if x.Timestamp != y.Timestamp {
				return int(y.Timestamp - x.Timestamp)
			}
			if x.ChainID != y.ChainID {
				return int(y.ChainID) - int(x.ChainID)
			}
			return int(y.Number) - int(x.Number)
		})
		var got []EVMTimeKey
		var after *EVMTimeKey
		for {
			page, err := s.EVMLatestBlocks(ctx, []uint64{other, testEVMChain}, after, 4)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range page {
				got = append(got, EVMTimeKey{Timestamp: p.Timestamp.Unix(), ChainID: p.ChainID, Number: p.Number})
			}
			if len(page) < 4 {
				break
			}
			after = &got[len(got)-1]
		}
		jsonEqual(t, "the latest blocks of both chains", got, want)

		var numbers []uint64
		var before *uint64
		for {
			page, err := s.EVMBlocks(ctx, testEVMChain, before, 4)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range page {
				numbers = append(numbers, p.Number)
			}
			if len(page) < 4 {
				break
			}
			before = &numbers[len(numbers)-1]
		}
		jsonEqual(t, "the latest blocks", numbers, []uint64{8, 7, 6, 5, 4, 3, 2, 1, 0})

		// Txs, in each status.
		for _, status := range []*uint8{nil, ptr(uint8(0)), ptr(uint8(1))} {
			var want []EVMTimeKey
			for id, bs := range chains {
				for _, blk := range bs {
					for _, tx := range blk.Txs {
						if status == nil || tx.Status == *status {
							want = append(want, EVMTimeKey{Timestamp: blk.Timestamp.Unix(), ChainID: id, Number: blk.Number, Index: tx.Index})
						}
					}
				}
			}
			slices.SortFunc(want, func(x, y EVMTimeKey) int {
				if x.before(y) {
					return -1
				}
				return 1
			})
			var got []EVMTimeKey
			var after *EVMTimeKey
			for {
				page, err := s.EVMLatestTxsAllChains(ctx, []uint64{testEVMChain, other}, status, after, 3)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range page {
					got = append(got, EVMTimeKey{Timestamp: p.Timestamp.Unix(), ChainID: p.ChainID, Number: p.BlockNumber, Index: p.Index})
				}
				if len(page) < 3 {
					break
				}
				after = &got[len(got)-1]
			}
			jsonEqual(t, "the latest txs of both chains", got, want)

			var one []EVMTimeKey
			for _, k := range want {
				if k.ChainID == other {
					one = append(one, k)
				}
			}
			got = nil
			var key *EVMTxKey
			for {
				page, err := s.EVMLatestTxs(ctx, other, status, key, 2)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range page {
					got = append(got, EVMTimeKey{Timestamp: p.Timestamp.Unix(), ChainID: other, Number: p.BlockNumber, Index: p.Index})
				}
				if len(page) < 2 {
					break
				}
				key = &EVMTxKey{BlockNumber: page[1].BlockNumber, Index: page[1].Index}
			}
			jsonEqual(t, "the latest txs of one chain", got, one)
		}

		// A block's txs, in block order, with their input cut to the
		// selector and their block's fields.
		blk := a[5]
		var txs []internal.EVMTx
		var idx *uint32
		for {
			page, err := s.EVMBlockTxs(ctx, testEVMChain, 5, idx, 2)
			if err != nil {
				t.Fatal(err)
			}
			txs = append(txs, page...)
			if len(page) < 2 {
				break
			}
			idx = &page[1].Index
		}
		if len(txs) != len(blk.Txs) {
			t.Fatalf("block 5 has %d txs listed, %d stored", len(txs), len(blk.Txs))
		}
		for i, tx := range txs {
			w := blk.Txs[i]
			if tx.Hash != w.Hash || tx.BlockHash != blk.Hash || tx.Index != w.Index || !tx.Timestamp.Equal(blk.Timestamp) ||
				tx.From != w.From || *tx.To != *w.To || tx.GasPrice.Cmp(w.GasPrice) != 0 || string(tx.Input) != string(w.Input[:min(4, len(w.Input))]) {
				t.Errorf("block 5 tx %d = %+v, stored %+v", i, tx, w)
			}
		}
		if page, err := s.EVMBlockTxs(ctx, testEVMChain, 99, nil, 10); err != nil || len(page) != 0 {
			t.Errorf("the txs of a block not stored: %v, %v", page, err)
		}
	})
}

// TestCumulativeTxsBackfill: migration 0025 counts the txs up to each
// block of a chain stored from its genesis, and leaves a chain stored from
// a later block unknown.
func TestCumulativeTxsBackfill(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		bs := makeEVMBlocks("b", 6)
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs, deriveEVM); err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyEVMBlocks(ctx, 7, makeEVMBlocks("late", 3), deriveEVM); err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.Exec(ctx, "DELETE FROM evm_blocks WHERE chain_id = 7 AND number = 0"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.Exec(ctx, "UPDATE evm_blocks SET cumulative_txs = NULL"); err != nil {
			t.Fatal(err)
		}
		text, err := migrationFiles.ReadFile("migrations/0025_evm_block_reads.sql")
		if err != nil {
			t.Fatal(err)
		}
		i := strings.Index(string(text), "UPDATE evm_blocks")
		update, _, _ := strings.Cut(string(text[i:]), ";")
		if _, err := s.db.Exec(ctx, update); err != nil {
			t.Fatal(err)
		}
		total := uint64(0)
		for _, b := range bs {
			total += uint64(len(b.Txs))
			got, err := s.EVMBlock(ctx, testEVMChain, b.Number)
			if err != nil {
				t.Fatal(err)
			}
			if got.CumulativeTxs == nil || *got.CumulativeTxs != total {
				t.Errorf("block %d: cumulative txs %v, want %d", b.Number, got.CumulativeTxs, total)
			}
		}
		got, err := s.EVMBlock(ctx, 7, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got.CumulativeTxs != nil {
			t.Errorf("a chain stored from block 1: cumulative txs %d, want unknown", *got.CumulativeTxs)
		}
	})
}
