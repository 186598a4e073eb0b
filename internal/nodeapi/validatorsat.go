package nodeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	platformapi "github.com/ava-labs/avalanchego/vms/platformvm/api"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
)

// platform.getValidatorsAt is served from the staking records at heights
// avaindex has indexed. The rest is the node's (ValidatorsAtForwarded):
// the "proposed" height (the node's proposervm window), heights past the
// indexed tip and heights before Banff (whose chain time no block
// carries).
//
// An L1's set, from its conversion on, is as the node's validator manager
// keeps it (platformvm/state, v1.14.2): its legacy validators while they
// last, each active L1 validator with its own BLS key, and the weight of
// the inactive ones (disabled, or whose balance the continuous fee ran
// out) summed under ids.EmptyNodeID with no key. Which are active comes
// from the fee replay's history (p_l1_balance_changes); while a store
// still lacks it (its backfill pending) L1 sets go to the node.
//
// platform.getAllValidatorsAt is every subnet's set at once, in warp's
// form (validators.FlattenValidatorSet, as the node builds it), served
// here at the heights getValidatorsAt is.

// validatorsAtCheckTimeout bounds the store reads that decide whether a
// call is answered here.
const validatorsAtCheckTimeout = 2 * time.Second

// ValidatorsAtSource is what deciding where a getValidatorsAt call is
// answered reads.
type ValidatorsAtSource interface {
	Cursor(ctx context.Context, key store.CursorKey) (height uint64, ok bool, err error)
	Subnet(ctx context.Context, id ids.ID) (*pchain.Subnet, error)
	PBlockTime(ctx context.Context, height uint64) (time.Time, error)
	Subnets(ctx context.Context) ([]*pchain.Subnet, error)
	PendingBackfills(ctx context.Context) ([]store.Backfill, error)
}

// l1HistoryReady reports whether the store holds the L1 fee history that
// tells which L1 validators were active at a height.
func l1HistoryReady(ctx context.Context, src ValidatorsAtSource) (bool, error) {
	pending, err := src.PendingBackfills(ctx)
	if err != nil {
		return false, err
	}
	for _, b := range pending {
		if b.Name == "l1_fee_history" {
			return false, nil
		}
	}
	return true, nil
}

// ValidatorsAtForwarded returns the calls of platform.getValidatorsAt and
// getAllValidatorsAt that go to the node (see above). Arguments that do
// not decode stay here: the store's service answers them in the node's
// words.
func ValidatorsAtForwarded(src ValidatorsAtSource) func(method string, params json.RawMessage) bool {
	return func(method string, params json.RawMessage) bool {
		var local func(ctx context.Context) (bool, error)
		switch method {
		case "platform.getValidatorsAt":
			var args platformvm.GetValidatorsAtArgs
			if !decodeArgs(params, &args) {
				return false
			}
			local = func(ctx context.Context) (bool, error) { return validatorsAtLocal(ctx, src, &args) }
		case "platform.getAllValidatorsAt":
			var args platformvm.GetAllValidatorsAtArgs
			if !decodeArgs(params, &args) {
				return false
			}
			local = func(ctx context.Context) (bool, error) { return allValidatorsAtLocal(ctx, src, args.Height) }
		default:
			return false
		}
		ctx, cancel := context.WithTimeout(context.Background(), validatorsAtCheckTimeout)
		defer cancel()
		ok, err := local(ctx)
		return err != nil || !ok
	}
}

// decodeArgs decodes a call's params, an object or an array of one, into
// args, and reports whether they decoded.
func decodeArgs[T any](params json.RawMessage, args *T) bool {
	if err := json.Unmarshal(params, args); err == nil {
		return true
	}
	var arr []T
	if err := json.Unmarshal(params, &arr); err != nil || len(arr) != 1 {
		return false
	}
	*args = arr[0]
	return true
}

// heightLocal reports whether the staking records answer at height: not
// the proposed height, one indexed, and one whose block has a chain time.
func heightLocal(ctx context.Context, src ValidatorsAtSource, height platformapi.Height) (bool, error) {
	if height.IsProposed() {
		return false, nil
	}
	tip, ok, err := src.Cursor(ctx, store.ChainCursor(internal.PChain))
	if err != nil || !ok || uint64(height) > tip {
		return false, err
	}
	if height > 0 {
		// Before Banff the chain time is in no block: which stakers were
		// pending then is the node's.
		t, err := src.PBlockTime(ctx, uint64(height))
		if err != nil || t.IsZero() {
			return false, err
		}
	}
	return true, nil
}

