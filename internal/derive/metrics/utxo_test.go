package metrics

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/chainmetrics"
)

// fakeOwners answers the owners of stored UTXOs and records the rollup.
type fakeOwners struct {
	owners map[ids.ID][][]byte
	asked  []ids.ID
	rolled []chainmetrics.Block
}

func (f *fakeOwners) InputOwners(_ context.Context, utxos []ids.ID) (map[ids.ID][][]byte, error) {
	f.asked = append(f.asked, utxos...)
	out := map[ids.ID][][]byte{}
	for _, id := range utxos {
		if o, ok := f.owners[id]; ok {
			out[id] = o
		}
	}
	return out, nil
}

func (f *fakeOwners) RollupMetrics(_ context.Context, blocks []chainmetrics.Block) error {
	f.rolled = append(f.rolled, blocks...)
	return nil
}

func TestUTXOBlocks(t *testing.T) {
	spent, imported, unknown := ids.ID{1}, ids.ID{2}, ids.ID{3}
	alice, bob, carol := []byte("alice..............."), []byte("bob................."), []byte("carol...............")
	w := &fakeOwners{owners: map[ids.ID][][]byte{spent: {alice}, imported: {bob, carol}}}
	out := func(addrs ...[]byte) *internal.UTXOOutput {
		o := &internal.UTXOOutput{}
		for _, a := range addrs {
			var s [20]byte
			copy(s[:], a)
			o.Owners.Addrs = append(o.Owners.Addrs, s)
		}
		return o
	}
	blocks := []internal.UTXOBlock{
		{Height: 4, Time: time.Unix(1000, 0), Txs: 2, Effects: []internal.UTXOEffects{
			{Consumed: []internal.UTXOInput{{ID: spent}}, Produced: []*internal.UTXOOutput{out(carol), out(alice, bob)}},
			// An import whose export is not stored yet has no owners.
			{Imported: []internal.UTXOInput{{ID: imported}, {ID: unknown}}},
		}},
		// A pre-Banff block carries no time.
		{Height: 5, Txs: 0},
	}
	if err := UTXOBlocks(context.Background(), w, blocks); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.asked, []ids.ID{spent, imported, unknown}) {
		t.Errorf("asked the owners of %v", w.asked)
	}
	want := []chainmetrics.Block{
		{Height: 4, Time: 1000, Txs: 2, Addresses: [][]byte{carol, alice, bob}, Senders: [][]byte{alice, bob, carol}},
		{Height: 5},
	}
	if !reflect.DeepEqual(w.rolled, want) {
		t.Errorf("rolled up\n%+v\nwant\n%+v", w.rolled, want)
	}
}
