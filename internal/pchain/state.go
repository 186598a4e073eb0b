package pchain

import (
	"fmt"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm/fx"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
)

// SubnetOwner is a P-chain owner: Threshold of Addresses may spend (or, for a
// subnet, authorize) once Locktime (unix seconds) has passed.
type SubnetOwner struct {
	Locktime  uint64
	Threshold uint32
	Addresses []ids.ShortID
}

// Pos is the position of a transaction in the chain: its block's height
// and its index in the block. Positions order the changes to one record.
type Pos struct {
	Height uint64
	Index  int
	// Time is the block's timestamp; zero for pre-Banff blocks.
	Time time.Time
}

// Less reports whether p comes before q in the chain.
func (p Pos) Less(q Pos) bool {
	return p.Height < q.Height || (p.Height == q.Height && p.Index < q.Index)
}

// Subnet is a subnet as P-chain transactions made it.
type Subnet struct {
	// ID is the id of the CreateSubnetTx that created it.
	ID      ids.ID
	Created Pos
	// Owner is the current owner, set by CreateSubnetTx and changed by
	// TransferSubnetOwnershipTx; OwnerPos is where it was last set.
	Owner    SubnetOwner
	OwnerPos Pos
	// Conversion is set once the subnet was converted to an L1.
	Conversion *SubnetConversion
	// TransformTxID is the TransformSubnetTx that made the subnet
	// permissionless (elastic); ids.Empty if it never was.
	TransformTxID ids.ID
	Transformed   Pos
}

// SubnetConversion is what a ConvertSubnetToL1Tx records for its subnet.
type SubnetConversion struct {
	// ID is the conversion id: the hash of the SubnetToL1ConversionData
	// message that validators sign.
	ID             ids.ID
	ManagerChainID ids.ID
	ManagerAddress []byte
	TxID           ids.ID
	At             Pos
}

// Blockchain is a chain created by a CreateChainTx.
type Blockchain struct {
	// ID is the id of the CreateChainTx.
	ID       ids.ID
	Name     string
	SubnetID ids.ID
	VMID     ids.ID
	FxIDs    []ids.ID
	Genesis  []byte
	Created  Pos
}

// OwnerChange is a TransferSubnetOwnershipTx.
type OwnerChange struct {
	SubnetID ids.ID
	Owner    SubnetOwner
	At       Pos
}

// Conversion is a ConvertSubnetToL1Tx.
type Conversion struct {
	SubnetID ids.ID
	SubnetConversion
}

// Transform is a TransformSubnetTx.
type Transform struct {
	SubnetID ids.ID
	TxID     ids.ID
	At       Pos
}

// StateChanges are the subnet and blockchain changes of a run of blocks,
// each kind in chain order.
type StateChanges struct {
	Subnets     []Subnet
	Chains      []Blockchain
	Owners      []OwnerChange
	Conversions []Conversion
	Transforms  []Transform
}

// Empty reports whether there are no changes.
func (c *StateChanges) Empty() bool {
	return len(c.Subnets)+len(c.Chains)+len(c.Owners)+len(c.Conversions)+len(c.Transforms) == 0
}

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
			if err := out.add(t.Tx, at); err != nil {
				return nil, fmt.Errorf("tx %s of P-chain block %d: %w", t.ID, b.Height, err)
			}
		}
	}
	return out, nil
}

func (c *StateChanges) add(tx *txs.Tx, at Pos) error {
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
