package xchain

import (
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	avmblock "github.com/ava-labs/avalanchego/vms/avm/block"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"
)

// TestDecodeGenesis: the genesis goes with block 0 of a linear chain and
// with container 0 of a DAG chain, nowhere else.
func TestDecodeGenesis(t *testing.T) {
	avaxID := ids.ID{0xaa}
	tx := build(t, &txs.BaseTx{BaseTx: base("d", []*avax.TransferableInput{transferIn(ids.ID{1}, 0, avaxID, 5)},
		[]*avax.TransferableOutput{transferOut(avaxID, 4, 1)}).BaseTx})
	linear, dag := &Genesis{}, &Genesis{DAG: true}
	for h := range uint64(2) {
		blk, err := avmblock.NewStandardBlock(ids.ID{9}, h, time.Unix(1_700_000_000, 0), []*txs.Tx{tx}, builder.Parser.Codec())
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range []*Genesis{linear, dag, nil} {
			b, err := Decode(h, blk.Bytes(), g)
			if err != nil {
				t.Fatal(err)
			}
			if want := h == 0 && g == linear; (b.Genesis != nil) != want {
				t.Errorf("block %d with genesis %+v carries %+v", h, g, b.Genesis)
			}
			if len(b.Txs) != 1 || b.Txs[0].ID != tx.ID() || b.Txs[0].Type != "BaseTx" || len(b.Txs[0].UTXOs.Consumed) != 1 ||
				len(b.Txs[0].UTXOs.Produced) != 1 || b.ID != blk.ID() || !b.Timestamp.Equal(time.Unix(1_700_000_000, 0)) {
				t.Errorf("block %d = %+v", h, b)
			}
		}
		const ts = "2020-09-10T12:00:00.5Z"
		for _, g := range []*Genesis{linear, dag, nil} {
			d, err := DecodeDAGTx(h, tx.ID(), tx.Bytes(), ts, g)
			if err != nil {
				t.Fatal(err)
			}
			if want := h == 0 && g == dag; (d.Genesis != nil) != want {
				t.Errorf("DAG tx %d with genesis %+v carries %+v", h, g, d.Genesis)
			}
			if d.Index != h || d.ID != tx.ID() || d.Timestamp.Unix() != 1_599_739_200 || len(d.UTXOs.Produced) != 1 {
				t.Errorf("DAG tx %d = %+v", h, d)
			}
		}
	}
	if _, err := DecodeDAGTx(0, ids.ID{1}, tx.Bytes(), "2020-09-10T12:00:00Z", nil); err == nil {
		t.Error("a container whose id is not its tx's was accepted")
	}
	if _, err := DecodeDAGTx(0, tx.ID(), tx.Bytes(), "yesterday", nil); err == nil {
		t.Error("a container with a bad timestamp was accepted")
	}
}
