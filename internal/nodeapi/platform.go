// Package nodeapi serves the node JSON-RPC surface (platform.* at /ext/bc/P
// and the container index at /ext/index/...) from avaindex's store. It
// dispatches with gorilla/rpc and avalanchego's own JSON codec, and takes
// avalanchego's argument and reply types, so envelopes, argument decoding,
// error codes and messages are the node's.
package nodeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/database"
	"github.com/ava-labs/avalanchego/utils/formatting"
	avajson "github.com/ava-labs/avalanchego/utils/json"
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

// NewPlatformHandler returns the handler of /ext/bc/P. upstream is asked
// only for what a live node alone knows (uptime, connected, whether it
// validates a chain); everything else comes from st.
func NewPlatformHandler(st store.Store, f *pchain.Formatter, network *internal.Network, upstream *node.Client) (http.Handler, error) {
	return newServer(&Platform{store: st, format: f, network: network, upstream: upstream}, "platform")
}

// Platform implements the platform.* methods from the store.
type Platform struct {
	store    store.Store
	format   *pchain.Formatter
	network  *internal.Network
	upstream *node.Client
}

// GetHeight answers the height of the last P-chain block avaindex indexed.
func (p *Platform) GetHeight(r *http.Request, _ *struct{}, reply *api.GetHeightResponse) error {
	h, ok, err := p.store.Cursor(r.Context(), internal.PChain)
	if err != nil {
		return storeError("couldn't get height", err)
	}
	if !ok {
		return errors.New("couldn't get height: no block indexed yet")
	}
	reply.Height = avajson.Uint64(h)
	return nil
}

// GetBlock answers the block with the given id.
func (p *Platform) GetBlock(r *http.Request, args *api.GetBlockArgs, reply *api.GetBlockResponse) error {
	blk, err := p.store.PBlockByID(r.Context(), args.BlockID)
	if err != nil {
		return storeError(fmt.Sprintf("couldn't get block with id %s", args.BlockID), err)
	}
	return p.encodeBlock(blk, args.Encoding, reply)
}

// GetBlockByHeight answers the block at the given height.
func (p *Platform) GetBlockByHeight(r *http.Request, args *api.GetBlockByHeightArgs, reply *api.GetBlockResponse) error {
	blk, err := p.store.PBlockByHeight(r.Context(), uint64(args.Height))
	if err != nil {
		return storeError(fmt.Sprintf("couldn't get block at height %d", args.Height), err)
	}
	return p.encodeBlock(blk, args.Encoding, reply)
}

func (p *Platform) encodeBlock(blk *internal.PBlock, enc formatting.Encoding, reply *api.GetBlockResponse) error {
	reply.Encoding = enc
	if enc == formatting.JSON {
		b, err := p.format.BlockJSON(blk.Bytes)
		if err != nil {
			return fmt.Errorf("couldn't encode block %s as %s: %w", blk.ID, enc, err)
		}
		reply.Block = b
		return nil
	}
	s, err := formatting.Encode(enc, blk.Bytes)
	if err != nil {
		return fmt.Errorf("couldn't encode block %s as %s: %w", blk.ID, enc, err)
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
