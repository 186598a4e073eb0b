package node

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting"
	avajson "github.com/ava-labs/avalanchego/utils/json"

	"github.com/avaindex/avaindex/internal/derrors"
)

// XHeight returns the height of the node's last accepted X-chain block.
func (c *Client) XHeight(ctx context.Context) (uint64, error) {
	var reply api.GetHeightResponse
	if err := c.call(ctx, "/ext/bc/X", "avm.getHeight", struct{}{}, &reply); err != nil {
		return 0, err
	}
	return uint64(reply.Height), nil
}

// XBlockByHeight returns the avm bytes of the accepted X-chain block at
// height.
func (c *Client) XBlockByHeight(ctx context.Context, height uint64) ([]byte, error) {
	var reply api.GetBlockResponse
	args := api.GetBlockByHeightArgs{Height: avajson.Uint64(height), Encoding: formatting.HexNC}
	if err := c.call(ctx, "/ext/bc/X", "avm.getBlockByHeight", args, &reply); err != nil {
		return nil, err
	}
	return decodeBlockString("avm.getBlockByHeight", height, reply.Block)
}

// decodeBlockString decodes a hexnc block string of a getBlockByHeight reply.
func decodeBlockString(method string, height uint64, raw json.RawMessage) ([]byte, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s(%d): block is not a string: %w", method, height, derrors.BadGateway)
	}
	b, err := formatting.Decode(formatting.HexNC, s)
	if err != nil {
		return nil, fmt.Errorf("%s(%d): %w: %w", method, height, derrors.BadGateway, err)
	}
	return b, nil
}

// CHeight returns the number of the node's last accepted C-chain block.
func (c *Client) CHeight(ctx context.Context) (uint64, error) {
	var reply string
	if err := c.call(ctx, "/ext/bc/C/rpc", "eth_blockNumber", []any{}, &reply); err != nil {
		return 0, err
	}
	return parseQuantity("eth_blockNumber", reply)
}

// CBlockHeader is what avaindex reads of a C-chain block.
type CBlockHeader struct {
	Number    uint64
	Hash      ids.ID
	Parent    ids.ID
	Timestamp time.Time
	// ExtData is the block's extra data, holding its atomic txs.
	ExtData []byte
}

// CBlockByNumber returns the accepted C-chain block number n, without its
// EVM transactions.
func (c *Client) CBlockByNumber(ctx context.Context, n uint64) (*CBlockHeader, error) {
	var reply *struct {
		Number    string `json:"number"`
		Hash      string `json:"hash"`
		Parent    string `json:"parentHash"`
		Timestamp string `json:"timestamp"`
		ExtData   string `json:"blockExtraData"`
	}
	const method = "eth_getBlockByNumber"
	if err := c.call(ctx, "/ext/bc/C/rpc", method, []any{"0x" + strconv.FormatUint(n, 16), false}, &reply); err != nil {
		return nil, err
	}
	if reply == nil {
		return nil, fmt.Errorf("%s(%d): no such block: %w", method, n, derrors.NotFound)
	}
	h := &CBlockHeader{}
	var err error
	if h.Number, err = parseQuantity(method, reply.Number); err != nil {
		return nil, err
	}
	if h.Number != n {
		return nil, fmt.Errorf("%s(%d) answered block %d: %w", method, n, h.Number, derrors.BadGateway)
	}
	ts, err := parseQuantity(method, reply.Timestamp)
	if err != nil {
		return nil, err
	}
	h.Timestamp = time.Unix(int64(ts), 0).UTC()
	for _, f := range []struct {
		s   string
		dst *ids.ID
	}{{reply.Hash, &h.Hash}, {reply.Parent, &h.Parent}} {
		b, err := decodeHex(f.s)
		if err != nil || len(b) != len(ids.ID{}) {
			return nil, fmt.Errorf("%s(%d): bad hash %q: %w", method, n, f.s, derrors.BadGateway)
		}
		copy(f.dst[:], b)
	}
	if h.ExtData, err = decodeHex(reply.ExtData); err != nil {
		return nil, fmt.Errorf("%s(%d): bad blockExtraData: %w: %w", method, n, derrors.BadGateway, err)
	}
	return h, nil
}

func parseQuantity(method, s string) (uint64, error) {
	if len(s) < 3 || s[:2] != "0x" {
		return 0, fmt.Errorf("%s: bad quantity %q: %w", method, s, derrors.BadGateway)
	}
	v, err := strconv.ParseUint(s[2:], 16, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: bad quantity %q: %w", method, s, derrors.BadGateway)
	}
	return v, nil
}

func decodeHex(s string) ([]byte, error) {
	if s == "" || s == "0x" {
		return nil, nil
	}
	return formatting.Decode(formatting.HexNC, s)
}
