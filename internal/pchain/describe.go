package pchain

import (
	"fmt"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"

	"github.com/avaindex/avaindex/internal/utxo"
)

// TxDescription is what a signed P-chain tx says, decoded for display
// (the Data API's PChainTransaction). It holds only what the tx's bytes
// tell; what the chain made of it (UTXOs, rewards) is the store's.
type TxDescription struct {
	ID ids.ID
	// Type is the platformvm type name, e.g. "AddPermissionlessValidatorTx".
	Type string
	Memo []byte
	// Inputs are the ids (avax.UTXOID.InputID) of the UTXOs the tx spends,
	// in the tx's order: its own inputs, then an ImportTx's imported ones.
	Inputs []ids.ID
	// Outs is the number of the tx's own outputs. The outputs the chain
	// numbers after them (stake, exported, L1 refunds) have higher indices.
	Outs int
	// Amounts by asset: what the inputs (own and imported) spend, and what
	// the tx's own, stake and exported outputs hold.
	In, Out, Staked, Exported map[ids.ID]uint64
	// SourceChain and DestinationChain are set for ImportTx and ExportTx.
	SourceChain, DestinationChain ids.ID
	// Staker is set for txs that add a validator or delegator, as a block
	// with the time given to DescribeTx accepts it.
	Staker *Staker
	// SubnetID is the subnet the tx acts on: a staker's, the subnet of a
	// CreateChainTx, RemoveSubnetValidatorTx, TransformSubnetTx,
	// TransferSubnetOwnershipTx or ConvertSubnetToL1Tx, and a
	// CreateSubnetTx's own id. ids.Empty for other txs.
	SubnetID ids.ID
	// NodeID is a staker's or a RemoveSubnetValidatorTx's node.
	NodeID ids.NodeID
	// SubnetOwner is the owner a CreateSubnetTx or TransferSubnetOwnershipTx
	// sets.
	SubnetOwner *SubnetOwner
	// Chain is what a CreateChainTx creates.
	Chain *ChainCreation
	// ManagerChainID and ManagerAddress are a ConvertSubnetToL1Tx's
	// validator manager.
	ManagerChainID ids.ID
	ManagerAddress []byte
	// L1Validators are the L1 validators a ConvertSubnetToL1Tx or a
	// RegisterL1ValidatorTx adds, in the tx's order.
	L1Validators []L1ValidatorAdded
	// L1Balance is the nAVAX the tx moves into L1 validators' balances
	// (ConvertSubnetToL1Tx, RegisterL1ValidatorTx,
	// IncreaseL1ValidatorBalanceTx).
	L1Balance uint64
	// RewardedStaker is a RewardValidatorTx's staker tx.
	RewardedStaker ids.ID
}

// ChainCreation is the blockchain a CreateChainTx creates.
type ChainCreation struct {
	Name    string
	VMID    ids.ID
	Genesis []byte
}

// L1ValidatorAdded is an L1 validator as the tx that adds it describes it.
type L1ValidatorAdded struct {
	ValidationID ids.ID
	SubnetID     ids.ID
	NodeID       ids.NodeID
	Weight       uint64
	Balance      uint64
	// PublicKey (compressed, 48 bytes) and ProofOfPossession (96 bytes)
	// of its BLS key.
	PublicKey         []byte
	ProofOfPossession []byte
}

// DescribeTx decodes the signed P-chain tx b, accepted by a block with
// time blockTime (zero for pre-Banff blocks and the genesis).
func DescribeTx(b []byte, blockTime time.Time) (*TxDescription, error) {
	tx, err := ParseTx(b)
	if err != nil {
		return nil, err
	}
	return DescribeParsedTx(tx, blockTime)
}

