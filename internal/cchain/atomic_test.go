package cchain

import (
	"bytes"
	"testing"

	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
)

func signed(t testing.TB, u atomic.UnsignedAtomicTx) *atomic.Tx {
	t.Helper()
	tx := &atomic.Tx{UnsignedAtomicTx: u}
	if err := tx.Sign(atomic.Codec, nil); err != nil {
		t.Fatal(err)
	}
	return tx
}

func TestNewAtomicTx(t *testing.T) {
	asset, dest := ids.ID{0xa}, ids.ID{0xd}
	owners := secp256k1fx.OutputOwners{Locktime: 2, Threshold: 1, Addrs: []ids.ShortID{{7}}}
	export := signed(t, &atomic.UnsignedExportTx{NetworkID: 12345, DestinationChain: dest,
		ExportedOutputs: []*avax.TransferableOutput{
			{Asset: avax.Asset{ID: asset}, Out: &secp256k1fx.TransferOutput{Amt: 5, OutputOwners: owners}},
			{Asset: avax.Asset{ID: asset}, Out: &secp256k1fx.TransferOutput{Amt: 6, OutputOwners: owners}},
		}})
	e, err := NewAtomicTx(export)
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != export.ID() || e.Type != "ExportTx" || !bytes.Equal(e.Bytes, export.SignedBytes()) || len(e.Imported) != 0 || len(e.Exported) != 2 {
		t.Fatalf("export = %+v", e)
	}
	u := e.Exported[1]
	if u.ID() != (&avax.UTXOID{TxID: export.ID(), OutputIndex: 1}).InputID() || u.PeerChain != dest || u.Amount != 6 ||
		u.Owners.Addrs[0] != (ids.ShortID{7}) || u.Kind != KindExported {
		t.Errorf("exported UTXO = %+v", u)
	}
	// The bytes are coreth's encoding, as shared memory holds them.
	var back avax.UTXO
	if _, err := atomic.Codec.Unmarshal(u.Bytes, &back); err != nil || back.InputID() != u.ID() {
		t.Errorf("exported UTXO bytes decode to %s, %v", back.InputID(), err)
	}

	in := &avax.TransferableInput{UTXOID: avax.UTXOID{TxID: ids.ID{1}, OutputIndex: 3}, Asset: avax.Asset{ID: asset},
		In: &secp256k1fx.TransferInput{Amt: 9}}
	imp, err := NewAtomicTx(signed(t, &atomic.UnsignedImportTx{NetworkID: 12345, SourceChain: dest,
		ImportedInputs: []*avax.TransferableInput{in}}))
	if err != nil {
		t.Fatal(err)
	}
	if imp.Type != "ImportTx" || len(imp.Exported) != 0 || len(imp.Imported) != 1 || imp.Imported[0].ID != in.InputID() ||
		imp.Imported[0].SourceChain != dest || imp.Imported[0].Amount != 9 {
		t.Errorf("import = %+v", imp)
	}
}
