package utxo

import (
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/nftfx"
	"github.com/ava-labs/avalanchego/vms/platformvm/stakeable"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
)

func TestAppendInputs(t *testing.T) {
	asset, source := ids.ID{0xa}, ids.ID{0xc}
	in := &avax.TransferableInput{UTXOID: avax.UTXOID{TxID: ids.ID{1}, OutputIndex: 2}, Asset: avax.Asset{ID: asset},
		In: &secp256k1fx.TransferInput{Amt: 7}}
	got, err := AppendInputs([]Input{{}}, []*avax.TransferableInput{in}, source)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].ID != in.InputID() || got[1].AssetID != asset || got[1].Amount != 7 ||
		got[1].SourceChain != source || got[1].UTXOID.TxID != (ids.ID{1}) || got[1].UTXOID.OutputIndex != 2 {
		t.Errorf("AppendInputs = %+v", got)
	}
	if _, err := AppendInputs(nil, []*avax.TransferableInput{{}}, ids.Empty); err == nil {
		t.Error("an input without In was accepted")
	}
}

func TestNew(t *testing.T) {
	owners := secp256k1fx.OutputOwners{Locktime: 3, Threshold: 1, Addrs: []ids.ShortID{{9}}}
	id := avax.UTXOID{TxID: ids.ID{1}, OutputIndex: 4}
	locked := New(&avax.UTXO{UTXOID: id, Asset: avax.Asset{ID: ids.ID{0xa}},
		Out: &stakeable.LockOut{Locktime: 99, TransferableOut: &secp256k1fx.TransferOutput{Amt: 5, OutputOwners: owners}}},
		[]byte{1}, "regular")
	if locked.StakeableLocktime != 99 || locked.Amount != 5 || locked.Owners.Addrs[0] != (ids.ShortID{9}) ||
		locked.Kind != "regular" || locked.AssetID != (ids.ID{0xa}) || locked.ID() != id.InputID() || string(locked.Bytes) != "\x01" {
		t.Errorf("stakeable-locked output = %+v", locked)
	}
	nft := New(&avax.UTXO{UTXOID: id, Out: &nftfx.TransferOutput{OutputOwners: owners}}, nil, "other")
	if nft.Amount != 0 || nft.Owners.Locktime != 3 || nft.StakeableLocktime != 0 {
		t.Errorf("nft output = %+v", nft)
	}
}
