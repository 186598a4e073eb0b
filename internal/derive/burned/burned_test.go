package burned

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

type fakeWriter struct {
	avax    ids.ID
	network bool
	added   []string
}

func (f *fakeWriter) AVAXAssetID(context.Context) (ids.ID, bool, error) {
	return f.avax, f.network, nil
}

func (f *fakeWriter) AddBurned(_ context.Context, heights []uint64, amounts []*big.Int) error {
	for i, h := range heights {
		f.added = append(f.added, fmt.Sprintf("%d:%s", h, amounts[i]))
	}
	return nil
}

func TestUTXOChains(t *testing.T) {
	avax, other := ids.ID{0xa}, ids.ID{0xb}
	effects := func(in, out uint64) *internal.UTXOEffects {
		return &internal.UTXOEffects{
			Consumed: []internal.UTXOInput{{AssetID: avax, Amount: in}, {AssetID: other, Amount: 100}},
			Produced: []*internal.UTXOOutput{{AssetID: avax, Amount: out}},
		}
	}
	x := []*internal.XBlockData{
		{Height: 4, Txs: []internal.XTxData{{UTXOs: effects(10, 7)}, {UTXOs: effects(5, 5)}, {}}},
		{Height: 5, Txs: []internal.XTxData{{UTXOs: effects(1, 9)}}}, // mints: burns nothing
	}
	w := &fakeWriter{avax: avax, network: true}
	if err := X(context.Background(), w, x); err != nil {
		t.Fatal(err)
	}
	if want := []string{"4:3", "5:0"}; !slices.Equal(w.added, want) {
		t.Errorf("X added %q, want %q", w.added, want)
	}

	// An import of 10 credited 9 to an EVM account, and an export of 4
	// debiting 5: blocks without atomic txs are not counted.
	c := []*internal.CBlockData{
		{Height: 2},
		{Height: 3, AtomicTxs: []*internal.CAtomicTxData{
			{Imported: []internal.UTXOInput{{AssetID: avax, Amount: 10}}, EVM: []internal.CAtomicEVMChange{{AssetID: avax, Amount: 9}}},
			{Exported: []*internal.UTXOOutput{{AssetID: avax, Amount: 4}}, EVM: []internal.CAtomicEVMChange{{AssetID: avax, Amount: 5, Debit: true}}},
		}},
	}
	w = &fakeWriter{avax: avax, network: true}
	if err := C(context.Background(), w, c); err != nil {
		t.Fatal(err)
	}
	if want := []string{"3:2"}; !slices.Equal(w.added, want) {
		t.Errorf("C added %q, want %q", w.added, want)
	}

	// Without a network, nothing is summed.
	w = &fakeWriter{}
	if err := X(context.Background(), w, x); err != nil || len(w.added) != 0 {
		t.Errorf("X without a network added %q, %v", w.added, err)
	}
}

func TestEVM(t *testing.T) {
	w := &evmWriter{}
	blocks := []*internal.EVMBlockData{{EVMBlock: internal.EVMBlock{Number: 7}, Txs: []internal.EVMTx{
		{GasUsed: 2, GasPrice: big.NewInt(5)}, {GasUsed: 3, GasPrice: big.NewInt(7)}, {GasUsed: 9, From: common.Address{1}},
	}}}
	if err := EVM(context.Background(), w, blocks); err != nil {
		t.Fatal(err)
	}
	if want := []string{"7:31"}; !slices.Equal(w.added, want) {
		t.Errorf("EVM added %q, want %q", w.added, want)
	}
}

type evmWriter struct{ added []string }

func (f *evmWriter) AddBurned(_ context.Context, heights []uint64, fees []*big.Int) error {
	for i, h := range heights {
		f.added = append(f.added, fmt.Sprintf("%d:%s", h, fees[i]))
	}
	return nil
}

type pWriter struct {
	fakeWriter
	deposits []string
}

func (f *pWriter) AddBurned(_ context.Context, heights []uint64, burns, deposits []*big.Int) error {
	for i, h := range heights {
		f.added = append(f.added, fmt.Sprintf("%d:%s", h, burns[i]))
		f.deposits = append(f.deposits, fmt.Sprintf("%d:%s", h, deposits[i]))
	}
	return nil
}

func TestP(t *testing.T) {
	avax, other := ids.ID{0xa}, ids.ID{0xb}
	value := func(in, out, l1 uint64) *internal.PTxValue {
		return &internal.PTxValue{In: map[ids.ID]uint64{avax: in, other: 50}, Out: map[ids.ID]uint64{avax: out}, L1Balance: l1}
	}
	blocks := []*internal.PBlockData{
		// Fee 1; an L1 validator's deposit of 5 with a fee of 2; a tx
		// without a value.
		{Height: 8, Txs: []internal.PTxData{{Value: value(10, 9, 0)}, {Value: value(20, 13, 5)}, {}}},
		// A reward: more out than in, burns nothing.
		{Height: 9, Txs: []internal.PTxData{{Value: value(0, 7, 0)}}},
	}
	w := &pWriter{fakeWriter: fakeWriter{avax: avax, network: true}}
	if err := P(context.Background(), w, blocks); err != nil {
		t.Fatal(err)
	}
	if want := []string{"8:3", "9:0"}; !slices.Equal(w.added, want) {
		t.Errorf("burned %q, want %q", w.added, want)
	}
	if want := []string{"8:5", "9:0"}; !slices.Equal(w.deposits, want) {
		t.Errorf("deposits %q, want %q", w.deposits, want)
	}
}

func TestXDAG(t *testing.T) {
	avax := ids.ID{0xa}
	dtxs := []*internal.XDAGTxData{
		{Index: 11, XTxData: internal.XTxData{UTXOs: &internal.UTXOEffects{
			Consumed: []internal.UTXOInput{{AssetID: avax, Amount: 10}},
			Produced: []*internal.UTXOOutput{{AssetID: avax, Amount: 9}},
		}}},
		{Index: 12}, // effects unknown: burns nothing known
	}
	w := &fakeWriter{avax: avax, network: true}
	if err := XDAG(context.Background(), w, dtxs); err != nil {
		t.Fatal(err)
	}
	// By X/tx index, one entry per tx.
	if want := []string{"11:1", "12:0"}; !slices.Equal(w.added, want) {
		t.Errorf("XDAG added %q, want %q", w.added, want)
	}
	w = &fakeWriter{}
	if err := XDAG(context.Background(), w, dtxs); err != nil || len(w.added) != 0 {
		t.Errorf("XDAG without a network added %q, %v", w.added, err)
	}
}
