package testnet

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/utils/set"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/status"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"
	"github.com/ava-labs/avalanchego/vms/proposervm"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary/common"

	platformapi "github.com/ava-labs/avalanchego/vms/platformvm/api"
	pwallet "github.com/ava-labs/avalanchego/wallet/chain/p/wallet"
)

// This file issues the L1 validator lifecycle for real: a subnet converted
// to an L1 whose validators' BLS keys this process holds, so that it can
// sign the warp messages (RegisterL1Validator, L1ValidatorWeight) that the
// P-chain verifies against the L1's validator set. That only works on a
// network whose P-chain tracks validator sets: the custom network of
// GetCustom, not the local network of Get.
//
// The P-chain verifies a warp message against the validator set at the
// P-chain height of the current epoch (ACP-181; 30 s on custom networks),
// so a validator set change (the conversion) is only visible to warp once
// an epoch that began after it is current. AdvanceEpoch waits for that,
// issuing a P-chain BaseTx so that a block seals the epoch.

// Defaults of the L1 lifecycle. The L1's first validator (whose key signs)
// keeps more than the 67% warp quorum on its own: 100 of at most 140.
const (
	// L1RegisteredWeight and L1RegisteredBalance describe the validator
	// that IssueL1Lifecycle registers.
	L1RegisteredWeight  = 20
	L1RegisteredBalance = units.Avax / 10
	// L1UpdatedWeight is the weight IssueL1Lifecycle's SetL1ValidatorWeightTx
	// gives the registered validator.
	L1UpdatedWeight = 40
	// L1BalanceIncrease is what IssueL1Lifecycle's
	// IncreaseL1ValidatorBalanceTx adds to the registered validator.
	L1BalanceIncrease = units.Avax / 10
	// RegisterL1ValidatorExpiry is how far in the future the expiry of
	// RegisterL1Validator's warp message is set (the P-chain allows 24h).
	RegisterL1ValidatorExpiry = 5 * time.Minute
)

// L1 is a subnet converted to an L1 on this network, managed by a random
// address on a chain of the subnet. Its validators' BLS keys are held here.
type L1 struct {
	SubnetID       ids.ID
	ManagerChainID ids.ID
	ManagerAddress []byte
	// CreateSubnetTx (= SubnetID), CreateChainTx (= ManagerChainID) and
	// ConvertSubnetToL1Tx made the L1.
	CreateSubnetTx      ids.ID
	CreateChainTx       ids.ID
	ConvertSubnetToL1Tx ids.ID
	// ConvertedHeight is a P-chain height at or after the conversion.
	ConvertedHeight uint64

	mu         sync.Mutex
	validators []*L1Validator
}

// L1Validator is a validator of an L1 whose BLS key is held.
type L1Validator struct {
	// TxID added the validator: the ConvertSubnetToL1Tx or a
	// RegisterL1ValidatorTx.
	TxID         ids.ID
	ValidationID ids.ID
	NodeID       ids.NodeID
	// Weight and Balance are the validator's as issued.
	Weight  uint64
	Balance uint64
	// Signer is the validator's BLS key.
	Signer *localsigner.LocalSigner
}

// PublicKey returns the validator's BLS public key.
func (v *L1Validator) PublicKey() *bls.PublicKey { return v.Signer.PublicKey() }

// Validators returns the L1's validators added through this process, in
// the order they were added (the conversion's first).
func (l *L1) Validators() []*L1Validator {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*L1Validator(nil), l.validators...)
}

func (l *L1) add(v *L1Validator) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.validators = append(l.validators, v)
}

// signers returns the held keys by uncompressed public key.
func (l *L1) signers() map[string]*localsigner.LocalSigner {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := make(map[string]*localsigner.LocalSigner, len(l.validators))
	for _, v := range l.validators {
		m[string(bls.PublicKeyToUncompressedBytes(v.Signer.PublicKey()))] = v.Signer
	}
	return m
}

func newL1Validator() (*L1Validator, error) {
	nodeID, err := RandomNodeID()
	if err != nil {
		return nil, err
	}
	sk, err := localsigner.New()
	if err != nil {
		return nil, fmt.Errorf("BLS key: %w", err)
	}
	return &L1Validator{NodeID: nodeID, Signer: sk}, nil
}

