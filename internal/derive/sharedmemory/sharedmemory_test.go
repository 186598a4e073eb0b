package sharedmemory

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

// fakeMemory records what is written and matched, as strings.
type fakeMemory struct {
	calls []string
}

func show(imports []internal.AtomicImport) []string {
	var out []string
	for _, im := range imports {
		out = append(out, fmt.Sprintf("%x by %x@%d/%d t%d", im.UTXO.ID[:1], im.Pos.TxID[:1], im.Pos.Height, im.Pos.Index, im.Pos.Time.Unix()))
	}
	return out
}

func (f *fakeMemory) MatchAtomic(_ context.Context, imports []internal.AtomicImport, exported []ids.ID) error {
	var ex []string
	for _, id := range exported {
		ex = append(ex, fmt.Sprintf("%x", id[:1]))
	}
	f.calls = append(f.calls, fmt.Sprintf("match imports %v exported %v", show(imports), ex))
	return nil
}

func (f *fakeMemory) WriteAtomicUTXOs(_ context.Context, exports []internal.AtomicExport, imports []internal.AtomicImport) error {
	var ex []string
	for _, e := range exports {
		ex = append(ex, fmt.Sprintf("%x@%d/%d", e.Pos.TxID[:1], e.Pos.Height, e.Pos.Index))
	}
	f.calls = append(f.calls, fmt.Sprintf("write exports %v imports %v", ex, show(imports)))
	return nil
}

// output is output i of tx.
func output(tx ids.ID, i uint32, kind string) *internal.UTXOOutput {
	return &internal.UTXOOutput{UTXO: &avax.UTXO{UTXOID: avax.UTXOID{TxID: tx, OutputIndex: i}}, Kind: kind}
}

func TestP(t *testing.T) {
	ts := time.Unix(100, 0)
	export := ids.ID{0xe}
	exported := output(export, 1, internal.UTXOKindExported)
	blocks := []*internal.PBlockData{
		{Height: 5, Timestamp: ts, Txs: []internal.PTxData{
			// A tx without UTXO effects (a reward tx before its UTXOs are
			// known) and one that imports.
			{PTx: internal.PTx{ID: ids.ID{1}}},
			{PTx: internal.PTx{ID: ids.ID{2}}, UTXOs: &internal.PTxUTXOs{Imported: []internal.UTXOInput{{ID: ids.ID{0xa}}}}},
		}},
		{Height: 6, Timestamp: ts.Add(time.Second), Txs: []internal.PTxData{
			{PTx: internal.PTx{ID: export}, UTXOs: &internal.PTxUTXOs{Produced: []*internal.UTXOOutput{output(export, 0, "regular"), exported}}},
		}},
	}
	w := &fakeMemory{}
	if err := P(context.Background(), w, blocks); err != nil {
		t.Fatal(err)
	}
	id := exported.ID()
	want := []string{fmt.Sprintf("match imports [0a by 02@5/1 t100] exported [%x]", id[:1])}
	if !slices.Equal(w.calls, want) {
		t.Errorf("calls\n%q\nwant\n%q", w.calls, want)
	}

	// A batch without imports or exports matches nothing.
	w = &fakeMemory{}
	if err := P(context.Background(), w, []*internal.PBlockData{{Height: 7, Txs: blocks[0].Txs[:1]}}); err != nil {
		t.Fatal(err)
	}
	if len(w.calls) != 0 {
		t.Errorf("a batch without imports or exports made calls %q", w.calls)
	}
}

func TestC(t *testing.T) {
	ts := time.Unix(200, 0)
	export := ids.ID{0xe}
	out := output(export, 0, internal.UTXOKindExported)
	blocks := []*internal.CBlockData{
		{Height: 9, Timestamp: ts, AtomicTxs: []*internal.CAtomicTxData{
			{CAtomicTx: internal.CAtomicTx{ID: ids.ID{3}}, Imported: []internal.UTXOInput{{ID: ids.ID{0xb}}, {ID: ids.ID{0xc}}}},
			{CAtomicTx: internal.CAtomicTx{ID: export}, Exported: []*internal.UTXOOutput{out}},
		}},
		{Height: 10, Timestamp: ts},
	}
	w := &fakeMemory{}
	if err := C(context.Background(), w, blocks); err != nil {
		t.Fatal(err)
	}
	id := out.ID()
	want := []string{
		"write exports [0e@9/1] imports [0b by 03@9/0 t200 0c by 03@9/0 t200]",
		fmt.Sprintf("match imports [0b by 03@9/0 t200 0c by 03@9/0 t200] exported [%x]", id[:1]),
	}
	if !slices.Equal(w.calls, want) {
		t.Errorf("calls\n%q\nwant\n%q", w.calls, want)
	}

	// Blocks without atomic txs write and match nothing.
	w = &fakeMemory{}
	if err := C(context.Background(), w, blocks[1:]); err != nil {
		t.Fatal(err)
	}
	if len(w.calls) != 0 {
		t.Errorf("blocks without atomic txs made calls %q", w.calls)
	}
}
