// Package nodeapi serves the node JSON-RPC surface (platform.* at /ext/bc/P
// and the container index at /ext/index/...) from avaindex's store. It
// dispatches with gorilla/rpc and avalanchego's own JSON codec, and takes
// avalanchego's argument and reply types, so envelopes, argument decoding,
// error codes and messages are the node's. It reads the store through
// PlatformSource and ContainerSource, and asks the node for what only a
// live node knows (uptime, connected) through Upstream.
package nodeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/database"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/status"
	"github.com/gorilla/rpc/v2"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
)

// MaxRequestBytes bounds a JSON-RPC request body. The node sets no bound;
// avaindex does, so that no request can make it buffer without limit. The
// largest real requests (getBalance with many addresses) are far smaller.
const MaxRequestBytes = 16 << 20

// newServer returns a JSON-RPC server that decodes requests as the node
// does: method names with a lowercase first letter, and the node's message
// for arguments that do not decode.
func newServer(service any, name string) (http.Handler, error) {
	s := rpc.NewServer()
	codec := avajson.NewCodec()
	s.RegisterCodec(codec, "application/json")
	s.RegisterCodec(codec, "application/json;charset=UTF-8")
	if err := s.RegisterService(service, name); err != nil {
		return nil, fmt.Errorf("registering %s service: %w", name, err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, MaxRequestBytes)
		s.ServeHTTP(w, r)
	}), nil
}

// PlatformSource is what the platform service reads from the store. It
// holds reads only, so the node API cannot write what the indexer owns.
type PlatformSource interface {
	Cursor(ctx context.Context, key store.CursorKey) (height uint64, ok bool, err error)
	PBlockBytesByHeight(ctx context.Context, height uint64) (ids.ID, []byte, error)
	PBlockBytesByID(ctx context.Context, id ids.ID) ([]byte, error)
	PUTXOsOf(ctx context.Context, addrs []ids.ShortID) ([]*store.PUTXO, error)
	PRewardUTXOs(ctx context.Context, stakerTxID ids.ID) ([][]byte, error)
	CurrentStakers(ctx context.Context, subnetID ids.ID) (*store.CurrentStakers, error)
	StakersAt(ctx context.Context, subnetID ids.ID, height uint64) ([]*store.StakerRecord, error)
	L1ValidatorsAt(ctx context.Context, subnetID ids.ID, height uint64) ([]*store.L1ValidatorAt, bool, error)
	PendingBackfills(ctx context.Context) ([]store.Backfill, error)
	PBlockTime(ctx context.Context, height uint64) (time.Time, error)
	L1Balances(ctx context.Context, vids []ids.ID) (map[ids.ID]uint64, error)
	L1Validator(ctx context.Context, validationID ids.ID) (*pchain.L1Validator, error)
	Subnets(ctx context.Context) ([]*pchain.Subnet, error)
	Subnet(ctx context.Context, id ids.ID) (*pchain.Subnet, error)
	Blockchains(ctx context.Context) ([]*pchain.Blockchain, error)
	Blockchain(ctx context.Context, id ids.ID) (*pchain.Blockchain, error)
	Supply(ctx context.Context, subnetID ids.ID) (*store.Supply, error)
	PlatformTxSource
	UTXOPageSource
}

// Upstream is what the platform service asks the node: values only a live
// node knows (uptime, connected, whether it runs a chain), and what the
// store cannot compute yet (rewards and supplies before its replay is
// complete). *node.Client implements it.
type Upstream interface {
	CurrentValidators(ctx context.Context, args platformvm.GetCurrentValidatorsArgs) ([]node.CurrentValidator, error)
	BlockchainStatus(ctx context.Context, blockchainID string) (status.BlockchainStatus, error)
	CurrentSupply(ctx context.Context, subnetID ids.ID) (*platformvm.GetCurrentSupplyReply, error)
}

// NewPlatformHandler returns the handler of /ext/bc/P. upstream is asked
// only for what the store cannot answer (see Upstream); everything else
// comes from src. upstream may be nil: the node-only fields then read as
// for a node that does not answer.
func NewPlatformHandler(src PlatformSource, f *pchain.Formatter, network *internal.Network, upstream Upstream) (http.Handler, error) {
	return newServer(&Platform{store: withBlockCache(src, blockCacheBytes), format: f, network: network, upstream: upstream}, "platform")
}

// Platform implements the platform.* methods from the store.
type Platform struct {
	store    PlatformSource
	format   *pchain.Formatter
	network  *internal.Network
	upstream Upstream
}

// GetHeight answers the height of the last P-chain block avaindex indexed.
func (p *Platform) GetHeight(r *http.Request, _ *struct{}, reply *api.GetHeightResponse) error {
	return indexedHeight(r.Context(), p.store, internal.PChain, reply)
}

// GetBlock answers the block with the given id.
func (p *Platform) GetBlock(r *http.Request, args *api.GetBlockArgs, reply *api.GetBlockResponse) error {
	b, err := p.store.PBlockBytesByID(r.Context(), args.BlockID)
	if err != nil {
		return storeError(fmt.Sprintf("couldn't get block with id %s", args.BlockID), err)
	}
	return p.encodeBlock(args.BlockID, b, args.Encoding, reply)
}

// GetBlockByHeight answers the block at the given height.
func (p *Platform) GetBlockByHeight(r *http.Request, args *api.GetBlockByHeightArgs, reply *api.GetBlockResponse) error {
	id, b, err := p.store.PBlockBytesByHeight(r.Context(), uint64(args.Height))
	if err != nil {
		return storeError(fmt.Sprintf("couldn't get block at height %d", args.Height), err)
	}
	return p.encodeBlock(id, b, args.Encoding, reply)
}

func (p *Platform) encodeBlock(id ids.ID, blk []byte, enc formatting.Encoding, reply *api.GetBlockResponse) error {
	reply.Encoding = enc
	if enc == formatting.JSON {
		b, err := p.format.BlockJSON(blk)
		if err != nil {
			return fmt.Errorf("couldn't encode block %s as %s: %w", id, enc, err)
		}
		reply.Block = b
		return nil
	}
	s, err := formatting.Encode(enc, blk)
	if err != nil {
		return fmt.Errorf("couldn't encode block %s as %s: %w", id, enc, err)
	}
	reply.Block, err = json.Marshal(s)
	return err
}

// storeError words a store failure as the node words its database's:
// "<what>: not found" for missing records.
func storeError(what string, err error) error {
	if errors.Is(err, derrors.NotFound) {
		return fmt.Errorf("%s: %w", what, database.ErrNotFound)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%s: internal error", what)
}
