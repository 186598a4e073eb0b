package testnet

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/reward"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/status"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
)

// SubnetEVMID is the VM id of subnet-evm (the id whose bytes spell
// "subnetevm"), used by CreateChain.
var SubnetEVMID = vmIDFromName("subnetevm")

// SubnetEVMGenesis is the small genesis CreateChain gives its chain. The
// chain is only created on the P-chain; no node runs it.
var SubnetEVMGenesis = []byte(`{"config":{"chainId":99999},"alloc":{},"gasLimit":"0x7A1200","difficulty":"0x0","timestamp":"0x0"}`)

func vmIDFromName(name string) ids.ID {
	var id ids.ID
	copy(id[:], name)
	return id
}

// Defaults of the helpers.
const (
	// DelegationShares is the delegation fee AddValidator sets: 10%, above
	// the local network's 2% minimum.
	DelegationShares = reward.PercentDenominator / 10
	// L1ValidatorWeight and L1ValidatorBalance describe the validator that
	// ConvertSubnetToL1 starts the L1 with.
	L1ValidatorWeight  = 100
	L1ValidatorBalance = units.Avax
)

// PBaseTx sends amount nAVAX to `to` on the P-chain.
func (n *Network) PBaseTx(ctx context.Context, to ids.ShortID, amount uint64) (ids.ID, error) {
	if amount == 0 {
		return ids.Empty, errNoAmount
	}
	var txID ids.ID
	err := n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		tx, err := w.P().IssueBaseTx([]*avax.TransferableOutput{n.avaxOutput(to, amount)})
		if err != nil {
			return fmt.Errorf("P-chain BaseTx: %w", err)
		}
		txID = tx.ID()
		return nil
	})
	return txID, err
}

// CreateSubnet creates a permissioned subnet owned by the local key and
// returns its id, which is also the CreateSubnetTx's id.
func (n *Network) CreateSubnet(ctx context.Context) (ids.ID, error) {
	var txID ids.ID
	err := n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		tx, err := w.P().IssueCreateSubnetTx(n.Owner())
		if err != nil {
			return fmt.Errorf("CreateSubnetTx: %w", err)
		}
		txID = tx.ID()
		return nil
	})
	return txID, err
}

// CreateChain creates a blockchain called name (letters, digits and spaces)
// on subnetID running subnet-evm with SubnetEVMGenesis, and returns its id,
// which is also the CreateChainTx's id.
func (n *Network) CreateChain(ctx context.Context, subnetID ids.ID, name string) (ids.ID, error) {
	return n.CreateEVMChain(ctx, subnetID, SubnetEVMGenesis, SubnetEVMID, name)
}

// L1Conversion describes an accepted ConvertSubnetToL1Tx.
type L1Conversion struct {
	TxID           ids.ID
	SubnetID       ids.ID
	ManagerChainID ids.ID
	ManagerAddress []byte
	// ValidationID, NodeID, Weight and Balance describe the L1's single
	// initial validator (a random node id with a fresh BLS key).
	ValidationID ids.ID
	NodeID       ids.NodeID
	Weight       uint64
	Balance      uint64
}

