package addresstxs

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

type fakeWriter struct{ rows []internal.EVMAddressTx }

func (f *fakeWriter) WriteAddressTxs(_ context.Context, txs []internal.EVMAddressTx) error {
	f.rows = append(f.rows, txs...)
	return nil
}

func TestApply(t *testing.T) {
	addr := func(b byte) common.Address { return common.Address{b} }
	h1, h2 := common.Hash{1}, common.Hash{2}
	created := addr(0xcc)
	blocks := []*internal.EVMBlockData{{
		EVMBlock: internal.EVMBlock{Number: 7},
		Txs: []internal.EVMTx{
			{Hash: h1, Index: 0, From: addr(0xa), To: &[]common.Address{addr(0xb)}[0]},
			{Hash: h2, Index: 1, From: addr(0xa), ContractAddress: &created},
		},
		Transfers: []internal.EVMTransfer{
			// The sender again (already native) and two others, one twice.
			{TxHash: h1, From: addr(0xa), To: addr(0xd)},
			{TxHash: h1, From: addr(0xe), To: addr(0xd)},
			// A transfer of a tx not in the block is not indexed.
			{TxHash: common.Hash{9}, From: addr(0x9), To: addr(0x9)},
		},
		InternalTxs: []internal.EVMInternalTx{
			{TxHash: h2, From: created, To: addr(0xf), Value: big.NewInt(1), CallType: "CALL"},
			// Moves no value: not listed, so its parties are not indexed.
			{TxHash: h2, From: created, To: addr(0x5), Value: new(big.Int), CallType: "CALL"},
		},
	}, {
		EVMBlock: internal.EVMBlock{Number: 8},
	}}
	w := &fakeWriter{}
	if err := Apply(context.Background(), w, blocks); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range w.rows {
		got = append(got, fmt.Sprintf("%x %d %d/%d", r.Address[:1], r.Role, r.Block, r.TxIndex))
	}
	want := []string{
		"0a 1 7/0", "0b 1 7/0", "0d 2 7/0", "0e 2 7/0",
		"0a 1 7/1", "cc 1 7/1", "0f 2 7/1", "cc 3 7/1", "0f 3 7/1",
	}
	// The store writes the rows in its key order: theirs does not matter.
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
}
