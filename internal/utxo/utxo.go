// Package utxo holds what the P-, X- and C-chains share about UTXOs: the
// inputs a tx spends, and an output as a chain (or shared memory) keeps
// it, with the fields avaindex indexes read from it. Each chain encodes its
// UTXOs with its own codec and names its own kinds; that stays with the
// chain's package. Info is an output as the Data API shows it.
package utxo

import (
	"errors"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/nftfx"
	"github.com/ava-labs/avalanchego/vms/platformvm/stakeable"
	"github.com/ava-labs/avalanchego/vms/propertyfx"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
)

// Input is a UTXO a transaction spends, on any chain.
type Input = internal.UTXOInput

// AppendInputs appends ins to dst; source is the chain whose shared memory
// they come from, ids.Empty for the spending chain's own UTXOs.
func AppendInputs(dst []Input, ins []*avax.TransferableInput, source ids.ID) ([]Input, error) {
	for _, in := range ins {
		if in == nil || in.In == nil {
			return nil, errors.New("nil input")
		}
		dst = append(dst, Input{
			UTXOID:      avax.UTXOID{TxID: in.TxID, OutputIndex: in.OutputIndex},
			ID:          in.InputID(),
			AssetID:     in.AssetID(),
			Amount:      in.In.Amount(),
			SourceChain: source,
		})
	}
	return dst, nil
}

// Output is one UTXO as a chain (or shared memory) holds it.
type Output = internal.UTXOOutput

// New returns u, whose encoding in its chain's codec is b, as an Output of
// kind, with the amount and owners of the output types of every chain
// (secp256k1fx, nftfx and propertyfx outputs, a stakeable lock unwrapped).
func New(u *avax.UTXO, b []byte, kind string) *Output {
	r := &Output{UTXO: u, Bytes: b, Kind: kind, AssetID: u.AssetID()}
	out := u.Out
	if lo, ok := out.(*stakeable.LockOut); ok {
		r.StakeableLocktime = lo.Locktime
		out = lo.TransferableOut
	}
	switch o := out.(type) {
	case *secp256k1fx.TransferOutput:
		r.Amount = o.Amt
		r.Owners = o.OutputOwners
	case *secp256k1fx.MintOutput:
		r.Owners = o.OutputOwners
	case *nftfx.MintOutput:
		r.Owners = o.OutputOwners
	case *nftfx.TransferOutput:
		r.Owners = o.OutputOwners
	case *propertyfx.MintOutput:
		r.Owners = o.OutputOwners
	case *propertyfx.OwnedOutput:
		r.Owners = o.OutputOwners
	default:
		// Not an output balances count; keep what can be read.
		if a, ok := out.(avax.Amounter); ok {
			r.Amount = a.Amount()
		}
	}
	return r
}