// CreateL1 creates a subnet and a chain on it, and converts the subnet to
// an L1 managed by a random address on that chain, with one validator of a
// random node id and a fresh BLS key (held in the L1), weight
// L1ValidatorWeight and balance L1ValidatorBalance owned by the local key.
// Each tx is committed when it returns.
func (n *Network) CreateL1(ctx context.Context) (*L1, error) {
	subnetID, err := n.CreateSubnet(ctx)
	if err != nil {
		return nil, err
	}
	chainID, err := n.CreateChain(ctx, subnetID, "avaindex l1 manager")
	if err != nil {
		return nil, err
	}
	l1 := &L1{
		SubnetID:       subnetID,
		ManagerChainID: chainID,
		ManagerAddress: make([]byte, 20),
		CreateSubnetTx: subnetID,
		CreateChainTx:  chainID,
	}
	if _, err := rand.Read(l1.ManagerAddress); err != nil {
		return nil, err
	}
	vdr, err := newL1Validator()
	if err != nil {
		return nil, err
	}
	vdr.ValidationID = subnetID.Append(0)
	vdr.Weight = L1ValidatorWeight
	vdr.Balance = L1ValidatorBalance
	pop, err := newPoPFor(vdr.Signer)
	if err != nil {
		return nil, err
	}
	owner := message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{n.Addr}}
	txID, err := n.issueP(ctx, primary.WalletConfig{SubnetIDs: []ids.ID{subnetID}}, func(w pwallet.Wallet, opts ...common.Option) (*txs.Tx, error) {
		return w.IssueConvertSubnetToL1Tx(subnetID, chainID, l1.ManagerAddress, []*txs.ConvertSubnetToL1Validator{{
			NodeID:                vdr.NodeID.Bytes(),
			Weight:                vdr.Weight,
			Balance:               vdr.Balance,
			Signer:                *pop,
			RemainingBalanceOwner: owner,
			DeactivationOwner:     owner,
		}}, opts...)
	})
	if err != nil {
		return nil, fmt.Errorf("ConvertSubnetToL1Tx: %w", err)
	}
	vdr.TxID = txID
	l1.ConvertSubnetToL1Tx = txID
	l1.add(vdr)
	if l1.ConvertedHeight, err = n.PClient().GetHeight(ctx); err != nil {
		return nil, fmt.Errorf("platform.getHeight: %w", err)
	}
	return l1, nil
}

// AdvanceEpoch returns once the P-chain's current epoch (the one its next
// block belongs to) verifies warp messages at a P-chain height of at least
// height. Until then it waits for the epoch to end and issues a P-chain
// BaseTx (1 nAVAX to the local key) so that a block seals it; it returns
// the ids of those txs.
func (n *Network) AdvanceEpoch(ctx context.Context, height uint64) ([]ids.ID, error) {
	upgrades, err := n.InfoClient().Upgrades(ctx)
	if err != nil {
		return nil, fmt.Errorf("info.upgrades: %w", err)
	}
	pvm := proposervm.NewJSONRPCClient(n.URL, "P")
	var issued []ids.ID
	for {
		epoch, err := pvm.GetCurrentEpoch(ctx)
		if err != nil {
			return issued, fmt.Errorf("proposervm.getCurrentEpoch: %w", err)
		}
		if epoch.PChainHeight >= height {
			return issued, nil
		}
		if len(issued) >= 5 {
			return issued, fmt.Errorf("the P-chain epoch is at height %d after %d blocks, want %d", epoch.PChainHeight, len(issued), height)
		}
		// Block timestamps are whole seconds; a block sealing the epoch must
		// be stamped at or after its end.
		end := time.Unix(epoch.StartTime, 0).Add(upgrades.GraniteEpochDuration)
		if err := sleep(ctx, time.Until(end)+200*time.Millisecond); err != nil {
			return issued, fmt.Errorf("waiting for epoch %d to end: %w", epoch.Number, err)
		}
		txID, err := n.PBaseTx(ctx, n.Addr, 1)
		if err != nil {
			return issued, fmt.Errorf("sealing epoch %d: %w", epoch.Number, err)
		}
		issued = append(issued, txID)
	}
}

