package pchain

import (
	"fmt"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm/fx"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
)

// ExtractState returns the subnet and blockchain changes that the
// accepted blocks make. All of these transactions are decision
// (standard) transactions: an accepted block that holds one applies it,
// whether it is a standard block or the decision part of a Banff proposal
// block.
func ExtractState(blocks []*Block) (*StateChanges, error) {
	out := &StateChanges{}
	for _, b := range blocks {
		for i, t := range b.Txs {
			at := Pos{Height: b.Height, Index: i, Time: b.Timestamp}
			if err := addStateTx(out, t.Tx, at); err != nil {
				return nil, fmt.Errorf("tx %s of P-chain block %d: %w", t.ID, b.Height, err)
			}
		}
	}
	return out, nil
}

func addStateTx(c *StateChanges, tx *txs.Tx, at Pos) error {
	txID := tx.ID()
	switch u := tx.Unsigned.(type) {
	case *txs.CreateSubnetTx:
		owner, err := subnetOwnerOf(u.Owner)
		if err != nil {
			return err
		}
		c.Subnets = append(c.Subnets, Subnet{ID: txID, Created: at, Owner: owner, OwnerPos: at})
	case *txs.CreateChainTx:
		c.Chains = append(c.Chains, Blockchain{
			ID:       txID,
			Name:     u.ChainName,
			SubnetID: u.SubnetID,
			VMID:     u.VMID,
			FxIDs:    append([]ids.ID{}, u.FxIDs...),
			Genesis:  append([]byte{}, u.GenesisData...),
			Created:  at,
		})
	case *txs.TransferSubnetOwnershipTx:
		owner, err := subnetOwnerOf(u.Owner)
		if err != nil {
			return err
		}
		c.Owners = append(c.Owners, OwnerChange{SubnetID: u.Subnet, Owner: owner, At: at})
	case *txs.ConvertSubnetToL1Tx:
		id, err := ConversionID(u)
		if err != nil {
			return err
		}
		c.Conversions = append(c.Conversions, Conversion{SubnetID: u.Subnet, SubnetConversion: SubnetConversion{
			ID:             id,
			ManagerChainID: u.ChainID,
			ManagerAddress: append([]byte{}, u.Address...),
			TxID:           txID,
			At:             at,
		}})
	case *txs.TransformSubnetTx:
		c.Transforms = append(c.Transforms, Transform{SubnetID: u.Subnet, TxID: txID, At: at})
	}
	return nil
}

// ConversionID computes the conversion id a ConvertSubnetToL1Tx records,
// as the platformvm executor does: the hash of the conversion message
// data built from the tx.
func ConversionID(tx *txs.ConvertSubnetToL1Tx) (ids.ID, error) {
	data := message.SubnetToL1ConversionData{
		SubnetID:       tx.Subnet,
		ManagerChainID: tx.ChainID,
		ManagerAddress: tx.Address,
		Validators:     make([]message.SubnetToL1ConversionValidatorData, len(tx.Validators)),
	}
	for i, v := range tx.Validators {
		data.Validators[i] = message.SubnetToL1ConversionValidatorData{
			NodeID:       v.NodeID,
			BLSPublicKey: v.Signer.PublicKey,
			Weight:       v.Weight,
		}
	}
	return message.SubnetToL1ConversionID(data)
}

func subnetOwnerOf(o fx.Owner) (SubnetOwner, error) {
	oo, ok := o.(*secp256k1fx.OutputOwners)
	if !ok {
		return SubnetOwner{}, fmt.Errorf("unsupported owner type %T", o)
	}
	return SubnetOwner{
		Locktime:  oo.Locktime,
		Threshold: oo.Threshold,
		Addresses: append([]ids.ShortID{}, oo.Addrs...),
	}, nil
}
