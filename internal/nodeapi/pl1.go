package nodeapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/ava-labs/avalanchego/database"
	"github.com/ava-labs/avalanchego/ids"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/store"
)

// GetL1Validator answers an L1 validator that has not been removed, with
// its balance at the last indexed block and that block's height.
func (p *Platform) GetL1Validator(r *http.Request, args *platformvm.GetL1ValidatorArgs, reply *platformvm.GetL1ValidatorReply) error {
	ctx := r.Context()
	what := fmt.Sprintf("fetching L1 validator %q failed", args.ValidationID)
	v, err := p.store.L1Validator(ctx, args.ValidationID)
	if err == nil && v.Removed() {
		err = derrors.NotFound
	}
	if errors.Is(err, derrors.NotFound) {
		return fmt.Errorf("%s: %w", what, database.ErrNotFound)
	}
	if err != nil {
		return storeError(what, err)
	}
	h, ok, err := p.store.Cursor(ctx, store.ChainCursor(internal.PChain))
	if err != nil || !ok {
		return errors.New("failed to get the current height")
	}
	balances, err := p.store.L1Balances(ctx, []ids.ID{v.ValidationID})
	if err != nil {
		return storeError(what, err)
	}
	if reply.APIL1Validator, err = p.apiL1Validator(v, balances); err != nil {
		return fmt.Errorf("failed to convert L1 validator to API format: %w", err)
	}
	reply.SubnetID = v.SubnetID
	reply.Height = avajson.Uint64(h)
	return nil
}