// DescribeParsedTx is DescribeTx of a parsed tx (e.g. a genesis
// validator's).
func DescribeParsedTx(tx *txs.Tx, blockTime time.Time) (*TxDescription, error) {
	d := &TxDescription{
		ID:       tx.ID(),
		Type:     typeName(tx.Unsigned),
		In:       map[ids.ID]uint64{},
		Out:      map[ids.ID]uint64{},
		Staked:   map[ids.ID]uint64{},
		Exported: map[ids.ID]uint64{},
	}
	if bt, ok := describedBase(tx.Unsigned); ok {
		d.Memo = bt.Memo
		d.Outs = len(bt.Outs)
		if err := d.addIns(bt.Ins); err != nil {
			return nil, err
		}
		if err := addOuts(d.Out, bt.Outs); err != nil {
			return nil, err
		}
	}
	if s, ok := tx.Unsigned.(txs.PermissionlessStaker); ok {
		if err := addOuts(d.Staked, s.Stake()); err != nil {
			return nil, err
		}
	}
	if _, ok := tx.Unsigned.(txs.Staker); ok {
		st, err := StakerFromTx(tx, blockTime)
		if err != nil {
			return nil, err
		}
		d.Staker, d.SubnetID, d.NodeID = st, st.SubnetID, st.NodeID
	}
	switch u := tx.Unsigned.(type) {
	case *txs.RewardValidatorTx:
		d.RewardedStaker = u.TxID
	case *txs.ImportTx:
		d.SourceChain, d.DestinationChain = u.SourceChain, u.BlockchainID
		if err := d.addIns(u.ImportedInputs); err != nil {
			return nil, err
		}
	case *txs.ExportTx:
		d.SourceChain, d.DestinationChain = u.BlockchainID, u.DestinationChain
		if err := addOuts(d.Exported, u.ExportedOutputs); err != nil {
			return nil, err
		}
	case *txs.CreateSubnetTx:
		d.SubnetID = d.ID
		o, err := subnetOwnerOf(u.Owner)
		if err != nil {
			return nil, err
		}
		d.SubnetOwner = &o
	case *txs.TransferSubnetOwnershipTx:
		d.SubnetID = u.Subnet
		o, err := subnetOwnerOf(u.Owner)
		if err != nil {
			return nil, err
		}
		d.SubnetOwner = &o
	case *txs.CreateChainTx:
		d.SubnetID = u.SubnetID
		d.Chain = &ChainCreation{Name: u.ChainName, VMID: u.VMID, Genesis: u.GenesisData}
	case *txs.RemoveSubnetValidatorTx:
		d.SubnetID, d.NodeID = u.Subnet, u.NodeID
	case *txs.TransformSubnetTx:
		d.SubnetID = u.Subnet
	case *txs.ConvertSubnetToL1Tx:
		d.SubnetID, d.ManagerChainID, d.ManagerAddress = u.Subnet, u.ChainID, u.Address
		for i, v := range u.Validators {
			nodeID, err := ids.ToNodeID(v.NodeID)
			if err != nil {
				return nil, fmt.Errorf("tx %s validator %d: %w", d.ID, i, err)
			}
			d.L1Validators = append(d.L1Validators, L1ValidatorAdded{
				ValidationID:      u.Subnet.Append(uint32(i)),
				SubnetID:          u.Subnet,
				NodeID:            nodeID,
				Weight:            v.Weight,
				Balance:           v.Balance,
				PublicKey:         append([]byte(nil), v.Signer.PublicKey[:]...),
				ProofOfPossession: append([]byte(nil), v.Signer.ProofOfPossession[:]...),
			})
			d.L1Balance += v.Balance
		}
	case *txs.RegisterL1ValidatorTx:
		msg, err := registerMessage(u.Message)
		if err != nil {
			return nil, fmt.Errorf("tx %s: %w", d.ID, err)
		}
		d.SubnetID = msg.SubnetID
		nodeID, err := ids.ToNodeID(msg.NodeID)
		if err != nil {
			return nil, fmt.Errorf("tx %s: %w", d.ID, err)
		}
		d.L1Validators = []L1ValidatorAdded{{
			ValidationID:      msg.ValidationID(),
			SubnetID:          msg.SubnetID,
			NodeID:            nodeID,
			Weight:            msg.Weight,
			Balance:           u.Balance,
			PublicKey:         append([]byte(nil), msg.BLSPublicKey[:]...),
			ProofOfPossession: append([]byte(nil), u.ProofOfPossession[:]...),
		}}
		d.L1Balance = u.Balance
	case *txs.IncreaseL1ValidatorBalanceTx:
		d.L1Balance = u.Balance
	}
	return d, nil
}

// describedBase is the avax.BaseTx of every tx type but RewardValidatorTx
// and AdvanceTimeTx.
func describedBase(u txs.UnsignedTx) (*avax.BaseTx, bool) {
	switch t := u.(type) {
	case *txs.ImportTx:
		return &t.BaseTx.BaseTx, true
	case *txs.ExportTx:
		return &t.BaseTx.BaseTx, true
	}
	return baseTx(u)
}

func (d *TxDescription) addIns(ins []*avax.TransferableInput) error {
	for _, in := range ins {
		if in == nil || in.In == nil {
			return fmt.Errorf("tx %s: nil input", d.ID)
		}
		d.Inputs = append(d.Inputs, in.InputID())
		d.In[in.AssetID()] += in.In.Amount()
	}
	return nil
}

func addOuts(sum map[ids.ID]uint64, outs []*avax.TransferableOutput) error {
	for _, o := range outs {
		if o == nil || o.Out == nil {
			return fmt.Errorf("nil output")
		}
		sum[o.AssetID()] += o.Out.Amount()
	}
	return nil
}

// DescribeUTXO decodes a UTXO in the P-chain's encoding (txs.Codec: the
// P-chain's own UTXOs and those it exports).
func DescribeUTXO(b []byte) (*utxo.Info, error) {
	u := &avax.UTXO{}
	if _, err := txs.Codec.Unmarshal(b, u); err != nil {
		return nil, fmt.Errorf("decoding P-chain UTXO: %w", err)
	}
	return utxo.Describe(u), nil
}
