package utxo

import (
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/nftfx"
	"github.com/ava-labs/avalanchego/vms/platformvm/stakeable"
	"github.com/ava-labs/avalanchego/vms/propertyfx"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
)

// Info is what a UTXO's output says, decoded for display: its asset and
// amount and who may spend it when. The chain packages' DescribeUTXO read
// it from a UTXO in their own encoding.
type Info struct {
	AssetID ids.ID
	// Amount is 0 for outputs without one (mint outputs, NFTs).
	Amount uint64
	// Addresses, Threshold and Locktime are the output's owners, in the
	// output's order; empty for outputs without owners.
	Addresses []ids.ShortID
	Threshold uint32
	Locktime  uint64
	// StakeableLocktime is a P-chain stakeable.LockOut's locktime, 0 for
	// any other output.
	StakeableLocktime uint64
	// Mint is true for mint outputs (secp256k1fx, nftfx, propertyfx).
	Mint bool
	// GroupID and Payload are an NFT output's; GroupID is nil for other
	// outputs.
	GroupID *uint32
	Payload []byte
}

// Describe returns what u's output says, for the output types of every
// chain (a stakeable lock unwrapped).
func Describe(u *avax.UTXO) *Info {
	info := &Info{AssetID: u.AssetID()}
	out := u.Out
	if lo, ok := out.(*stakeable.LockOut); ok {
		info.StakeableLocktime = lo.Locktime
		out = lo.TransferableOut
	}
	var owners *secp256k1fx.OutputOwners
	switch o := out.(type) {
	case *secp256k1fx.TransferOutput:
		info.Amount, owners = o.Amt, &o.OutputOwners
	case *secp256k1fx.MintOutput:
		info.Mint, owners = true, &o.OutputOwners
	case *nftfx.MintOutput:
		g := o.GroupID
		info.Mint, info.GroupID, owners = true, &g, &o.OutputOwners
	case *nftfx.TransferOutput:
		g := o.GroupID
		info.GroupID, info.Payload, owners = &g, append([]byte(nil), o.Payload...), &o.OutputOwners
	case *propertyfx.MintOutput:
		info.Mint, owners = true, &o.OutputOwners
	case *propertyfx.OwnedOutput:
		owners = &o.OutputOwners
	default:
		if a, ok := out.(avax.Amounter); ok {
			info.Amount = a.Amount()
		}
	}
	if owners != nil {
		info.Addresses = append([]ids.ShortID(nil), owners.Addrs...)
		info.Threshold, info.Locktime = owners.Threshold, owners.Locktime
	}
	return info
}

// Credential is one signature of a tx's credential with the public key it
// recovers to.
type Credential struct {
	// Signature is the 65-byte recoverable secp256k1 signature.
	Signature []byte
	// PublicKey is the compressed public key the signature recovers to
	// over the tx's unsigned bytes; nil when it does not recover.
	PublicKey []byte
}
