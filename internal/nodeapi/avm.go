package nodeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/database"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/choices"
	"github.com/ava-labs/avalanchego/utils/formatting"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	"github.com/ava-labs/avalanchego/vms/avm"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/store"
)

// The avm service's errors, word for word (vms/avm/service.go).
var errNilTxID = errors.New("nil transaction ID")

// AVMSource is what the X-chain service reads from the store.
type AVMSource interface {
	Cursor(ctx context.Context, key store.CursorKey) (height uint64, ok bool, err error)
	XBlockByHeight(ctx context.Context, height uint64) (*internal.XBlock, error)
	BlockSummaryByID(ctx context.Context, q store.BlockQuery, id ids.ID) (*store.BlockSummary, error)
	XTx(ctx context.Context, id ids.ID) (*store.TxRecord, error)
	XUTXOPageOf(ctx context.Context, addr ids.ShortID, after ids.ID, limit int) ([]*store.PagedUTXO, error)
}

// AVMUpstream is what the X-chain service asks the node: the UTXOs other
// chains exported to the X-chain (its shared memory). *node.Client
// implements it.
type AVMUpstream interface {
	XUTXOs(ctx context.Context, args *api.GetUTXOsArgs) (*api.GetUTXOsReply, error)
}

// NewAVMHandler returns the handler of the avm.* methods avaindex serves
// from the store at /ext/bc/X (the others are the node's: see
// AVMForwarded). networkGenesis is the genesis of a network avalanchego
// does not build in (nil otherwise), for the X-chain's genesis assets.
// upstream may be nil: atomic UTXOs are then unreachable.
func NewAVMHandler(src AVMSource, network *internal.Network, networkGenesis []byte, upstream AVMUpstream) (http.Handler, error) {
	return newServer(&AVM{store: src, network: network, networkGenesis: networkGenesis, upstream: upstream}, "avm")
}

// AVM implements avm.* methods from the store: the X-chain's blocks,
// accepted txs in the node's hex encodings, and UTXOs.
type AVM struct {
	store          AVMSource
	network        *internal.Network
	networkGenesis []byte
	upstream       AVMUpstream
}

// GetUTXOs answers the X-chain UTXOs of the addresses from the index, as
// the P-chain's (see getUTXOs); the atomic UTXOs other chains exported
// to it are the node's.
func (x *AVM) GetUTXOs(r *http.Request, args *api.GetUTXOsArgs, reply *api.GetUTXOsReply) error {
	var atomic func(context.Context, *api.GetUTXOsArgs) (*api.GetUTXOsReply, error)
	if x.upstream != nil {
		atomic = x.upstream.XUTXOs
	}
	return getUTXOs(r.Context(), utxoChain{
		id: x.network.XChainID, network: x.network, page: x.store.XUTXOPageOf, atomic: atomic,
		encodeErr: func(id ids.ID, _ formatting.Encoding, err error) error {
			return fmt.Errorf("couldn't encode UTXO %s as string: %w", id, err)
		},
	}, args, reply)
}

// AVMForwarded reports, of an avm call avaindex serves, whether it goes
// to the node all the same: blocks and txs in the "json" encoding, which
// the node renders with its fxs' state.
func AVMForwarded(method string, params json.RawMessage) bool {
	switch method {
	case "avm.getTx", "avm.getBlock", "avm.getBlockByHeight":
	default:
		return false
	}
	var p struct {
		Encoding string `json:"encoding"`
	}
	return json.Unmarshal(params, &p) == nil && strings.EqualFold(p.Encoding, formatting.JSON.String())
}

// GetHeight answers the height of the last X-chain block avaindex indexed.
func (x *AVM) GetHeight(r *http.Request, _ *struct{}, reply *api.GetHeightResponse) error {
	return indexedHeight(r.Context(), x.store, internal.XChain, reply)
}

// indexedHeight sets reply to the height of chain's last indexed block.
func indexedHeight(ctx context.Context, src interface {
	Cursor(ctx context.Context, key store.CursorKey) (uint64, bool, error)
}, chain internal.Chain, reply *api.GetHeightResponse,
) error {
	h, ok, err := src.Cursor(ctx, store.ChainCursor(chain))
	if err != nil {
		return storeError("couldn't get height", err)
	}
	if !ok {
		return errors.New("couldn't get height: no block indexed yet")
	}
	reply.Height = avajson.Uint64(h)
	return nil
}

// GetBlockByHeight answers the block at the given height.
func (x *AVM) GetBlockByHeight(r *http.Request, args *api.GetBlockByHeightArgs, reply *api.GetBlockResponse) error {
	reply.Encoding = args.Encoding
	b, err := x.store.XBlockByHeight(r.Context(), uint64(args.Height))
	if err != nil {
		return storeError(fmt.Sprintf("couldn't get block at height %d", args.Height), err)
	}
	return encodeX(&reply.Block, args.Encoding, b.Bytes, fmt.Sprintf("couldn't encode block %s as string", b.ID))
}

// GetBlock answers the block with the given id.
func (x *AVM) GetBlock(r *http.Request, args *api.GetBlockArgs, reply *api.GetBlockResponse) error {
	ctx := r.Context()
	what := fmt.Sprintf("couldn't get block with id %s", args.BlockID)
	s, err := x.store.BlockSummaryByID(ctx, store.BlockQuery{Chain: internal.XChain}, args.BlockID)
	if err != nil {
		return storeError(what, err)
	}
	b, err := x.store.XBlockByHeight(ctx, s.Height)
	if err != nil {
		return storeError(what, err)
	}
	reply.Encoding = args.Encoding
	return encodeX(&reply.Block, args.Encoding, b.Bytes, fmt.Sprintf("couldn't encode block %s as string", args.BlockID))
}

// GetTx answers an accepted tx, of a block or of the DAG before it.
func (x *AVM) GetTx(r *http.Request, args *api.GetTxArgs, reply *api.GetTxReply) error {
	if args.TxID == ids.Empty {
		return errNilTxID
	}
	rec, err := x.store.XTx(r.Context(), args.TxID)
	if err != nil {
		return bareNotFound("couldn't get tx", err)
	}
	reply.Encoding = args.Encoding
	s, err := formatting.Encode(args.Encoding, rec.Bytes)
	if err != nil {
		return err
	}
	reply.Tx, err = json.Marshal(s)
	return err
}

// GetTxStatus answers Accepted for a tx the store holds, Unknown for any
// other (the node's deprecated method says no more).
func (x *AVM) GetTxStatus(r *http.Request, args *api.JSONTxID, reply *avm.GetTxStatusReply) error {
	if args.TxID == ids.Empty {
		return errNilTxID
	}
	_, err := x.store.XTx(r.Context(), args.TxID)
	switch {
	case err == nil:
		reply.Status = choices.Accepted
	case errors.Is(err, derrors.NotFound):
		reply.Status = choices.Unknown
	default:
		return storeError("couldn't get tx status", err)
	}
	return nil
}

// bareNotFound words a store failure as storeError, but a missing record
// as the node's bare "not found".
func bareNotFound(what string, err error) error {
	if errors.Is(err, derrors.NotFound) {
		return database.ErrNotFound
	}
	return storeError(what, err)
}

// encodeX sets out to b in enc, a JSON string, as the avm service does.
func encodeX(out *json.RawMessage, enc formatting.Encoding, b []byte, what string) error {
	s, err := formatting.Encode(enc, b)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	*out, err = json.Marshal(s)
	return err
}
