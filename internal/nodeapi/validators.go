package nodeapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	"github.com/ava-labs/avalanchego/utils/set"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	platformapi "github.com/ava-labs/avalanchego/vms/platformvm/api"
	"github.com/ava-labs/avalanchego/vms/platformvm/reward"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/types"

	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
)

// validatorsUpstreamTimeout bounds the call that fetches the node-only fields of
// getCurrentValidators; past it the store's answer is served without them.
const validatorsUpstreamTimeout = 3 * time.Second

// GetCurrentValidators answers platform.getCurrentValidators as the node
// does (same fields, same order, same errors), from the store.
//
// Where each field comes from:
//
//   - From the store (P-chain txs and the genesis): txID, startTime,
//     endTime, weight, nodeID, validationRewardOwner, delegationRewardOwner,
//     delegationFee, signer, delegatorCount, delegatorWeight, delegators
//     (txID, times, weight, nodeID, rewardOwner); and for L1 validators
//     nodeID, weight, startTime, validationID, publicKey,
//     remainingBalanceOwner, deactivationOwner, minNonce.
//   - Computed by the VM, not in tx bytes, replayed by avaindex from the
//     genesis (pchain.RewardState): potentialReward (validators and
//     delegators), accruedDelegateeReward. Where the store's replay is not
//     complete they are copied from the upstream node's getCurrentValidators
//     for the same arguments, matched by tx id, and read "0" when the node
//     is unreachable or does not list the staker.
//   - Replayed by avaindex (store.L1Balances): an L1 validator's balance,
//     what remains of its deposits after the continuous fee accrued up to
//     the last indexed block, as the node computes it.
//   - Node-local, always from upstream: uptime and connected (primary
//     network validators only). When the node is unreachable or does not
//     list the validator they read as for a validator the node has never
//     seen connected: uptime "0.0000", connected false.
func (p *Platform) GetCurrentValidators(r *http.Request, args *platformvm.GetCurrentValidatorsArgs, reply *platformvm.GetCurrentValidatorsReply) error {
	ctx := r.Context()
	cs, err := p.store.CurrentStakers(ctx, args.SubnetID)
	if err != nil {
		return storeError("failed to get current validators", err)
	}
	nodeIDs := set.Of(args.NodeIDs...)
	if cs.L1 {
		// Everything an L1 validator shows is in the store.
		reply.Validators, err = p.l1Validators(ctx, cs, nodeIDs)
	} else {
		var up *upstreamIndex
		if needsUpstream(args.SubnetID, cs) {
			up = p.upstreamValidators(ctx, args)
		}
		reply.Validators, err = p.stakerValidators(args.SubnetID, cs, nodeIDs, up)
	}
	if err != nil {
		return fmt.Errorf("failed to get current validators: %w", err)
	}
	return nil
}

// needsUpstream reports whether answering for subnetID needs the node:
// for the primary network's uptimes, or for rewards the store lacks.
func needsUpstream(subnetID ids.ID, cs *store.CurrentStakers) bool {
	if subnetID == constants.PrimaryNetworkID {
		return true
	}
	for _, s := range cs.Stakers {
		if s.Kind != pchain.KindSubnetValidator && s.PotentialReward == nil {
			return true
		}
	}
	return false
}

// upstreamIndex is the node's answer indexed by tx id and validation id;
// nil when the node could not be asked.
type upstreamIndex struct {
	byTxID       map[ids.ID]*node.CurrentValidator
	delegatorRwd map[ids.ID]avajson.Uint64
}

func (p *Platform) upstreamValidators(ctx context.Context, args *platformvm.GetCurrentValidatorsArgs) *upstreamIndex {
	if p.upstream == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, validatorsUpstreamTimeout)
	defer cancel()
	vdrs, err := p.upstream.CurrentValidators(ctx, *args)
	if err != nil {
		return nil
	}
	idx := &upstreamIndex{
		byTxID:       map[ids.ID]*node.CurrentValidator{},
		delegatorRwd: map[ids.ID]avajson.Uint64{},
	}
	for i := range vdrs {
		u := &vdrs[i]
		if u.ValidationID == nil {
			idx.byTxID[u.TxID] = u
		}
		for _, d := range u.Delegators {
			if d.PotentialReward != nil {
				idx.delegatorRwd[d.TxID] = *d.PotentialReward
			}
		}
	}
	return idx
}

