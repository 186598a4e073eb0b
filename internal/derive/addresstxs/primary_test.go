package addresstxs

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// fakeRanges records the ranges and rows written.
type fakeRanges struct {
	ranges []string
	rows   []internal.AddressTxRow
}

func (f *fakeRanges) WriteAddressTxRange(_ context.Context, first, last uint64, parts internal.AddressTxParts) error {
	f.ranges = append(f.ranges, fmt.Sprintf("%d..%d %+v", first, last, parts))
	return nil
}

func (f *fakeRanges) WriteAddressTxRows(_ context.Context, rows []internal.AddressTxRow) error {
	f.rows = append(f.rows, rows...)
	return nil
}

func TestUTXOsParts(t *testing.T) {
	regular := &internal.UTXOOutput{Kind: "regular"}
	exported := &internal.UTXOOutput{Kind: internal.UTXOKindExported}
	block := func(h uint64, effects ...*internal.UTXOEffects) *internal.XBlockData {
		b := &internal.XBlockData{Height: h}
		for _, e := range effects {
			b.Txs = append(b.Txs, internal.XTxData{UTXOs: e})
		}
		return b
	}
	for _, c := range []struct {
		name   string
		blocks []*internal.XBlockData
		want   []string
	}{
		{"none", nil, nil},
		{"own UTXOs only", []*internal.XBlockData{block(4, &internal.UTXOEffects{Produced: []*internal.UTXOOutput{regular}}), block(5)},
			[]string{"4..5 {Imports:false Exports:false}"}},
		{"an import", []*internal.XBlockData{block(7, &internal.UTXOEffects{Imported: []internal.UTXOInput{{}}})},
			[]string{"7..7 {Imports:true Exports:false}"}},
		{"an export", []*internal.XBlockData{block(7), block(8, &internal.UTXOEffects{Produced: []*internal.UTXOOutput{regular, exported}})},
			[]string{"7..8 {Imports:false Exports:true}"}},
		// A tx whose effects are unknown may need anything.
		{"unknown effects", []*internal.XBlockData{block(9, nil)}, []string{"9..9 {Imports:true Exports:true}"}},
	} {
		w := &fakeRanges{}
		if err := UTXOs(context.Background(), w, c.blocks); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(w.ranges, c.want) {
			t.Errorf("%s: wrote %q, want %q", c.name, w.ranges, c.want)
		}
	}
}

func TestAtomicRows(t *testing.T) {
	a, b := common.Address{0xa}, common.Address{0xb}
	tx1, tx2 := ids.ID{1}, ids.ID{2}
	ts := time.Unix(1700000000, 0)
	blocks := []*internal.CBlockData{
		{Height: 3, Timestamp: ts, AtomicTxs: []*internal.CAtomicTxData{
			// a debited twice (two assets) and b credited: one row each.
			{CAtomicTx: internal.CAtomicTx{ID: tx1, Type: "ExportTx"}, EVM: []internal.CAtomicEVMChange{{Address: a}, {Address: a, AssetID: ids.ID{9}}, {Address: b}}},
		}},
		{Height: 6, Timestamp: ts.Add(time.Second), AtomicTxs: []*internal.CAtomicTxData{
			{CAtomicTx: internal.CAtomicTx{ID: ids.ID{3}, Type: "ImportTx"}},
			{CAtomicTx: internal.CAtomicTx{ID: tx2, Type: "ImportTx"}, EVM: []internal.CAtomicEVMChange{{Address: a}}},
		}},
	}
	w := &fakeRanges{}
	if err := Atomic(context.Background(), w, blocks); err != nil {
		t.Fatal(err)
	}
	if want := []string{"3..6 {Imports:true Exports:true}"}; !slices.Equal(w.ranges, want) {
		t.Errorf("ranges %q, want %q", w.ranges, want)
	}
	var got []string
	for _, r := range w.rows {
		got = append(got, fmt.Sprintf("%s %x %d %d/%d %x %s", r.Chain, r.Address[:1], r.Pos.Time.Unix(), r.Pos.Height, r.Pos.Index, r.Pos.TxID[:1], r.Type))
	}
	want := []string{
		"C 0a 1700000000 3/0 01 ExportTx",
		"C 0b 1700000000 3/0 01 ExportTx",
		"C 0a 1700000001 6/1 02 ImportTx",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
}

func TestDAG(t *testing.T) {
	w := &fakeRanges{}
	if err := DAG(context.Background(), w, []*internal.XDAGTxData{{Index: 3}, {Index: 4}, {Index: 5}}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"3..5 {Imports:true Exports:true}"}; !slices.Equal(w.ranges, want) {
		t.Errorf("wrote %q, want %q", w.ranges, want)
	}
	w = &fakeRanges{}
	if err := DAG(context.Background(), w, nil); err != nil || len(w.ranges) != 0 {
		t.Errorf("no txs wrote %q, %v", w.ranges, err)
	}
}