// SignL1Warp returns the warp message that carries l1Message (a
// RegisterL1Validator or L1ValidatorWeight payload's bytes) from the L1's
// manager address on its manager chain, signed by every held validator key
// in the L1's validator set at the P-chain height of the current epoch,
// their BLS signatures aggregated. It fails if those keys do not hold the
// P-chain's 67% quorum of that set's weight.
func (n *Network) SignL1Warp(ctx context.Context, l1 *L1, l1Message []byte) (*warp.Message, error) {
	call, err := payload.NewAddressedCall(l1.ManagerAddress, l1Message)
	if err != nil {
		return nil, err
	}
	unsigned, err := warp.NewUnsignedMessage(n.NetworkID, l1.ManagerChainID, call.Bytes())
	if err != nil {
		return nil, err
	}
	epoch, err := proposervm.NewJSONRPCClient(n.URL, "P").GetCurrentEpoch(ctx)
	if err != nil {
		return nil, fmt.Errorf("proposervm.getCurrentEpoch: %w", err)
	}
	vdrs, err := n.PClient().GetValidatorsAt(ctx, l1.SubnetID, platformapi.Height(epoch.PChainHeight))
	if err != nil {
		return nil, fmt.Errorf("platform.getValidatorsAt %s %d: %w", l1.SubnetID, epoch.PChainHeight, err)
	}
	canonical, err := validators.FlattenValidatorSet(vdrs)
	if err != nil {
		return nil, err
	}
	held := l1.signers()
	var (
		indices []int
		sigs    []*bls.Signature
		weight  uint64
	)
	for i, v := range canonical.Validators {
		sk, ok := held[string(v.PublicKeyBytes)]
		if !ok {
			continue
		}
		sig, err := sk.Sign(unsigned.Bytes())
		if err != nil {
			return nil, err
		}
		indices = append(indices, i)
		sigs = append(sigs, sig)
		weight += v.Weight
	}
	if err := warp.VerifyWeight(weight, canonical.TotalWeight, warpQuorumNum, warpQuorumDen); err != nil {
		return nil, fmt.Errorf("held keys of L1 %s at P-chain height %d: %w", l1.SubnetID, epoch.PChainHeight, err)
	}
	agg, err := bls.AggregateSignatures(sigs)
	if err != nil {
		return nil, err
	}
	sig := &warp.BitSetSignature{Signers: set.NewBits(indices...).Bytes()}
	copy(sig.Signature[:], bls.SignatureToBytes(agg))
	return warp.NewMessage(unsigned, sig)
}

// The P-chain's warp quorum (txs/executor.WarpQuorumNumerator/Denominator).
const (
	warpQuorumNum = 67
	warpQuorumDen = 100
)

// issueWarp signs l1Message for l1 and issues the tx issue builds from the
// signed message, after making sure the current epoch sees the L1's
// conversion. A tx refused or dropped for its warp message (the epoch
// turned between signing and building) is signed and issued again in a
// later epoch.
func (n *Network) issueWarp(ctx context.Context, l1 *L1, l1Message []byte, cfg primary.WalletConfig,
	issue func(w pwallet.Wallet, msg []byte, opts ...common.Option) (*txs.Tx, error),
) (ids.ID, error) {
	height := l1.ConvertedHeight
	for attempt := 1; ; attempt++ {
		if _, err := n.AdvanceEpoch(ctx, height); err != nil {
			return ids.Empty, err
		}
		msg, err := n.SignL1Warp(ctx, l1, l1Message)
		if err != nil {
			return ids.Empty, err
		}
		txID, err := n.issueP(ctx, cfg, func(w pwallet.Wallet, opts ...common.Option) (*txs.Tx, error) {
			return issue(w, msg.Bytes(), opts...)
		})
		if err == nil || attempt == 3 || !isWarpFailure(err) {
			return txID, err
		}
		// Retry in an epoch that begins after now.
		if height, err = n.PClient().GetHeight(ctx); err != nil {
			return ids.Empty, fmt.Errorf("platform.getHeight: %w", err)
		}
	}
}

func isWarpFailure(err error) bool {
	s := err.Error()
	for _, frag := range []string{"warp", "signature", "unknown validator", "insufficient weight"} {
		if strings.Contains(s, frag) {
			return true
		}
	}
	return false
}

// errDropped reports a tx the P-chain dropped from its mempool.
var errDropped = errors.New("dropped")

