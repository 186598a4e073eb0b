package cchain

import (
	"bytes"
	"testing"

	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/libevm/common"
)

func TestDescribeTx(t *testing.T) {
	key, err := secp256k1.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	asset, c, p := ids.ID{'a'}, ids.ID{'c'}, ids.ID{'p'}
	owners := secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{key.Address()}}
	exp := &atomic.Tx{UnsignedAtomicTx: &atomic.UnsignedExportTx{NetworkID: 12345, BlockchainID: c, DestinationChain: p,
		Ins: []atomic.EVMInput{{Address: common.Address{1}, Amount: 100, AssetID: asset, Nonce: 3}},
		ExportedOutputs: []*avax.TransferableOutput{{Asset: avax.Asset{ID: asset},
			Out: &secp256k1fx.TransferOutput{Amt: 90, OutputOwners: owners}}}}}
	if err := exp.Sign(atomic.Codec, [][]*secp256k1.PrivateKey{{key}}); err != nil {
		t.Fatal(err)
	}
	d, err := DescribeTx(exp.SignedBytes())
	if err != nil {
		t.Fatal(err)
	}
	if d.Type != "ExportTx" || d.ID != exp.ID() || d.SourceChain != c || d.DestinationChain != p || d.In[asset] != 100 ||
		d.Out[asset] != 90 || len(d.EVMInputs) != 1 || d.EVMInputs[0].Address != (common.Address{1}) || d.EVMInputs[0].Amount != 100 {
		t.Errorf("ExportTx: %+v", d)
	}
	if cr := d.EVMInputs[0].Credentials; len(cr) != 1 || !bytes.Equal(cr[0].PublicKey, key.PublicKey().Bytes()) {
		t.Errorf("ExportTx credentials: %+v", cr)
	}

	in := &avax.TransferableInput{UTXOID: avax.UTXOID{TxID: ids.ID{9}, OutputIndex: 1}, Asset: avax.Asset{ID: asset},
		In: &secp256k1fx.TransferInput{Amt: 50, Input: secp256k1fx.Input{SigIndices: []uint32{0}}}}
	imp := &atomic.Tx{UnsignedAtomicTx: &atomic.UnsignedImportTx{NetworkID: 12345, BlockchainID: c, SourceChain: p,
		ImportedInputs: []*avax.TransferableInput{in},
		Outs:           []atomic.EVMOutput{{Address: common.Address{2}, Amount: 49, AssetID: asset}}}}
	if err := imp.Sign(atomic.Codec, [][]*secp256k1.PrivateKey{{key}}); err != nil {
		t.Fatal(err)
	}
	if d, err = DescribeTx(imp.SignedBytes()); err != nil {
		t.Fatal(err)
	}
	if d.Type != "ImportTx" || d.SourceChain != p || d.DestinationChain != c || d.In[asset] != 50 || d.Out[asset] != 49 ||
		len(d.Inputs) != 1 || d.Inputs[0] != in.InputID() || len(d.EVMOutputs) != 1 || d.EVMOutputs[0].Address != (common.Address{2}) {
		t.Errorf("ImportTx: %+v", d)
	}
	if cr := d.Credentials[in.InputID()]; len(cr) != 1 || !bytes.Equal(cr[0].PublicKey, key.PublicKey().Bytes()) {
		t.Errorf("ImportTx credentials: %+v", cr)
	}

	u := &avax.UTXO{UTXOID: avax.UTXOID{TxID: exp.ID()}, Asset: avax.Asset{ID: asset}, Out: exp.UnsignedAtomicTx.(*atomic.UnsignedExportTx).ExportedOutputs[0].Out}
	b, err := atomic.Codec.Marshal(atomic.CodecVersion, u)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := DescribeUTXO(b); err != nil || info.Amount != 90 || info.Addresses[0] != key.Address() {
		t.Errorf("DescribeUTXO = %+v, %v", info, err)
	}
}
