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

// platform.getValidatorsAt is served from the staking records for the
// primary network and subnets that are not L1s, at heights avaindex has
// indexed. The rest is the node's (ValidatorsAtForwarded): the "proposed"
// height (the node's proposervm window), heights past the indexed tip,
// heights before Banff (whose chain time no block carries), and L1s,
// whose validators leave and rejoin the set as their balance
// runs out and is topped up, which the store keeps for the tip only.
//
// platform.getAllValidatorsAt is every subnet's set at once, in warp's
// form (validators.FlattenValidatorSet, as the node builds it). It is
// served here at the heights getValidatorsAt is, but for those at or past
// the first conversion to an L1: from there on one of the sets is an L1's,
// and those go to the node.

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
// getAllValidatorsAt(height): at a height it answers getValidatorsAt,
// before any subnet was converted to an L1.
func allValidatorsAtLocal(ctx context.Context, src ValidatorsAtSource, height platformapi.Height) (bool, error) {
	if ok, err := heightLocal(ctx, src, height); err != nil || !ok {
		return false, err
	}
	subnets, err := src.Subnets(ctx)
	if err != nil {
		return false, err
	}
	for _, sn := range subnets {
		if sn.Conversion != nil && sn.Conversion.At.Height <= uint64(height) {
			return false, nil
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
	return sn.Conversion == nil, nil
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
	reply.Validators, err = p.validatorSet(ctx, args.SubnetID, height, keys)
	return err
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
// delegators') and BLS key (keys are the primary network's, primaryKeys).
func (p *Platform) validatorSet(ctx context.Context, subnetID ids.ID, height uint64, keys map[ids.NodeID][]byte) (map[ids.NodeID]*validators.GetValidatorOutput, error) {
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
	return out, nil
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
	for _, sn := range subnets {
		if sn.ID != constants.PrimaryNetworkID && sn.Created.Height <= height {
			subnetIDs = append(subnetIDs, sn.ID)
		}
	}
	for _, id := range subnetIDs {
		set, err := p.validatorSet(ctx, id, height, keys)
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
