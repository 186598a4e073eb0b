package xchain

import (
	"bytes"
	"maps"
	"slices"
	"testing"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	"github.com/ava-labs/avalanchego/vms/nftfx"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"
)

func owners(a byte) secp256k1fx.OutputOwners {
	return secp256k1fx.OutputOwners{Threshold: 1, Locktime: 7, Addrs: []ids.ShortID{{a}}}
}

func transferOut(asset ids.ID, amt uint64, a byte) *avax.TransferableOutput {
	return &avax.TransferableOutput{Asset: avax.Asset{ID: asset}, Out: &secp256k1fx.TransferOutput{Amt: amt, OutputOwners: owners(a)}}
}

func transferIn(tx ids.ID, idx uint32, asset ids.ID, amt uint64) *avax.TransferableInput {
	return &avax.TransferableInput{
		UTXOID: avax.UTXOID{TxID: tx, OutputIndex: idx},
		Asset:  avax.Asset{ID: asset},
		In:     &secp256k1fx.TransferInput{Amt: amt, Input: secp256k1fx.Input{SigIndices: []uint32{0}}},
	}
}

func build(t testing.TB, u txs.UnsignedTx) *txs.Tx {
	t.Helper()
	tx := &txs.Tx{Unsigned: u}
	if err := tx.Initialize(builder.Parser.Codec()); err != nil {
		t.Fatal(err)
	}
	parsed, err := ParseTx(tx.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if parsed.ID() != tx.ID() {
		t.Fatal("parsed tx id differs")
	}
	return parsed
}

func base(memo string, ins []*avax.TransferableInput, outs []*avax.TransferableOutput) txs.BaseTx {
	return txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.LocalID, BlockchainID: ids.ID{0xc}, Ins: ins, Outs: outs, Memo: []byte(memo)}}
}

