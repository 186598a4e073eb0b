package xchain

import (
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/nftfx"
	"github.com/ava-labs/avalanchego/vms/propertyfx"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal/utxo"
)

// AssetMeta is what the Data API tells of an X-chain asset beside an
// amount (schema AssetAmount).
type AssetMeta struct {
	Name, Symbol string
	Denomination uint8
	// Type is "nft" for an asset with NFT outputs, "secp256k1" otherwise
	// (schema PrimaryNetworkAssetType).
	Type string
}

// AssetMetaOf returns the asset tx creates; ok is false when tx is not a
// CreateAssetTx.
func AssetMetaOf(tx *txs.Tx) (_ AssetMeta, ok bool) {
	u, ok := tx.Unsigned.(*txs.CreateAssetTx)
	if !ok {
		return AssetMeta{}, false
	}
	m := AssetMeta{Name: u.Name, Symbol: u.Symbol, Denomination: u.Denomination, Type: "secp256k1"}
	for _, st := range u.States {
		if st == nil {
			continue
		}
		for _, o := range st.Outs {
			switch o.(type) {
			case *nftfx.MintOutput, *nftfx.TransferOutput:
				m.Type = "nft"
			}
		}
	}
	return m, true
}

// UTXOForm is what the Data API tells of an X-chain output beside its
// owners and amount (schema Utxo).
type UTXOForm struct {
	// Type is "mint" for a mint output, "transfer" otherwise.
	Type string
	// GroupID and Payload are an NFT output's.
	GroupID *uint32
	Payload []byte
}

// FormOf returns the form of an X-chain output (or of an output exported
// to the X-chain, always a transfer).
func FormOf(o *utxo.Output) UTXOForm {
	f := UTXOForm{Type: "transfer"}
	switch out := o.UTXO.Out.(type) {
	case *secp256k1fx.MintOutput, *propertyfx.MintOutput:
		f.Type = "mint"
	case *nftfx.MintOutput:
		f.Type = "mint"
		g := out.GroupID
		f.GroupID = &g
	case *nftfx.TransferOutput:
		g := out.GroupID
		f.GroupID, f.Payload = &g, out.Payload
	}
	return f
}

// genesisAssetMeta returns the assets of the genesis CreateAssetTxs.
func genesisAssetMeta(assets map[ids.ID]*txs.Tx) map[ids.ID]AssetMeta {
	out := make(map[ids.ID]AssetMeta, len(assets))
	for id, tx := range assets {
		if m, ok := AssetMetaOf(tx); ok {
			out[id] = m
		}
	}
	return out
}
