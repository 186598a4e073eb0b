package testnet

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/libevm/common"
)

// StakingDuration is how long IssueAll's validator validates. Its delegator
// ends with it; both are rewarded right after.
const StakingDuration = 15 * time.Second

// Issued holds the ids of everything IssueAll issued. Every tx was accepted.
type Issued struct {
	// Recipient received PBaseTx and XBaseTx; EVMRecipient received
	// EVMTransfer.
	Recipient    ids.ShortID
	EVMRecipient common.Address

	// P-chain.
	PBaseTx           ids.ID
	CreateSubnetTx    ids.ID // = SubnetID
	SubnetID          ids.ID
	CreateChainTx     ids.ID // = ChainID
	ChainID           ids.ID
	ConvertSubnetToL1 *L1Conversion
	AddValidatorTx    ids.ID // AddPermissionlessValidatorTx
	Validator         *Staker
	AddDelegatorTx    ids.ID // AddPermissionlessDelegatorTx
	Delegator         *Staker
	RewardValidatorTx ids.ID // the validator's RewardValidatorTx (committed)
	RewardDelegatorTx ids.ID // the delegator's RewardValidatorTx (committed)
	PExportToX        ids.ID
	PImportFromX      ids.ID
	PExportToC        ids.ID
	PImportFromC      ids.ID

	// X-chain.
	XBaseTx       ids.ID
	CreateAssetTx ids.ID // = AssetID
	AssetID       ids.ID
	XImportFromP  ids.ID
	XExportToP    ids.ID

	// C-chain atomic txs.
	CExportToP   ids.ID
	CImportFromP ids.ID

	// C-chain EVM txs.
	EVMTransfer     common.Hash
	ContractDeploy  common.Hash
	ContractAddress common.Address
}

// Amounts IssueAll moves.
const (
	IssueAllTransfer = units.Avax      // PBaseTx, XBaseTx
	IssueAllAtomic   = 10 * units.Avax // each export
	IssueAllSupply   = 1_000_000       // CreateAsset
)

// IssueAllEVMTransfer returns the wei IssueAll sends to EVMRecipient (1 AVAX).
func IssueAllEVMTransfer() *big.Int {
	return new(big.Int).Mul(new(big.Int).SetUint64(units.Avax), big.NewInt(1_000_000_000))
}

// IssueAll issues at least one accepted transaction of every kind the
// helpers cover, including a validator and a delegator that are rewarded,
// and returns all their ids. It takes about StakingDuration plus a few
// seconds.
func (n *Network) IssueAll(ctx context.Context) (*Issued, error) {
	out := &Issued{}
	step := func(name string, err error) error {
		return fmt.Errorf("IssueAll %s: %w", name, err)
	}

	// Staking first, so that the staking period runs while the rest is
	// issued.
	vdr, err := n.AddValidator(ctx, StakingDuration)
	if err != nil {
		return nil, step("add validator", err)
	}
	out.Validator, out.AddValidatorTx = vdr, vdr.TxID
	del, err := n.AddDelegator(ctx, vdr.NodeID, vdr.End)
	if err != nil {
		return nil, step("add delegator", err)
	}
	out.Delegator, out.AddDelegatorTx = del, del.TxID

	recipient, err := NewKey()
	if err != nil {
		return nil, err
	}
	out.Recipient = recipient.Address()
	out.EVMRecipient = recipient.EthAddress()

	if out.PBaseTx, err = n.PBaseTx(ctx, out.Recipient, IssueAllTransfer); err != nil {
		return nil, step("P base tx", err)
	}
	if out.SubnetID, err = n.CreateSubnet(ctx); err != nil {
		return nil, step("create subnet", err)
	}
	out.CreateSubnetTx = out.SubnetID
	if out.ChainID, err = n.CreateChain(ctx, out.SubnetID, "avaindex test chain"); err != nil {
		return nil, step("create chain", err)
	}
	out.CreateChainTx = out.ChainID
	if out.ConvertSubnetToL1, err = n.ConvertSubnetToL1(ctx, out.SubnetID, out.ChainID); err != nil {
		return nil, step("convert subnet to L1", err)
	}

	// P <-> X.
	if out.PExportToX, err = n.ExportP(ctx, n.XChainID, IssueAllAtomic); err != nil {
		return nil, step("P export to X", err)
	}
	if out.XImportFromP, err = n.ImportX(ctx, n.PChainID); err != nil {
		return nil, step("X import from P", err)
	}
	if out.XExportToP, err = n.ExportX(ctx, n.PChainID, IssueAllAtomic); err != nil {
		return nil, step("X export to P", err)
	}
	if out.PImportFromX, err = n.ImportP(ctx, n.XChainID); err != nil {
		return nil, step("P import from X", err)
	}

	// X only.
	if out.XBaseTx, err = n.XBaseTx(ctx, out.Recipient, IssueAllTransfer); err != nil {
		return nil, step("X base tx", err)
	}
	if out.AssetID, err = n.CreateAsset(ctx, "Avaindex Test", "AIT", 2, IssueAllSupply); err != nil {
		return nil, step("create asset", err)
	}
	out.CreateAssetTx = out.AssetID

	// C <-> P.
	if out.CExportToP, err = n.ExportC(ctx, n.PChainID, IssueAllAtomic); err != nil {
		return nil, step("C export to P", err)
	}
	if out.PImportFromC, err = n.ImportP(ctx, n.CChainID); err != nil {
		return nil, step("P import from C", err)
	}
	if out.PExportToC, err = n.ExportP(ctx, n.CChainID, IssueAllAtomic); err != nil {
		return nil, step("P export to C", err)
	}
	if out.CImportFromP, err = n.ImportC(ctx, n.PChainID); err != nil {
		return nil, step("C import from P", err)
	}

	// EVM.
	if out.EVMTransfer, err = n.SendEVM(ctx, out.EVMRecipient, IssueAllEVMTransfer()); err != nil {
		return nil, step("EVM transfer", err)
	}
	if out.ContractDeploy, out.ContractAddress, err = n.DeployContract(ctx); err != nil {
		return nil, step("contract deployment", err)
	}

	// Rewards.
	for _, s := range []struct {
		name string
		txID ids.ID
		dst  *ids.ID
	}{
		{"delegator reward", del.TxID, &out.RewardDelegatorTx},
		{"validator reward", vdr.TxID, &out.RewardValidatorTx},
	} {
		r, err := n.WaitRewarded(ctx, s.txID)
		if err != nil {
			return nil, step(s.name, err)
		}
		if !r.Committed {
			return nil, step(s.name, fmt.Errorf("RewardValidatorTx %s was aborted (no reward)", r.TxID))
		}
		*s.dst = r.TxID
	}
	return out, nil
}
