package xchain

import (
	"github.com/ava-labs/avalanchego/vms/nftfx"
	"github.com/ava-labs/avalanchego/vms/propertyfx"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal/utxo"
)

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
