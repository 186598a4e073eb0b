package balances

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// fakeWriter holds stored balances by address (each the balance before
// any block of the batch) and records what Native writes.
type fakeWriter struct {
	stored    map[common.Address]int64
	reads     []common.Address
	untrusted int
	written   []internal.EVMNativeBalance
}

func (f *fakeWriter) NativeBalanceBefore(_ context.Context, addr common.Address, _ uint64) (*big.Int, error) {
	f.reads = append(f.reads, addr)
	return big.NewInt(f.stored[addr]), nil
}

func (f *fakeWriter) UntrustBalances(context.Context) error {
	f.untrusted++
	return nil
}

func (f *fakeWriter) WriteNativeBalances(_ context.Context, bals []internal.EVMNativeBalance) error {
	f.written = append(f.written, bals...)
	return nil
}

func TestNative(t *testing.T) {
	a, b, c := common.Address{0xa}, common.Address{0xb}, common.Address{0xc}
	block := func(n uint64, changes ...internal.EVMBalanceChange) *internal.EVMBlockData {
		return &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: n}, Balances: changes}
	}
	set := func(addr common.Address, v int64) internal.EVMBalanceChange {
		return internal.EVMBalanceChange{Address: addr, Balance: big.NewInt(v)}
	}
	delta := func(addr common.Address, v int64) internal.EVMBalanceChange {
		return internal.EVMBalanceChange{Address: addr, Delta: big.NewInt(v)}
	}
	tests := []struct {
		name      string
		stored    map[common.Address]int64
		blocks    []*internal.EVMBlockData
		want      []internal.EVMNativeBalance
		reads     []common.Address
		untrusted int
	}{{
		name:   "a traced balance is written as it is",
		blocks: []*internal.EVMBlockData{block(5, set(a, 7))},
		want:   []internal.EVMNativeBalance{{Address: a, Block: 5, Balance: big.NewInt(7)}},
	}, {
		name:   "a delta applies to the stored balance, read once",
		stored: map[common.Address]int64{a: 100},
		blocks: []*internal.EVMBlockData{block(5, delta(a, -30)), block(6, delta(a, 5))},
		want: []internal.EVMNativeBalance{
			{Address: a, Block: 5, Balance: big.NewInt(70)},
			{Address: a, Block: 6, Balance: big.NewInt(75)},
		},
		reads: []common.Address{a},
	}, {
		name:   "a delta applies to the batch's own earlier balance",
		stored: map[common.Address]int64{b: 100},
		blocks: []*internal.EVMBlockData{block(5, set(b, 3)), block(6, delta(b, 4), set(c, 1))},
		want: []internal.EVMNativeBalance{
			{Address: b, Block: 5, Balance: big.NewInt(3)},
			{Address: b, Block: 6, Balance: big.NewInt(7)},
			{Address: c, Block: 6, Balance: big.NewInt(1)},
		},
	}, {
		name:      "a delta below zero keeps zero and untrusts the chain",
		stored:    map[common.Address]int64{a: 2},
		blocks:    []*internal.EVMBlockData{block(9, delta(a, -3))},
		want:      []internal.EVMNativeBalance{{Address: a, Block: 9, Balance: big.NewInt(0)}},
		reads:     []common.Address{a},
		untrusted: 1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &fakeWriter{stored: tt.stored}
			if err := Native(context.Background(), w, tt.blocks); err != nil {
				t.Fatal(err)
			}
			if got, want := show(w.written), show(tt.want); !slices.Equal(got, want) {
				t.Errorf("written %q, want %q", got, want)
			}
			if !slices.Equal(w.reads, tt.reads) {
				t.Errorf("stored balances read of %v, want %v", w.reads, tt.reads)
			}
			if w.untrusted != tt.untrusted {
				t.Errorf("UntrustBalances called %d times, want %d", w.untrusted, tt.untrusted)
			}
		})
	}
}

// show is bals as "address@block=balance" strings, which compare.
func show(bals []internal.EVMNativeBalance) []string {
	out := make([]string, len(bals))
	for i, b := range bals {
		out[i] = fmt.Sprintf("%x@%d=%s", b.Address[:1], b.Block, b.Balance)
	}
	return out
}
