package xchain

import (
	"bytes"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/engine/avalanche/vertex"
	"github.com/ava-labs/avalanchego/utils/hashing"
	avmblock "github.com/ava-labs/avalanchego/vms/avm/block"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	"github.com/ava-labs/avalanchego/vms/nftfx"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"
)

// fuzzSeedTxs are real X-chain txs of every type, built with avalanchego's
// types and codec: the fuzzers' seeds.
func fuzzSeedTxs(tb testing.TB) []*txs.Tx {
	avaxID, prev := ids.ID{0xaa}, ids.ID{1}
	ins := func(i uint32) []*avax.TransferableInput {
		return []*avax.TransferableInput{transferIn(prev, i, avaxID, 5)}
	}
	outs := []*avax.TransferableOutput{transferOut(avaxID, 4, 1)}
	return []*txs.Tx{
		build(tb, &txs.BaseTx{BaseTx: base("b", ins(0), outs).BaseTx}),
		build(tb, &txs.CreateAssetTx{BaseTx: base("c", ins(1), outs), Name: "Token", Symbol: "TOK", Denomination: 9,
			States: []*txs.InitialState{{FxIndex: 0, Outs: []verify.State{
				&secp256k1fx.TransferOutput{Amt: 1000, OutputOwners: owners(5)}, &secp256k1fx.MintOutput{OutputOwners: owners(6)},
			}}}}),
		build(tb, &txs.OperationTx{BaseTx: base("o", ins(2), outs), Ops: []*txs.Operation{{
			Asset: avax.Asset{ID: ids.ID{0xbb}}, UTXOIDs: []*avax.UTXOID{{TxID: ids.ID{3}}},
			Op: &nftfx.MintOperation{MintInput: secp256k1fx.Input{SigIndices: []uint32{0}}, Payload: []byte{1},
				Outputs: []*secp256k1fx.OutputOwners{{Threshold: 1, Addrs: []ids.ShortID{{8}}}}},
		}}}),
		build(tb, &txs.ImportTx{BaseTx: base("i", nil, outs), SourceChain: ids.ID{0xcc},
			ImportedIns: []*avax.TransferableInput{transferIn(ids.ID{2}, 4, avaxID, 10)}}),
		build(tb, &txs.ExportTx{BaseTx: base("e", ins(3), outs), DestinationChain: ids.Empty,
			ExportedOuts: []*avax.TransferableOutput{transferOut(avaxID, 1, 2)}}),
	}
}

// checkTx requires a decoded tx to be its bytes: id their hash, bytes
// parsing back, produced UTXOs its own, encoded as the avm does.
func checkTx(t *testing.T, tx *Tx) {
	t.Helper()
	raw := tx.Tx.Bytes()
	if tx.ID != hashing.ComputeHash256Array(raw) || !bytes.Equal(tx.Bytes, raw) || tx.Type == "" || tx.UTXOs == nil || tx.UTXOs.TxID != tx.ID {
		t.Fatalf("tx %s: %+v", tx.ID, tx.XTx)
	}
	again, err := ParseTx(raw)
	if err != nil || again.ID() != tx.ID {
		t.Fatalf("tx %s does not parse back: %v", tx.ID, err)
	}
	for _, p := range tx.UTXOs.Produced {
		if p.UTXO.TxID != tx.ID {
			t.Fatalf("tx %s produces %s", tx.ID, p.ID())
		}
		back, err := ParseUTXO(p.Bytes)
		if err != nil || back.ID() != p.ID() || back.Amount != p.Amount || back.AssetID != p.AssetID {
			t.Fatalf("UTXO %s of tx %s does not decode back: %v", p.ID(), tx.ID, err)
		}
		if _, err := DescribeUTXO(p.Bytes); err != nil {
			t.Fatalf("UTXO %s of tx %s does not describe: %v", p.ID(), tx.ID, err)
		}
	}
	_, _ = DescribeTx(raw)
	_, _, _ = DescribeAsset(raw)
}

