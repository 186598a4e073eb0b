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

// validatorsAtCheckTimeout bounds the store reads that decide whether a
// call is answered here.
const validatorsAtCheckTimeout = 2 * time.Second

// ValidatorsAtSource is what deciding where a getValidatorsAt call is
// answered reads.
type ValidatorsAtSource interface {
	Cursor(ctx context.Context, key store.CursorKey) (height uint64, ok bool, err error)
	Subnet(ctx context.Context, id ids.ID) (*pchain.Subnet, error)
	PBlockTime(ctx context.Context, height uint64) (time.Time, error)
}

// ValidatorsAtForwarded returns the calls of platform.getValidatorsAt
// that go to the node (see above). Arguments that do not decode stay
// here: the store's service answers them in the node's words.
func ValidatorsAtForwarded(src ValidatorsAtSource) func(method string, params json.RawMessage) bool {
	return func(method string, params json.RawMessage) bool {
		if method != "platform.getValidatorsAt" {
			return false
		}
		var args platformvm.GetValidatorsAtArgs
		if err := json.Unmarshal(params, &args); err != nil {
			var arr []platformvm.GetValidatorsAtArgs
			if err := json.Unmarshal(params, &arr); err != nil || len(arr) != 1 {
				return false
			}
			args = arr[0]
		}
		ctx, cancel := context.WithTimeout(context.Background(), validatorsAtCheckTimeout)
		defer cancel()
		ok, err := validatorsAtLocal(ctx, src, &args)
		return err != nil || !ok
	}
}

// validatorsAtLocal reports whether the store answers args.
func validatorsAtLocal(ctx context.Context, src ValidatorsAtSource, args *platformvm.GetValidatorsAtArgs) (bool, error) {
	if args.Height.IsProposed() {
		return false, nil
	}
	tip, ok, err := src.Cursor(ctx, store.ChainCursor(internal.PChain))
	if err != nil || !ok || uint64(args.Height) > tip {
		return false, err
	}
	if args.Height > 0 {
		// Before Banff the chain time is in no block: which stakers were
		// pending then is the node's.
		t, err := src.PBlockTime(ctx, uint64(args.Height))
		if err != nil || t.IsZero() {
			return false, err
		}
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
			args.SubnetID, heightString(args))
	}
	height := uint64(args.Height)
	stakers, err := p.store.StakersAt(ctx, args.SubnetID, height)
	if err != nil {
		return storeError(fmt.Sprintf("failed to get validator set at %d", height), err)
	}
	keys := map[ids.NodeID][]byte{}
	primary := stakers
	if args.SubnetID != constants.PrimaryNetworkID {
		if primary, err = p.store.StakersAt(ctx, constants.PrimaryNetworkID, height); err != nil {
			return storeError(fmt.Sprintf("failed to get validator set at %d", height), err)
		}
	}
	for _, s := range primary {
		if s.Kind == pchain.KindValidator {
			keys[s.NodeID] = s.PublicKey
		}
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
			return fmt.Errorf("failed to get validator set at %d: BLS key of %s: %w", height, s.NodeID, err)
		}
	}
	reply.Validators = out
	return nil
}

func heightString(args *platformvm.GetValidatorsAtArgs) string {
	if args.Height.IsProposed() {
		return "the proposed height"
	}
	return fmt.Sprintf("height %d", uint64(args.Height))
}
