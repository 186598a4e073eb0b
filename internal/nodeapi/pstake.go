package nodeapi

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	safemath "github.com/ava-labs/avalanchego/utils/math"
	"github.com/ava-labs/avalanchego/utils/set"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/stakeable"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal/store"
)

// maxGetStakeAddrs is the node's bound of platform.getStake's addresses.
const maxGetStakeAddrs = 256

// GetStake answers what the addresses have staked in the current stakers'
// txs, as the node sums it: every staked secp256k1 output one of them
// owns, per asset, and those outputs in the node's staker order.
//
// The node walks its current and pending stakers. Since Durango no staker
// is pending, so at any height a caught-up index reaches the current
// stakers are all of them.
func (p *Platform) GetStake(r *http.Request, args *platformvm.GetStakeArgs, reply *platformvm.GetStakeReply) error {
	if len(args.Addresses) > maxGetStakeAddrs {
		return fmt.Errorf("%d addresses provided but this method can take at most %d", len(args.Addresses), maxGetStakeAddrs)
	}
	am, err := addressManager(p.network)
	if err != nil {
		return err
	}
	addrs, err := avax.ParseServiceAddresses(am, args.Addresses)
	if err != nil {
		return err
	}
	ctx := r.Context()
	stakers, err := p.stakingStakers(ctx)
	if err != nil {
		return storeError("couldn't get current stakers", err)
	}
	totals := balances{}
	var outs []*avax.TransferableOutput
	for _, s := range stakers {
		if args.ValidatorsOnly && !s.Priority.IsValidator() {
			continue
		}
		tx, err := p.parsedTx(ctx, s.TxID, "couldn't get staker tx")
		if err != nil {
			return err
		}
		outs = append(outs, ownedStake(tx, addrs, totals)...)
	}
	reply.Stakeds = totals.json()
	reply.Staked = reply.Stakeds[p.network.AVAXAssetID]
	reply.Outputs = make([]string, len(outs))
	for i, o := range outs {
		b, err := txs.Codec.Marshal(txs.CodecVersion, o)
		if err != nil {
			return fmt.Errorf("couldn't serialize output %s: %w", o.ID, err)
		}
		if reply.Outputs[i], err = formatting.Encode(args.Encoding, b); err != nil {
			return fmt.Errorf("couldn't encode output %s as %s: %w", o.ID, args.Encoding, err)
		}
	}
	reply.Encoding = args.Encoding
	return nil
}

// stakingStakers returns the current stakers whose txs can stake tokens:
// the primary network's and the elastic subnets', in the node's order of
// its current-staker set (end time, then priority, then tx id). A
// permissioned subnet's validators stake nothing and are left out.
func (p *Platform) stakingStakers(ctx context.Context) ([]*store.StakerRecord, error) {
	subnets, err := p.store.Subnets(ctx)
	if err != nil {
		return nil, err
	}
	staking := []ids.ID{constants.PrimaryNetworkID}
	for _, s := range subnets {
		if s.TransformTxID != ids.Empty {
			staking = append(staking, s.ID)
		}
	}
	var out []*store.StakerRecord
	for _, id := range staking {
		cs, err := p.store.CurrentStakers(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, cs.Stakers...)
	}
	slices.SortStableFunc(out, func(a, b *store.StakerRecord) int {
		return cmp.Or(cmp.Compare(a.EndTime, b.EndTime), cmp.Compare(a.Priority, b.Priority),
			bytes.Compare(a.TxID[:], b.TxID[:]))
	})
	return out, nil
}

// ownedStake is the node's getStakeHelper: the stake outputs of a
// permissionless staker tx that one of addrs owns, added to totals.
func ownedStake(tx *txs.Tx, addrs set.Set[ids.ShortID], totals balances) []*avax.TransferableOutput {
	staker, ok := tx.Unsigned.(txs.PermissionlessStaker)
	if !ok {
		return nil
	}
	var outs []*avax.TransferableOutput
	for _, o := range staker.Stake() {
		out := o.Out
		if locked, ok := out.(*stakeable.LockOut); ok {
			out = locked.TransferableOut
		}
		secp, ok := out.(*secp256k1fx.TransferOutput)
		if !ok || !slices.ContainsFunc(secp.Addrs, addrs.Contains) {
			continue
		}
		totals.add(o.AssetID(), secp.Amt)
		outs = append(outs, o)
	}
	return outs
}

// GetTotalStake answers the weight of a subnet's current validator set,
// as the node's validator manager sums it: its validators' and
// delegators' weights, and an L1's validators', inactive ones included.
// A subnet with no validators (or no such subnet) weighs 0.
func (p *Platform) GetTotalStake(r *http.Request, args *platformvm.GetTotalStakeArgs, reply *platformvm.GetTotalStakeReply) error {
	cs, err := p.store.CurrentStakers(r.Context(), args.SubnetID)
	if err != nil {
		return storeError("couldn't get total weight", err)
	}
	var total uint64
	add := func(w uint64) error {
		var err error
		if total, err = safemath.Add(total, w); err != nil {
			return fmt.Errorf("couldn't get total weight: %w", err)
		}
		return nil
	}
	for _, s := range cs.Stakers {
		if err := add(s.Weight); err != nil {
			return err
		}
	}
	for _, v := range cs.L1Validators {
		if err := add(v.Weight); err != nil {
			return err
		}
	}
	reply.Weight = avajson.Uint64(total)
	reply.Stake = reply.Weight
	return nil
}