// allValidatorsAtLocal reports whether the store answers
// getAllValidatorsAt(height): at a height it answers getValidatorsAt for
// every subnet.
func allValidatorsAtLocal(ctx context.Context, src ValidatorsAtSource, height platformapi.Height) (bool, error) {
	if ok, err := heightLocal(ctx, src, height); err != nil || !ok {
		return false, err
	}
	subnets, err := src.Subnets(ctx)
	if err != nil {
		return false, err
	}
	for _, sn := range subnets {
		if converted(sn, uint64(height)) {
			return l1HistoryReady(ctx, src)
		}
	}
	return true, nil
}

// validatorsAtLocal reports whether the store answers args.
func validatorsAtLocal(ctx context.Context, src ValidatorsAtSource, args *platformvm.GetValidatorsAtArgs) (bool, error) {
	if ok, err := heightLocal(ctx, src, args.Height); err != nil || !ok {
		return false, err
	}
	if args.SubnetID == constants.PrimaryNetworkID {
		return true, nil
	}
	sn, err := src.Subnet(ctx, args.SubnetID)
	switch {
	case errors.Is(err, derrors.NotFound):
		return true, nil // no validators, as the node answers
	case err != nil:
		return false, err
	}
	if !converted(sn, uint64(args.Height)) {
		return true, nil
	}
	return l1HistoryReady(ctx, src)
}

// GetValidatorsAt answers the validator set of a subnet at a P-chain
// height: each node's weight (its validator's and its delegators') and
// BLS key (a subnet validator's is its node's primary network key).
func (p *Platform) GetValidatorsAt(r *http.Request, args *platformvm.GetValidatorsAtArgs, reply *platformvm.GetValidatorsAtReply) error {
	ctx := r.Context()
	ok, err := validatorsAtLocal(ctx, p.store, args)
	if err != nil {
		return storeError("failed to get validator set", err)
	}
	if !ok {
		return fmt.Errorf("the validator set of %s at %s is the node's: call platform.getValidatorsAt alone to have it forwarded",
			args.SubnetID, heightString(args.Height))
	}
	height := uint64(args.Height)
	keys, err := p.primaryKeys(ctx, height)
	if err != nil {
		return err
	}
	l1 := false
	if args.SubnetID != constants.PrimaryNetworkID {
		sn, err := p.store.Subnet(ctx, args.SubnetID)
		switch {
		case err == nil:
			l1 = converted(sn, height)
		case !errors.Is(err, derrors.NotFound):
			return storeError("failed to get validator set", err)
		}
	}
	reply.Validators, err = p.validatorSet(ctx, args.SubnetID, height, keys, l1)
	return err
}

// converted reports whether sn was an L1 at height.
func converted(sn *pchain.Subnet, height uint64) bool {
	return sn.Conversion != nil && sn.Conversion.At.Height <= height
}

// primaryKeys returns the BLS keys of the primary network's validators at
// height: a subnet validator's key is its node's.
func (p *Platform) primaryKeys(ctx context.Context, height uint64) (map[ids.NodeID][]byte, error) {
	primary, err := p.store.StakersAt(ctx, constants.PrimaryNetworkID, height)
	if err != nil {
		return nil, storeError(fmt.Sprintf("failed to get validator set at %d", height), err)
	}
	keys := map[ids.NodeID][]byte{}
	for _, s := range primary {
		if s.Kind == pchain.KindValidator {
			keys[s.NodeID] = s.PublicKey
		}
	}
	return keys, nil
}