// issueP issues the tx built by issue with a fresh P-chain wallet over the
// local key and waits until it is committed. Unlike the wallet's own wait,
// it fails at once when the tx is aborted or dropped.
func (n *Network) issueP(ctx context.Context, cfg primary.WalletConfig, issue func(w pwallet.Wallet, opts ...common.Option) (*txs.Tx, error)) (ids.ID, error) {
	var txID ids.ID
	err := n.WithWallet(ctx, cfg, func(w *primary.Wallet) error {
		tx, err := issue(w.P(), common.WithAssumeDecided())
		if err != nil {
			return err
		}
		txID = tx.ID()
		return n.waitPCommitted(ctx, txID)
	})
	return txID, err
}

func (n *Network) waitPCommitted(ctx context.Context, txID ids.ID) error {
	pc := n.PClient()
	tick := time.NewTicker(pollFrequency)
	defer tick.Stop()
	for {
		resp, err := pc.GetTxStatus(ctx, txID)
		if err != nil {
			return fmt.Errorf("platform.getTxStatus %s: %w", txID, err)
		}
		switch resp.Status {
		case status.Committed:
			return nil
		case status.Aborted:
			return fmt.Errorf("tx %s aborted", txID)
		case status.Dropped:
			return fmt.Errorf("tx %s %w: %s", txID, errDropped, resp.Reason)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for tx %s (status %s): %w", txID, resp.Status, ctx.Err())
		case <-tick.C:
		}
	}
}

// RegisterL1Validator registers a new validator of l1 (a random node id and
// a fresh BLS key, held in l1) with weight and balance, both owners the
// local key, through a RegisterL1ValidatorTx carrying a RegisterL1Validator
// warp message signed by l1's held validator keys.
func (n *Network) RegisterL1Validator(ctx context.Context, l1 *L1, weight, balance uint64) (*L1Validator, error) {
	vdr, err := newL1Validator()
	if err != nil {
		return nil, err
	}
	vdr.Weight, vdr.Balance = weight, balance
	pop, err := newPoPFor(vdr.Signer)
	if err != nil {
		return nil, err
	}
	owner := message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{n.Addr}}
	msg, err := message.NewRegisterL1Validator(l1.SubnetID, vdr.NodeID, pop.PublicKey,
		uint64(time.Now().Add(RegisterL1ValidatorExpiry).Unix()), owner, owner, weight)
	if err != nil {
		return nil, err
	}
	vdr.ValidationID = msg.ValidationID()
	vdr.TxID, err = n.issueWarp(ctx, l1, msg.Bytes(), primary.WalletConfig{},
		func(w pwallet.Wallet, signed []byte, opts ...common.Option) (*txs.Tx, error) {
			return w.IssueRegisterL1ValidatorTx(balance, pop.ProofOfPossession, signed, opts...)
		})
	if err != nil {
		return nil, fmt.Errorf("RegisterL1ValidatorTx: %w", err)
	}
	l1.add(vdr)
	return vdr, nil
}

// SetL1ValidatorWeight sets the weight of l1's validator validationID
// through a SetL1ValidatorWeightTx carrying an L1ValidatorWeight warp
// message with nonce (at least the validator's current minimum nonce),
// signed by l1's held validator keys. Weight 0 removes the validator.
func (n *Network) SetL1ValidatorWeight(ctx context.Context, l1 *L1, validationID ids.ID, nonce, weight uint64) (ids.ID, error) {
	msg, err := message.NewL1ValidatorWeight(validationID, nonce, weight)
	if err != nil {
		return ids.Empty, err
	}
	txID, err := n.issueWarp(ctx, l1, msg.Bytes(), primary.WalletConfig{},
		func(w pwallet.Wallet, signed []byte, opts ...common.Option) (*txs.Tx, error) {
			return w.IssueSetL1ValidatorWeightTx(signed, opts...)
		})
	if err != nil {
		return ids.Empty, fmt.Errorf("SetL1ValidatorWeightTx: %w", err)
	}
	return txID, nil
}

// IncreaseL1ValidatorBalance adds amount nAVAX to the balance of the L1
// validator validationID.
func (n *Network) IncreaseL1ValidatorBalance(ctx context.Context, validationID ids.ID, amount uint64) (ids.ID, error) {
	if amount == 0 {
		return ids.Empty, errNoAmount
	}
	txID, err := n.issueP(ctx, primary.WalletConfig{}, func(w pwallet.Wallet, opts ...common.Option) (*txs.Tx, error) {
		return w.IssueIncreaseL1ValidatorBalanceTx(validationID, amount, opts...)
	})
	if err != nil {
		return ids.Empty, fmt.Errorf("IncreaseL1ValidatorBalanceTx: %w", err)
	}
	return txID, nil
}

