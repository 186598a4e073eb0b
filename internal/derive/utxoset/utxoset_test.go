package utxoset

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"

	"github.com/avaindex/avaindex/internal"
)

type fakeSet struct{ written [][]internal.UTXOTx }

// only describes the one write f holds: each tx's position, time and
// effects' sizes.
func (f *fakeSet) only(t *testing.T) []string {
	t.Helper()
	if len(f.written) != 1 {
		t.Fatalf("%d writes, want 1", len(f.written))
	}
	var got []string
	for _, x := range f.written[0] {
		got = append(got, fmt.Sprintf("%x@%d/%d t%d produces %d consumes %d", x.Pos.TxID[:1], x.Pos.Height, x.Pos.Index,
			x.Pos.Time.Unix(), len(x.Effects.Produced), len(x.Effects.Consumed)))
	}
	return got
}

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
	got := w.only(t)
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

type fakePSet struct {
	txs      []internal.PUTXOTx
	released []internal.StakeRelease
	writes   int
}

func (f *fakePSet) WriteUTXOChanges(_ context.Context, txs []internal.PUTXOTx, released []internal.StakeRelease) error {
	f.writes++
	f.txs, f.released = txs, released
	return nil
}

func TestP(t *testing.T) {
	genesis := time.Unix(1500000000, 0)
	out := func(tx ids.ID, i uint32) *internal.UTXOOutput {
		return &internal.UTXOOutput{UTXO: &avax.UTXO{UTXOID: avax.UTXOID{TxID: tx, OutputIndex: i}}}
	}
	validator, staker, aborted := ids.ID{0xa}, ids.ID{0x5}, ids.ID{0xab}
	rewardTx := ids.ID{0x7}
	blocks := []*internal.PBlockData{
		{Height: 0, Timestamp: time.Unix(1, 0), Genesis: &internal.PGenesisData{
			Timestamp: uint64(genesis.Unix()),
			UTXOs:     []*internal.UTXOOutput{out(ids.Empty, 0), out(ids.Empty, 1)},
			Stakes:    []*internal.PTxUTXOs{{TxID: validator}},
		}},
		{Height: 3, Timestamp: genesis.Add(time.Hour), Txs: []internal.PTxData{
			{PTx: internal.PTx{ID: rewardTx}, UTXOs: &internal.PTxUTXOs{TxID: rewardTx, RewardedStaker: staker}},
		}, Rewards: map[ids.ID][]*internal.UTXOOutput{staker: {out(rewardTx, 0)}}},
		// A pre-Banff abort returns the proposal's stake.
		{Height: 4, AbortedStaker: aborted},
	}
	w := &fakePSet{}
	if err := P(context.Background(), w, blocks); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range w.txs {
		got = append(got, fmt.Sprintf("%x@%d/%d t%d produces %d rewards %d", x.Pos.TxID[:1], x.Pos.Height, x.Pos.Index,
			x.Pos.Time.Unix(), len(x.Effects.Produced), len(x.Rewards)))
	}
	want := []string{
		"00@0/-1 t1500000000 produces 2 rewards 0",
		"0a@0/-1 t1500000000 produces 0 rewards 0",
		"07@3/0 t1500003600 produces 0 rewards 1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("txs\n%q\nwant\n%q", got, want)
	}
	wantReleased := []internal.StakeRelease{{Staker: staker, By: rewardTx, Height: 3}, {Staker: aborted, By: aborted, Height: 4}}
	if !slices.Equal(w.released, wantReleased) {
		t.Errorf("released %v, want %v", w.released, wantReleased)
	}

	// A block fetched with rewards that lacks a rewarded staker's fails:
	// its reward UTXOs would be lost.
	blocks[1].Rewards = map[ids.ID][]*internal.UTXOOutput{}
	w = &fakePSet{}
	if err := P(context.Background(), w, blocks[1:2]); err == nil || w.writes != 0 {
		t.Errorf("missing reward UTXOs: err %v, %d writes", err, w.writes)
	}
	// A block fetched without rewards (nil) releases the stake alone.
	blocks[1].Rewards = nil
	if err := P(context.Background(), w, blocks[1:2]); err != nil || len(w.txs) != 1 || w.txs[0].Rewards != nil || len(w.released) != 1 {
		t.Errorf("without rewards: err %v, txs %v, released %v", err, w.txs, w.released)
	}
}

func TestXDAG(t *testing.T) {
	ts := time.Unix(1600000100, 0)
	genesisTx := ids.ID{0x9}
	out := func(tx ids.ID, i uint32) *internal.UTXOOutput {
		return &internal.UTXOOutput{UTXO: &avax.UTXO{UTXOID: avax.UTXOID{TxID: tx, OutputIndex: i}}}
	}
	dtxs := []*internal.XDAGTxData{
		{XTxData: internal.XTxData{XTx: internal.XTx{ID: ids.ID{1}}, UTXOs: &internal.UTXOEffects{Produced: []*internal.UTXOOutput{out(ids.ID{1}, 0)}}},
			Index: 0, Timestamp: ts,
			Genesis: &internal.XGenesisData{Timestamp: 1599999999, UTXOs: []*internal.UTXOOutput{out(genesisTx, 0)}}},
		{XTxData: internal.XTxData{XTx: internal.XTx{ID: ids.ID{2}}, UTXOs: &internal.UTXOEffects{Consumed: []internal.UTXOInput{{ID: ids.ID{0x55}}}}},
			Index: 1, Timestamp: ts.Add(time.Second)},
	}
	w := &fakeSet{}
	if err := XDAG(context.Background(), w, dtxs); err != nil {
		t.Fatal(err)
	}
	got := w.only(t)
	// The genesis output at index -1 of its tx, at the genesis time, before
	// the first DAG tx; each DAG tx at its X/tx index, height 0.
	want := []string{
		"09@0/-1 t1599999999 produces 1 consumes 0",
		"01@0/0 t1600000100 produces 1 consumes 0",
		"02@0/1 t1600000101 produces 0 consumes 1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("wrote\n%q\nwant\n%q", got, want)
	}

	// A DAG tx whose effects are unknown is an error, not a panic.
	err := XDAG(context.Background(), &fakeSet{}, []*internal.XDAGTxData{{Index: 7}})
	if err == nil || !strings.Contains(err.Error(), "DAG tx 7") {
		t.Errorf("a tx without effects: %v, want an error naming DAG tx 7", err)
	}
}