// validatorSet returns the validator set of subnetID at height, as the
// node's validators.State: each node's weight (its validator's and its
// delegators') and BLS key (keys are the primary network's, primaryKeys);
// for an L1 (l1: converted by height), its L1 validators too (l1Set).
func (p *Platform) validatorSet(ctx context.Context, subnetID ids.ID, height uint64, keys map[ids.NodeID][]byte, l1 bool) (map[ids.NodeID]*validators.GetValidatorOutput, error) {
	stakers, err := p.store.StakersAt(ctx, subnetID, height)
	if err != nil {
		return nil, storeError(fmt.Sprintf("failed to get validator set at %d", height), err)
	}
	out := make(map[ids.NodeID]*validators.GetValidatorOutput)
	for _, s := range stakers {
		v := out[s.NodeID]
		if v == nil {
			v = &validators.GetValidatorOutput{NodeID: s.NodeID}
			out[s.NodeID] = v
		}
		v.Weight += s.Weight
		if s.Kind == pchain.KindDelegator || v.PublicKey != nil || len(keys[s.NodeID]) == 0 {
			continue
		}
		if v.PublicKey, err = bls.PublicKeyFromCompressedBytes(keys[s.NodeID]); err != nil {
			return nil, fmt.Errorf("failed to get validator set at %d: BLS key of %s: %w", height, s.NodeID, err)
		}
	}
	if l1 {
		if err := p.l1Set(ctx, subnetID, height, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// l1Set adds the L1 validators of subnetID at height to set, as the
// node's validator manager holds them: the active ones under their node
// ids with their own keys, the inactive ones' weight summed under
// ids.EmptyNodeID with no key. The legacy validators in set stay, as on
// the node, until their end time.
func (p *Platform) l1Set(ctx context.Context, subnetID ids.ID, height uint64, set map[ids.NodeID]*validators.GetValidatorOutput) error {
	vdrs, complete, err := p.store.L1ValidatorsAt(ctx, subnetID, height)
	if err != nil {
		return storeError(fmt.Sprintf("failed to get validator set at %d", height), err)
	}
	if !complete {
		return fmt.Errorf("the validator set of %s at height %d is the node's: the index's L1 fee history is not complete yet", subnetID, height)
	}
	for _, l := range vdrs {
		nodeID := ids.EmptyNodeID
		if l.Active {
			nodeID = l.NodeID
		}
		v := set[nodeID]
		if v == nil {
			v = &validators.GetValidatorOutput{NodeID: nodeID}
			set[nodeID] = v
		}
		v.Weight += l.Weight
		if !l.Active || v.PublicKey != nil {
			continue
		}
		if v.PublicKey, err = bls.PublicKeyFromCompressedBytes(l.PublicKey); err != nil {
			return fmt.Errorf("failed to get validator set at %d: BLS key of L1 validator %s: %w", height, l.ValidationID, err)
		}
	}
	return nil
}

// GetAllValidatorsAt answers every subnet's validator set at a P-chain
// height that has one, in warp's form: validators with a BLS key merged
// by key and sorted by it, the total weight including those without one.
func (p *Platform) GetAllValidatorsAt(r *http.Request, args *platformvm.GetAllValidatorsAtArgs, reply *platformvm.GetAllValidatorsAtReply) error {
	ctx := r.Context()
	ok, err := allValidatorsAtLocal(ctx, p.store, args.Height)
	if err != nil {
		return storeError("failed to get validator sets", err)
	}
	if !ok {
		return fmt.Errorf("the validator sets at %s are the node's: call platform.getAllValidatorsAt alone to have it forwarded",
			heightString(args.Height))
	}
	height := uint64(args.Height)
	keys, err := p.primaryKeys(ctx, height)
	if err != nil {
		return err
	}
	subnets, err := p.store.Subnets(ctx)
	if err != nil {
		return storeError("failed to get validator sets", err)
	}
	reply.ValidatorSets = map[ids.ID]validators.WarpSet{}
	subnetIDs := []ids.ID{constants.PrimaryNetworkID}
	l1s := map[ids.ID]bool{}
	for _, sn := range subnets {
		if sn.ID != constants.PrimaryNetworkID && sn.Created.Height <= height {
			subnetIDs = append(subnetIDs, sn.ID)
			l1s[sn.ID] = converted(sn, height)
		}
	}
	for _, id := range subnetIDs {
		set, err := p.validatorSet(ctx, id, height, keys, l1s[id])
		if err != nil {
			return err
		}
		if len(set) == 0 {
			continue // the node keeps no empty set
		}
		ws, err := validators.FlattenValidatorSet(set)
		if err != nil {
			continue // the node leaves out a set whose weight overflows
		}
		reply.ValidatorSets[id] = ws
	}
	return nil
}

func heightString(h platformapi.Height) string {
	if h.IsProposed() {
		return "the proposed height"
	}
	return fmt.Sprintf("height %d", uint64(h))
}