// ConvertSubnetToL1 converts the permissioned subnetID into an L1 managed by
// a random address on managerChainID, with one validator of a random node id
// and a fresh BLS key, weight L1ValidatorWeight and balance
// L1ValidatorBalance owned by the local key.
func (n *Network) ConvertSubnetToL1(ctx context.Context, subnetID, managerChainID ids.ID) (*L1Conversion, error) {
	nodeID, err := RandomNodeID()
	if err != nil {
		return nil, err
	}
	pop, err := newPoP()
	if err != nil {
		return nil, err
	}
	manager := make([]byte, 20)
	if _, err := rand.Read(manager); err != nil {
		return nil, err
	}
	owner := message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{n.Addr}}
	conv := &L1Conversion{
		SubnetID:       subnetID,
		ManagerChainID: managerChainID,
		ManagerAddress: manager,
		ValidationID:   subnetID.Append(0),
		NodeID:         nodeID,
		Weight:         L1ValidatorWeight,
		Balance:        L1ValidatorBalance,
	}
	err = n.WithWallet(ctx, primary.WalletConfig{SubnetIDs: []ids.ID{subnetID}}, func(w *primary.Wallet) error {
		tx, err := w.P().IssueConvertSubnetToL1Tx(subnetID, managerChainID, manager, []*txs.ConvertSubnetToL1Validator{{
			NodeID:                nodeID.Bytes(),
			Weight:                conv.Weight,
			Balance:               conv.Balance,
			Signer:                *pop,
			RemainingBalanceOwner: owner,
			DeactivationOwner:     owner,
		}})
		if err != nil {
			return fmt.Errorf("ConvertSubnetToL1Tx: %w", err)
		}
		conv.TxID = tx.ID()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return conv, nil
}

func newPoP() (*signer.ProofOfPossession, error) {
	sk, err := localsigner.New()
	if err != nil {
		return nil, fmt.Errorf("BLS key: %w", err)
	}
	pop, err := signer.NewProofOfPossession(sk)
	if err != nil {
		return nil, fmt.Errorf("BLS proof of possession: %w", err)
	}
	return pop, nil
}

// Staker describes an accepted primary-network validator or delegator.
type Staker struct {
	TxID   ids.ID
	NodeID ids.NodeID
	Weight uint64
	// End is the staker's end time; its RewardValidatorTx follows it.
	End time.Time
}

// AddValidator adds a primary-network validator with a random node id, a
// fresh BLS key and the minimum stake, validating for about duration (at
// least the network's 5s minimum plus the time to get the tx accepted; 10s
// or more is safe). Rewards go to the local key. Post-Durango the staking
// period starts when the tx is accepted.
func (n *Network) AddValidator(ctx context.Context, duration time.Duration) (*Staker, error) {
	nodeID, err := RandomNodeID()
	if err != nil {
		return nil, err
	}
	return n.AddValidatorOn(ctx, nodeID, duration)
}

// AddValidatorOn is AddValidator with a node id chosen by the caller (one
// that validates nothing yet).
func (n *Network) AddValidatorOn(ctx context.Context, nodeID ids.NodeID, duration time.Duration) (*Staker, error) {
	pop, err := newPoP()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	st := &Staker{NodeID: nodeID, Weight: n.MinValidatorStake, End: time.Unix(now.Add(duration).Unix(), 0)}
	err = n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		tx, err := w.P().IssueAddPermissionlessValidatorTx(
			&txs.SubnetValidator{
				Validator: txs.Validator{
					NodeID: nodeID,
					Start:  uint64(now.Unix()),
					End:    uint64(st.End.Unix()),
					Wght:   st.Weight,
				},
				Subnet: constants.PrimaryNetworkID,
			},
			pop,
			n.AVAXAssetID,
			n.Owner(),
			n.Owner(),
			DelegationShares,
		)
		if err != nil {
			return fmt.Errorf("AddPermissionlessValidatorTx: %w", err)
		}
		st.TxID = tx.ID()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// AddDelegator delegates the minimum delegator stake to the primary-network
// validator nodeID until end, which must not be after the validator's end
// and must leave at least the 5s minimum duration once accepted. Rewards go
// to the local key.
func (n *Network) AddDelegator(ctx context.Context, nodeID ids.NodeID, end time.Time) (*Staker, error) {
	now := time.Now()
	st := &Staker{NodeID: nodeID, Weight: n.MinDelegatorStake, End: time.Unix(end.Unix(), 0)}
	err := n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		tx, err := w.P().IssueAddPermissionlessDelegatorTx(
			&txs.SubnetValidator{
				Validator: txs.Validator{
					NodeID: nodeID,
					Start:  uint64(now.Unix()),
					End:    uint64(st.End.Unix()),
					Wght:   st.Weight,
				},
				Subnet: constants.PrimaryNetworkID,
			},
			n.AVAXAssetID,
			n.Owner(),
		)
		if err != nil {
			return fmt.Errorf("AddPermissionlessDelegatorTx: %w", err)
		}
		st.TxID = tx.ID()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// RewardTxID returns the id of the RewardValidatorTx that ends the staker
// added by stakerTxID. The tx is unsigned and fully determined by that id.
func RewardTxID(stakerTxID ids.ID) (ids.ID, error) {
	tx, err := txs.NewSigned(&txs.RewardValidatorTx{TxID: stakerTxID}, txs.Codec, nil)
	if err != nil {
		return ids.Empty, err
	}
	return tx.ID(), nil
}

// Reward is the outcome of a staker's RewardValidatorTx.
type Reward struct {
	// TxID is the RewardValidatorTx's id.
	TxID ids.ID
	// Committed is true when the staker was rewarded (the proposal was
	// committed) and false when it was aborted (stake returned, no reward).
	Committed bool
}

// WaitRewarded waits until the RewardValidatorTx of the staker added by
// stakerTxID (a validator or delegator) has been decided on the P-chain,
// which removes the staker from the current validator set and pays its
// stake and any reward back.
func (n *Network) WaitRewarded(ctx context.Context, stakerTxID ids.ID) (*Reward, error) {
	rewardID, err := RewardTxID(stakerTxID)
	if err != nil {
		return nil, err
	}
	pc := n.PClient()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := pc.GetTxStatus(ctx, rewardID)
		if err != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("platform.getTxStatus %s: %w", rewardID, err)
		}
		if err == nil {
			switch resp.Status {
			case status.Committed:
				return &Reward{TxID: rewardID, Committed: true}, nil
			case status.Aborted:
				return &Reward{TxID: rewardID, Committed: false}, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for RewardValidatorTx %s of staker %s: %w", rewardID, stakerTxID, ctx.Err())
		case <-tick.C:
		}
	}
}

// ExportP exports amount nAVAX from the P-chain to the local key on the
// chain dest (the X- or C-chain id).
func (n *Network) ExportP(ctx context.Context, dest ids.ID, amount uint64) (ids.ID, error) {
	if amount == 0 {
		return ids.Empty, errNoAmount
	}
	var txID ids.ID
	err := n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		tx, err := w.P().IssueExportTx(dest, []*avax.TransferableOutput{n.avaxOutput(n.Addr, amount)})
		if err != nil {
			return fmt.Errorf("P-chain ExportTx to %s: %w", dest, err)
		}
		txID = tx.ID()
		return nil
	})
	return txID, err
}

// ImportP imports into the P-chain all of the local key's funds exported to
// it from source (the X- or C-chain id).
func (n *Network) ImportP(ctx context.Context, source ids.ID) (ids.ID, error) {
	var txID ids.ID
	err := n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		tx, err := w.P().IssueImportTx(source, n.Owner())
		if err != nil {
			return fmt.Errorf("P-chain ImportTx from %s: %w", source, err)
		}
		txID = tx.ID()
		return nil
	})
	return txID, err
}

func (n *Network) avaxOutput(to ids.ShortID, amount uint64) *avax.TransferableOutput {
	return &avax.TransferableOutput{
		Asset: avax.Asset{ID: n.AVAXAssetID},
		Out: &secp256k1fx.TransferOutput{
			Amt:          amount,
			OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{to}},
		},
	}
}

var errNoAmount = errors.New("amount must be positive")
