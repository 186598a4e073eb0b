package utxoset

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"

	"github.com/avaindex/avaindex/internal"
)

type fakeSet struct{ written [][]internal.UTXOTx }

func (f *fakeSet) WriteUTXOChanges(_ context.Context, txs []internal.UTXOTx) error {
	f.written = append(f.written, txs)
	return nil
}

func TestX(t *testing.T) {
	ts := time.Unix(1600000000, 0)
	genesisTx := ids.ID{0x9}
	out := func(tx ids.ID, i uint32) *internal.UTXOOutput {
		return &internal.UTXOOutput{UTXO: &avax.UTXO{UTXOID: avax.UTXOID{TxID: tx, OutputIndex: i}}}
	}
	spend := &internal.UTXOEffects{Consumed: []internal.UTXOInput{{ID: ids.ID{0x55}}}, Produced: []*internal.UTXOOutput{out(ids.ID{2}, 0)}}
	blocks := []*internal.XBlockData{
		{Height: 0, Timestamp: ts, Genesis: &internal.XGenesisData{UTXOs: []*internal.UTXOOutput{out(genesisTx, 0), out(genesisTx, 1)}}},
		{Height: 1, Timestamp: ts.Add(time.Second), Txs: []internal.XTxData{
			{XTx: internal.XTx{ID: ids.ID{1}}, UTXOs: &internal.UTXOEffects{}},
			{XTx: internal.XTx{ID: ids.ID{2}}, UTXOs: spend},
		}},
	}
	w := &fakeSet{}
	if err := X(context.Background(), w, blocks); err != nil {
		t.Fatal(err)
	}
	if len(w.written) != 1 {
		t.Fatalf("%d writes, want 1", len(w.written))
	}
	var got []string
	for _, x := range w.written[0] {
		got = append(got, fmt.Sprintf("%x@%d/%d t%d produces %d consumes %d", x.Pos.TxID[:1], x.Pos.Height, x.Pos.Index,
			x.Pos.Time.Unix(), len(x.Effects.Produced), len(x.Effects.Consumed)))
	}
	// The genesis outputs, each at index -1 of the genesis tx, then the
	// block's txs in order, an empty one included.
	want := []string{
		"09@0/-1 t1600000000 produces 1 consumes 0",
		"09@0/-1 t1600000000 produces 1 consumes 0",
		"01@1/0 t1600000001 produces 0 consumes 0",
		"02@1/1 t1600000001 produces 1 consumes 1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("wrote\n%q\nwant\n%q", got, want)
	}
	if g := w.written[0][1].Effects.Produced[0].UTXO.OutputIndex; g != 1 {
		t.Errorf("the second genesis UTXOTx produces output %d, want 1", g)
	}

	// Blocks without txs write nothing.
	w = &fakeSet{}
	if err := X(context.Background(), w, []*internal.XBlockData{{Height: 5}}); err != nil {
		t.Fatal(err)
	}
	if len(w.written) != 0 {
		t.Errorf("blocks without txs wrote %v", w.written)
	}
}