// FuzzDecode decodes arbitrary bytes as the X-chain block at a height:
// bytes that decode are a block whose id is their hash and whose txs
// check (checkTx).
func FuzzDecode(f *testing.F) {
	seeds := fuzzSeedTxs(f)
	for h := range uint64(3) {
		blk, err := avmblock.NewStandardBlock(ids.ID{9}, h, time.Unix(1_700_000_000, 0), seeds[:1+h*2], builder.Parser.Codec())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(h, blk.Bytes())
	}
	g := &Genesis{}
	f.Fuzz(func(t *testing.T, height uint64, b []byte) {
		blk, err := Decode(height, b, g)
		if err != nil {
			return
		}
		if blk.Height != height || blk.ID != hashing.ComputeHash256Array(b) || !bytes.Equal(blk.Bytes, b) || (blk.Genesis != nil) != (height == 0) {
			t.Fatalf("Decode(%d) = %+v", height, blk)
		}
		for _, tx := range blk.Txs {
			checkTx(t, tx)
		}
	})
}

// FuzzDecodeDAGTx decodes arbitrary bytes and timestamps as a container of
// the X/tx index: accepted only when the bytes are a tx with the
// container's id and the timestamp is RFC 3339.
func FuzzDecodeDAGTx(f *testing.F) {
	for i, tx := range fuzzSeedTxs(f) {
		f.Add(uint64(i), tx.Bytes(), "2020-09-10T12:00:00.5Z", false)
	}
	f.Add(uint64(0), []byte{}, "yesterday", true)
	g := &Genesis{DAG: true}
	f.Fuzz(func(t *testing.T, index uint64, b []byte, ts string, otherID bool) {
		id := hashing.ComputeHash256Array(b)
		if otherID {
			id[0] ^= 1
		}
		d, err := DecodeDAGTx(index, id, b, ts, g)
		if err != nil {
			return
		}
		if otherID {
			t.Fatalf("container %d accepted under another tx's id", index)
		}
		if _, terr := time.Parse(time.RFC3339Nano, ts); terr != nil || !d.Timestamp.Equal(mustTime(t, ts)) || d.Index != index ||
			(d.Genesis != nil) != (index == 0) {
			t.Fatalf("DecodeDAGTx(%d, %q) = %+v", index, ts, d)
		}
		checkTx(t, d.Tx)
	})
}

// FuzzDecodeVertex decodes arbitrary bytes as a container of the X/vtx
// index: accepted only when they are a vertex with the container's id,
// whose tx ids are the hashes of its txs' bytes, each once.
func FuzzDecodeVertex(f *testing.F) {
	seeds := fuzzSeedTxs(f)
	var parent ids.ID
	for i := range seeds {
		var txBytes [][]byte
		for _, tx := range seeds[:i+1] {
			txBytes = append(txBytes, tx.Bytes())
		}
		vtx, err := vertex.Build(ids.ID{0xc}, uint64(i), []ids.ID{parent}, txBytes)
		if err != nil {
			f.Fatal(err)
		}
		parent = vtx.ID()
		f.Add(uint64(i), vtx.Bytes(), "2020-09-10T12:00:00.5Z", false)
	}
	stop, err := vertex.BuildStopVertex(ids.ID{0xc}, 9, []ids.ID{parent})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint64(9), stop.Bytes(), "2023-04-25T15:00:00Z", false)
	f.Add(uint64(0), []byte{}, "yesterday", true)
	f.Fuzz(func(t *testing.T, index uint64, b []byte, ts string, otherID bool) {
		id := hashing.ComputeHash256Array(b)
		if otherID {
			id[0] ^= 1
		}
		v, err := DecodeVertex(index, id, b, ts)
		if err != nil {
			return
		}
		if otherID {
			t.Fatalf("container %d accepted under another vertex's id", index)
		}
		parsed, err := vertex.Parse(b)
		if err != nil {
			t.Fatalf("container %d decoded, but does not parse: %v", index, err)
		}
		if _, terr := time.Parse(time.RFC3339Nano, ts); terr != nil || !v.Timestamp.Equal(mustTime(t, ts)) || v.Index != index ||
			v.ID != id || v.Height != parsed.Height() || v.Stop != parsed.StopVertex() {
			t.Fatalf("DecodeVertex(%d, %q) = %+v", index, ts, v)
		}
		want := map[ids.ID]bool{}
		for _, tx := range parsed.Txs() {
			want[hashing.ComputeHash256Array(tx)] = true
		}
		got := map[ids.ID]bool{}
		for _, txID := range v.TxIDs {
			if got[txID] || !want[txID] {
				t.Fatalf("container %d: tx %s listed twice or not carried", index, txID)
			}
			got[txID] = true
		}
		if len(got) != len(want) {
			t.Fatalf("container %d: %d tx ids, want %d", index, len(got), len(want))
		}
	})
}

func mustTime(t *testing.T, s string) time.Time {
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}
