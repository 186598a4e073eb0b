package xchain

import (
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	"github.com/ava-labs/avalanchego/vms/nftfx"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal/utxo"
)

func TestAssetMetaAndForms(t *testing.T) {
	owners := secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{{1}}}
	nft := &txs.Tx{Unsigned: &txs.CreateAssetTx{Name: "Art", Symbol: "ART", Denomination: 0, States: []*txs.InitialState{
		{FxIndex: 1, Outs: []verify.State{&nftfx.MintOutput{GroupID: 3, OutputOwners: owners}}}}}}
	if m, ok := AssetMetaOf(nft); !ok || m != (AssetMeta{Name: "Art", Symbol: "ART", Type: "nft"}) {
		t.Errorf("NFT asset = %+v, %t", m, ok)
	}
	coin := &txs.Tx{Unsigned: &txs.CreateAssetTx{Name: "Coin", Symbol: "CN", Denomination: 6, States: []*txs.InitialState{
		{FxIndex: 0, Outs: []verify.State{&secp256k1fx.TransferOutput{Amt: 5, OutputOwners: owners}}}}}}
	if m, ok := AssetMetaOf(coin); !ok || m != (AssetMeta{Name: "Coin", Symbol: "CN", Denomination: 6, Type: "secp256k1"}) {
		t.Errorf("coin = %+v, %t", m, ok)
	}
	if _, ok := AssetMetaOf(&txs.Tx{Unsigned: &txs.BaseTx{}}); ok {
		t.Error("a BaseTx creates an asset")
	}
	form := func(out verify.State) UTXOForm {
		return FormOf(&utxo.Output{UTXO: &avax.UTXO{Out: out}})
	}
	if f := form(&secp256k1fx.TransferOutput{Amt: 1, OutputOwners: owners}); f.Type != "transfer" || f.GroupID != nil {
		t.Errorf("transfer: %+v", f)
	}
	if f := form(&secp256k1fx.MintOutput{OutputOwners: owners}); f.Type != "mint" {
		t.Errorf("secp256k1 mint: %+v", f)
	}
	if f := form(&nftfx.MintOutput{GroupID: 4, OutputOwners: owners}); f.Type != "mint" || f.GroupID == nil || *f.GroupID != 4 {
		t.Errorf("NFT mint: %+v", f)
	}
	if f := form(&nftfx.TransferOutput{GroupID: 5, Payload: []byte{7}, OutputOwners: owners}); f.Type != "transfer" ||
		f.GroupID == nil || *f.GroupID != 5 || string(f.Payload) != "\x07" {
		t.Errorf("NFT transfer: %+v", f)
	}
}