func (u *upstreamIndex) validator(txID ids.ID) *node.CurrentValidator {
	if u == nil {
		return nil
	}
	return u.byTxID[txID]
}

func (p *Platform) owner(o *pchain.StakerOwner) (*platformapi.Owner, error) {
	if o == nil {
		return nil, nil
	}
	out := &platformapi.Owner{
		Locktime:  avajson.Uint64(o.Locktime),
		Threshold: avajson.Uint32(o.Threshold),
		Addresses: make([]string, 0, len(o.Addresses)),
	}
	for _, a := range o.Addresses {
		s, err := address.Format("P", p.network.HRP, a[:])
		if err != nil {
			return nil, err
		}
		out.Addresses = append(out.Addresses, s)
	}
	return out, nil
}

func apiStaker(s *store.StakerRecord) platformapi.Staker {
	return platformapi.Staker{
		TxID:      s.TxID,
		StartTime: avajson.Uint64(s.StartTime),
		EndTime:   avajson.Uint64(s.EndTime),
		Weight:    avajson.Uint64(s.Weight),
		NodeID:    s.NodeID,
	}
}

// stakerValidators answers for the primary network and for subnets that
// are not L1s, as the node's getPrimaryOrSubnetValidators.
func (p *Platform) stakerValidators(subnetID ids.ID, cs *store.CurrentStakers, nodeIDs set.Set[ids.NodeID], up *upstreamIndex) ([]any, error) {
	n := nodeIDs.Len()
	validators := []any{}
	delegators := map[ids.NodeID][]platformapi.PrimaryDelegator{}
	// With nodeIDs, only the validators asked for and their delegators.
	hasValidator := set.Set[ids.NodeID]{}
	for _, s := range cs.Stakers {
		if s.Kind != pchain.KindDelegator {
			hasValidator.Add(s.NodeID)
		}
	}
	for _, s := range cs.Stakers {
		if n > 0 && (!nodeIDs.Contains(s.NodeID) || !hasValidator.Contains(s.NodeID)) {
			continue
		}
		st := apiStaker(s)
		switch {
		case s.Priority == txs.PrimaryNetworkValidatorCurrentPriority || s.Priority == txs.SubnetPermissionlessValidatorCurrentPriority:
			potential, accrued := avajson.Uint64(0), avajson.Uint64(0)
			var (
				uptime    *avajson.Float32
				connected *bool
			)
			u := up.validator(s.TxID)
			switch {
			case s.PotentialReward != nil:
				potential, accrued = avajson.Uint64(*s.PotentialReward), avajson.Uint64(s.DelegateeReward)
			case u != nil:
				if u.PotentialReward != nil {
					potential = *u.PotentialReward
				}
				if u.AccruedDelegateeReward != nil {
					accrued = *u.AccruedDelegateeReward
				}
			}
			if subnetID == constants.PrimaryNetworkID {
				up, conn := avajson.Float32(0), false
				if u != nil && u.Uptime != nil {
					up = *u.Uptime
				}
				if u != nil && u.Connected != nil {
					conn = *u.Connected
				}
				uptime, connected = &up, &conn
			}
			vro, err := p.owner(s.ValidationRewardOwner)
			if err != nil {
				return nil, err
			}
			dro, err := p.owner(s.DelegationRewardOwner)
			if err != nil {
				return nil, err
			}
			var pop *signer.ProofOfPossession
			if len(s.PublicKey) == bls.PublicKeyLen && len(s.ProofOfPossession) == bls.SignatureLen {
				pop = &signer.ProofOfPossession{}
				copy(pop.PublicKey[:], s.PublicKey)
				copy(pop.ProofOfPossession[:], s.ProofOfPossession)
			}
			validators = append(validators, platformapi.PermissionlessValidator{
				Staker:                 st,
				Uptime:                 uptime,
				Connected:              connected,
				PotentialReward:        &potential,
				AccruedDelegateeReward: &accrued,
				ValidationRewardOwner:  vro,
				DelegationRewardOwner:  dro,
				DelegationFee:          avajson.Float32(100 * float32(s.DelegationShares) / float32(reward.PercentDenominator)),
				Signer:                 pop,
			})
		case s.Kind == pchain.KindDelegator:
			potential := avajson.Uint64(0)
			switch {
			case s.PotentialReward != nil:
				potential = avajson.Uint64(*s.PotentialReward)
			case up != nil:
				potential = up.delegatorRwd[s.TxID]
			}
			var ro *platformapi.Owner
			if n == 1 {
				var err error
				if ro, err = p.owner(s.RewardOwner); err != nil {
					return nil, err
				}
			}
			delegators[s.NodeID] = append(delegators[s.NodeID], platformapi.PrimaryDelegator{
				Staker:          st,
				RewardOwner:     ro,
				PotentialReward: &potential,
			})
		default: // permissioned subnet validator
			validators = append(validators, st)
		}
	}
	for i, v := range validators {
		vdr, ok := v.(platformapi.PermissionlessValidator)
		if !ok {
			continue
		}
		ds := delegators[vdr.NodeID]
		if ds == nil {
			ds = []platformapi.PrimaryDelegator{}
		}
		count, weight := avajson.Uint64(len(ds)), avajson.Uint64(0)
		for _, d := range ds {
			weight += d.Weight
		}
		vdr.DelegatorCount, vdr.DelegatorWeight = &count, &weight
		if n == 1 {
			vdr.Delegators = &ds
		}
		validators[i] = vdr
	}
	return validators, nil
}