func TestUTXOsOfTx(t *testing.T) {
	avaxID := ids.ID{0xaa}
	prev := ids.ID{1}
	pChain := ids.Empty
	cChain := ids.ID{0xcc}

	export := build(t, &txs.ExportTx{
		BaseTx:           base("e", []*avax.TransferableInput{transferIn(prev, 0, avaxID, 100)}, []*avax.TransferableOutput{transferOut(avaxID, 60, 1)}),
		DestinationChain: pChain,
		ExportedOuts:     []*avax.TransferableOutput{transferOut(avaxID, 30, 2)},
	})
	eff, err := UTXOsOfTx(export)
	if err != nil {
		t.Fatal(err)
	}
	if len(eff.Consumed) != 1 || eff.Consumed[0].ID != (&avax.UTXOID{TxID: prev}).InputID() || eff.Consumed[0].Amount != 100 {
		t.Errorf("export consumed %+v", eff.Consumed)
	}
	if len(eff.Produced) != 2 || eff.Produced[0].Kind != KindRegular || eff.Produced[1].Kind != KindExported ||
		eff.Produced[1].UTXO.OutputIndex != 1 || eff.Produced[1].PeerChain != pChain || eff.Produced[1].Amount != 30 ||
		eff.Produced[1].Owners.Addrs[0] != (ids.ShortID{2}) || eff.Produced[1].Owners.Locktime != 7 {
		t.Errorf("export produced %+v", eff.Produced)
	}
	// The bytes are the avm's encoding, as shared memory holds them.
	for _, p := range eff.Produced {
		want, err := builder.Parser.Codec().Marshal(txs.CodecVersion, p.UTXO)
		if err != nil || !bytes.Equal(want, p.Bytes) {
			t.Errorf("UTXO %s bytes differ from the avm codec's", p.ID())
		}
		back, err := ParseUTXO(p.Bytes)
		if err != nil || back.ID() != p.ID() {
			t.Errorf("ParseUTXO(%s) = %v, %v", p.ID(), back, err)
		}
	}

	imp := build(t, &txs.ImportTx{
		BaseTx:      base("i", nil, []*avax.TransferableOutput{transferOut(avaxID, 9, 3)}),
		SourceChain: cChain,
		ImportedIns: []*avax.TransferableInput{transferIn(ids.ID{2}, 4, avaxID, 10)},
	})
	eff, err = UTXOsOfTx(imp)
	if err != nil {
		t.Fatal(err)
	}
	if len(eff.Consumed) != 0 || len(eff.Imported) != 1 || eff.Imported[0].SourceChain != cChain ||
		eff.Imported[0].ID != (&avax.UTXOID{TxID: ids.ID{2}, OutputIndex: 4}).InputID() || len(eff.Produced) != 1 {
		t.Errorf("import = %+v", eff)
	}

	create := build(t, &txs.CreateAssetTx{
		BaseTx: base("c", []*avax.TransferableInput{transferIn(prev, 1, avaxID, 5)}, []*avax.TransferableOutput{transferOut(avaxID, 4, 1)}),
		Name:   "T", Symbol: "T", Denomination: 0,
		States: []*txs.InitialState{{FxIndex: 0, Outs: []verify.State{
			&secp256k1fx.TransferOutput{Amt: 1000, OutputOwners: owners(5)},
			&secp256k1fx.MintOutput{OutputOwners: owners(6)},
		}}},
	})
	eff, err = UTXOsOfTx(create)
	if err != nil {
		t.Fatal(err)
	}
	if len(eff.Produced) != 3 {
		t.Fatalf("create asset produced %d UTXOs, want 3", len(eff.Produced))
	}
	if p := eff.Produced[1]; p.AssetID != create.ID() || p.Amount != 1000 || p.Kind != KindRegular || p.UTXO.OutputIndex != 1 {
		t.Errorf("initial state transfer = %+v", p)
	}
	if p := eff.Produced[2]; p.Kind != KindOther || p.Owners.Addrs[0] != (ids.ShortID{6}) || p.UTXO.OutputIndex != 2 {
		t.Errorf("initial state mint = %+v", p)
	}

	nftAsset := ids.ID{0xee}
	op := build(t, &txs.OperationTx{
		BaseTx: base("o", []*avax.TransferableInput{transferIn(prev, 2, avaxID, 5)}, []*avax.TransferableOutput{transferOut(avaxID, 4, 1)}),
		Ops: []*txs.Operation{{
			Asset:   avax.Asset{ID: nftAsset},
			UTXOIDs: []*avax.UTXOID{{TxID: ids.ID{3}, OutputIndex: 0}},
			Op: &nftfx.MintOperation{
				MintInput: secp256k1fx.Input{SigIndices: []uint32{0}},
				Payload:   []byte{1},
				Outputs:   []*secp256k1fx.OutputOwners{{Threshold: 1, Addrs: []ids.ShortID{{8}}}},
			},
		}},
	})
	eff, err = UTXOsOfTx(op)
	if err != nil {
		t.Fatal(err)
	}
	if len(eff.Consumed) != 2 || eff.Consumed[1].ID != (&avax.UTXOID{TxID: ids.ID{3}}).InputID() || eff.Consumed[1].AssetID != nftAsset {
		t.Errorf("operation consumed %+v", eff.Consumed)
	}
	if len(eff.Produced) != 2 || eff.Produced[1].Kind != KindOther || eff.Produced[1].AssetID != nftAsset ||
		eff.Produced[1].UTXO.OutputIndex != 1 || eff.Produced[1].Owners.Addrs[0] != (ids.ShortID{8}) {
		t.Errorf("operation produced %+v", eff.Produced)
	}
}