// DisableL1Validator disables the L1 validator validationID, whose
// deactivation owner must be the local key, returning its remaining
// balance to its remaining balance owner.
func (n *Network) DisableL1Validator(ctx context.Context, validationID ids.ID) (ids.ID, error) {
	txID, err := n.issueP(ctx, primary.WalletConfig{ValidationIDs: []ids.ID{validationID}}, func(w pwallet.Wallet, opts ...common.Option) (*txs.Tx, error) {
		return w.IssueDisableL1ValidatorTx(validationID, opts...)
	})
	if err != nil {
		return ids.Empty, fmt.Errorf("DisableL1ValidatorTx: %w", err)
	}
	return txID, nil
}

// L1Issued holds the ids of everything IssueL1Lifecycle issued. Every tx
// was committed.
type L1Issued struct {
	// L1 is the converted L1; its Validators are the conversion's and
	// Registered.
	L1 *L1

	CreateSubnetTx      ids.ID // = L1.SubnetID
	CreateChainTx       ids.ID // = L1.ManagerChainID
	ConvertSubnetToL1Tx ids.ID
	// EpochTxs are the P-chain BaseTxs issued to seal epochs.
	EpochTxs []ids.ID

	RegisterL1ValidatorTx ids.ID
	// Registered was registered with L1RegisteredWeight and
	// L1RegisteredBalance.
	Registered *L1Validator
	// SetL1ValidatorWeightTx set Registered's weight to L1UpdatedWeight
	// (nonce 0).
	SetL1ValidatorWeightTx ids.ID
	// IncreaseL1ValidatorBalanceTx added L1BalanceIncrease to Registered.
	IncreaseL1ValidatorBalanceTx ids.ID
	// DisableL1ValidatorTx disabled Registered, refunding its balance.
	DisableL1ValidatorTx ids.ID
}

// IssueL1Lifecycle creates an L1 (CreateL1) and runs one validator through
// its whole life: RegisterL1ValidatorTx, SetL1ValidatorWeightTx,
// IncreaseL1ValidatorBalanceTx and DisableL1ValidatorTx, each committed
// before the next. It needs the custom network (GetCustom) and takes about
// one P-chain epoch (30 s) plus a few seconds.
func (n *Network) IssueL1Lifecycle(ctx context.Context) (*L1Issued, error) {
	step := func(name string, err error) error {
		return fmt.Errorf("IssueL1Lifecycle %s: %w", name, err)
	}
	l1, err := n.CreateL1(ctx)
	if err != nil {
		return nil, step("CreateL1", err)
	}
	out := &L1Issued{
		L1:                  l1,
		CreateSubnetTx:      l1.CreateSubnetTx,
		CreateChainTx:       l1.CreateChainTx,
		ConvertSubnetToL1Tx: l1.ConvertSubnetToL1Tx,
	}
	// Advanced here, not inside RegisterL1Validator, to report the txs.
	if out.EpochTxs, err = n.AdvanceEpoch(ctx, l1.ConvertedHeight); err != nil {
		return nil, step("AdvanceEpoch", err)
	}
	if out.Registered, err = n.RegisterL1Validator(ctx, l1, L1RegisteredWeight, L1RegisteredBalance); err != nil {
		return nil, step("RegisterL1Validator", err)
	}
	out.RegisterL1ValidatorTx = out.Registered.TxID
	vid := out.Registered.ValidationID
	if out.SetL1ValidatorWeightTx, err = n.SetL1ValidatorWeight(ctx, l1, vid, 0, L1UpdatedWeight); err != nil {
		return nil, step("SetL1ValidatorWeight", err)
	}
	if out.IncreaseL1ValidatorBalanceTx, err = n.IncreaseL1ValidatorBalance(ctx, vid, L1BalanceIncrease); err != nil {
		return nil, step("IncreaseL1ValidatorBalance", err)
	}
	if out.DisableL1ValidatorTx, err = n.DisableL1Validator(ctx, vid); err != nil {
		return nil, step("DisableL1Validator", err)
	}
	return out, nil
}

// newPoPFor returns sk's proof of possession.
func newPoPFor(sk bls.Signer) (*signer.ProofOfPossession, error) {
	pop, err := signer.NewProofOfPossession(sk)
	if err != nil {
		return nil, fmt.Errorf("BLS proof of possession: %w", err)
	}
	return pop, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