// l1Validators answers for an L1 as the node's getL1Validators: the
// subnet's remaining permissioned validators, then its L1 validators by
// node id.
func (p *Platform) l1Validators(ctx context.Context, cs *store.CurrentStakers, nodeIDs set.Set[ids.NodeID]) ([]any, error) {
	all := nodeIDs.Len() == 0
	validators := []any{}
	for _, s := range cs.Stakers {
		if s.Kind == pchain.KindDelegator || (!all && !nodeIDs.Contains(s.NodeID)) {
			continue
		}
		validators = append(validators, apiStaker(s))
	}
	var vids []ids.ID
	for _, v := range cs.L1Validators {
		vids = append(vids, v.ValidationID)
	}
	balances, err := p.store.L1Balances(ctx, vids)
	if err != nil {
		return nil, err
	}
	for _, v := range cs.L1Validators {
		if !all && !nodeIDs.Contains(v.NodeID) {
			continue
		}
		a, err := p.apiL1Validator(v, balances)
		if err != nil {
			return nil, err
		}
		validators = append(validators, a)
	}
	return validators, nil
}

// apiL1Validator is v as the node shows an L1 validator, with its
// remaining balance from balances (by validation id).
func (p *Platform) apiL1Validator(v *pchain.L1Validator, balances map[ids.ID]uint64) (platformapi.APIL1Validator, error) {
	rbo, err := p.owner(v.RemainingBalanceOwner)
	if err != nil {
		return platformapi.APIL1Validator{}, err
	}
	do, err := p.owner(v.DeactivationOwner)
	if err != nil {
		return platformapi.APIL1Validator{}, err
	}
	if rbo == nil {
		rbo = &platformapi.Owner{Addresses: []string{}}
	}
	if do == nil {
		do = &platformapi.Owner{Addresses: []string{}}
	}
	vid := v.ValidationID
	pk := types.JSONByteSlice(v.PublicKey)
	nonce := avajson.Uint64(v.MinNonce)
	balance := avajson.Uint64(0)
	if b, ok := balances[vid]; ok {
		balance = avajson.Uint64(b)
	} else if v.Active {
		// A store without fee state (no network recorded): an upper bound.
		balance = avajson.Uint64(v.DepositedBalance)
	}
	return platformapi.APIL1Validator{
		NodeID:    v.NodeID,
		StartTime: avajson.Uint64(v.StartTime),
		Weight:    avajson.Uint64(v.Weight),
		BaseL1Validator: platformapi.BaseL1Validator{
			ValidationID:          &vid,
			PublicKey:             &pk,
			RemainingBalanceOwner: rbo,
			DeactivationOwner:     do,
			MinNonce:              &nonce,
			Balance:               &balance,
		},
	}, nil
}