func TestGenesisFor(t *testing.T) {
	gb, avaxAssetID, err := genesis.FromConfig(genesis.GetConfig(constants.LocalID))
	if err != nil {
		t.Fatal(err)
	}
	cc, err := genesis.VMGenesis(gb, constants.AVMID)
	if err != nil {
		t.Fatal(err)
	}
	g, ok, err := GenesisFor(cc.ID())
	if err != nil || !ok {
		t.Fatalf("GenesisFor(local X) = %t, %v", ok, err)
	}
	if len(g.Assets) != 1 || g.Assets[0] != avaxAssetID {
		t.Errorf("genesis assets %v, want [%s]", g.Assets, avaxAssetID)
	}
	var total uint64
	for _, u := range g.UTXOs {
		if u.AssetID != avaxAssetID || u.UTXO.TxID != avaxAssetID || u.Kind != KindRegular {
			t.Errorf("genesis UTXO %+v", u)
		}
		total += u.Amount
	}
	if len(g.UTXOs) == 0 || total == 0 {
		t.Error("no genesis allocations")
	}
	// Mainnet's X-chain ran as a DAG before its block 0.
	mb, _, err := genesis.FromConfig(genesis.GetConfig(constants.MainnetID))
	if err != nil {
		t.Fatal(err)
	}
	mc, err := genesis.VMGenesis(mb, constants.AVMID)
	if err != nil {
		t.Fatal(err)
	}
	mg, ok, err := GenesisFor(mc.ID())
	if err != nil || !ok || !mg.DAG || len(mg.UTXOs) == 0 || mg.NetworkID != constants.MainnetID {
		t.Errorf("GenesisFor(mainnet X) = %t, %v; want a DAG genesis", ok, err)
	}
	if g.DAG {
		t.Error("the local X-chain's genesis is marked DAG")
	}
	if _, ok, err := GenesisFor(ids.ID{1}); ok || err != nil {
		t.Errorf("GenesisFor(unknown) = %t, %v", ok, err)
	}
	// No --genesis-file: an empty network genesis is none.
	if _, ok, err := GenesisFor(cc.ID(), nil); !ok || err != nil {
		t.Errorf("GenesisFor(local X, no custom genesis) = %t, %v", ok, err)
	}
}

// TestGenesisForCustom reads the X-chain genesis of a custom network from
// its network genesis, given after a first lookup without it missed.
func TestGenesisForCustom(t *testing.T) {
	cfg := *genesis.GetConfig(constants.LocalID)
	cfg.NetworkID = 54321
	cfg.StartTime = 1_600_000_000
	cfg.Allocations = append(slices.Clone(cfg.Allocations),
		genesis.Allocation{AVAXAddr: ids.ShortID{0xa1}, InitialAmount: 7_000},
		genesis.Allocation{AVAXAddr: ids.ShortID{0xa2}, InitialAmount: 9_000_000,
			UnlockSchedule: []genesis.LockedAmount{{Amount: 5}}},
		// Only on the P-chain: not an X-chain UTXO.
		genesis.Allocation{AVAXAddr: ids.ShortID{0xa3}, UnlockSchedule: []genesis.LockedAmount{{Amount: 6}}},
	)
	gb, avaxAssetID, err := genesis.FromConfig(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := genesis.VMGenesis(gb, constants.AVMID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := GenesisFor(cc.ID()); ok || err != nil {
		t.Fatalf("GenesisFor(custom X) without its genesis = %t, %v", ok, err)
	}

	g, ok, err := GenesisFor(cc.ID(), gb)
	if err != nil || !ok {
		t.Fatalf("GenesisFor(custom X, its genesis) = %t, %v", ok, err)
	}
	if g.DAG || g.NetworkID != cfg.NetworkID || g.Timestamp != cfg.StartTime {
		t.Errorf("custom genesis: DAG %t, network %d, time %d", g.DAG, g.NetworkID, g.Timestamp)
	}
	if len(g.Assets) != 1 || g.Assets[0] != avaxAssetID {
		t.Errorf("genesis assets %v, want [%s]", g.Assets, avaxAssetID)
	}

	// One AVAX UTXO per allocation with an initial amount, to its address.
	type holding struct {
		addr   ids.ShortID
		amount uint64
	}
	want := map[holding]int{}
	for _, a := range cfg.Allocations {
		if a.InitialAmount > 0 {
			want[holding{a.AVAXAddr, a.InitialAmount}]++
		}
	}
	got := map[holding]int{}
	indices := map[uint32]bool{}
	for _, u := range g.UTXOs {
		if u.Kind != KindRegular || u.AssetID != avaxAssetID || u.UTXO.TxID != avaxAssetID ||
			len(u.Owners.Addrs) != 1 || u.Owners.Threshold != 1 || u.Owners.Locktime != 0 {
			t.Errorf("genesis UTXO %+v", u)
			continue
		}
		got[holding{u.Owners.Addrs[0], u.Amount}]++
		indices[u.UTXO.OutputIndex] = true
	}
	if !maps.Equal(got, want) || len(g.UTXOs) != len(want) {
		t.Errorf("genesis UTXOs %v, want %v", got, want)
	}
	for i := range uint32(len(g.UTXOs)) {
		if !indices[i] {
			t.Errorf("no genesis UTXO at output index %d", i)
		}
	}
}
