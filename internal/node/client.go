// Package node is avaindex's client of an avalanchego node: the JSON-RPC
// calls the ingester and the node API need, over an HTTP client with
// timeouts, bounded reply sizes and per-method metrics. Request and reply
// types are avalanchego's own, so the wire format is the node's.
//
// evm.go has EVMClient, one per EVM chain's RPC URL, whose calls that belong
// together (a block, its receipts and traces; a contract's eth_calls) go in
// one JSON-RPC batch; chains.go the node's names for chains
// (info.getBlockchainID, platform.getBlockchains). Nothing else in avaindex
// calls the node.
package node

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/instrument"
)

// maxReply bounds what one reply may hold; P-chain blocks are at most a few
// MiB, and a reply larger than this is an upstream fault, not data.
const maxReply = 64 << 20

// Client calls one avalanchego node.
type Client struct {
	url  string
	http *http.Client
}

// New returns a client of the node at url (e.g. http://127.0.0.1:9650).
func New(url string) *Client {
	return &Client{
		url:  strings.TrimRight(url, "/"),
		http: &http.Client{Timeout: 30 * time.Second},
	}
}

// URL returns the node's base URL.
func (c *Client) URL() string { return c.url }

// RPCError is an error object returned by the node.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("node error %d: %s", e.Code, e.Message) }

// call sends one JSON-RPC 2.0 request to endpoint (e.g. "/ext/bc/P") and
// decodes the result into reply. Transport failures wrap
// derrors.Unavailable; malformed replies wrap derrors.BadGateway; an error
// object from the node is an *RPCError.
func (c *Client) call(ctx context.Context, endpoint, method string, params, reply any) (err error) {
	start := time.Now()
	defer func() {
		failed := err
		if isIndexAnswer(method, err) {
			failed = nil
		}
		instrument.ObserveUpstream(method, start, failed)
	}()

	body, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int    `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", 1, method, params})
	if err != nil {
		return fmt.Errorf("%s: encoding params: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+endpoint, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w: %w", method, c.url, derrors.Unavailable, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxReply+1))
	if err != nil {
		return fmt.Errorf("%s: reading reply: %w: %w", method, derrors.Unavailable, err)
	}
	if len(raw) > maxReply {
		return fmt.Errorf("%s: reply larger than %d bytes: %w", method, maxReply, derrors.BadGateway)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %w: %w", method, &HTTPError{StatusCode: resp.StatusCode}, derrors.BadGateway)
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("%s: decoding reply: %w: %w", method, derrors.BadGateway, err)
	}
	if env.Error != nil {
		return fmt.Errorf("%s: %w", method, env.Error)
	}
	if reply == nil {
		return nil
	}
	if err := json.Unmarshal(env.Result, reply); err != nil {
		return fmt.Errorf("%s: decoding result: %w: %w", method, derrors.BadGateway, err)
	}
	return nil
}

// Discover learns the network the node belongs to: its id, name, address
// prefix, and the ids of the three primary-network chains and of AVAX.
func (c *Client) Discover(ctx context.Context) (*internal.Network, error) {
	var netID info.GetNetworkIDReply
	if err := c.call(ctx, "/ext/info", "info.getNetworkID", struct{}{}, &netID); err != nil {
		return nil, err
	}
	n := &internal.Network{
		ID:       uint32(netID.NetworkID),
		PChainID: constants.PlatformChainID,
	}
	n.Name = constants.NetworkName(n.ID)
	n.HRP = constants.GetHRP(n.ID)
	for _, ch := range []struct {
		alias string
		id    *ids.ID
	}{{"X", &n.XChainID}, {"C", &n.CChainID}} {
		var reply info.GetBlockchainIDReply
		if err := c.call(ctx, "/ext/info", "info.getBlockchainID", info.GetBlockchainIDArgs{Alias: ch.alias}, &reply); err != nil {
			return nil, err
		}
		*ch.id = reply.BlockchainID
	}
	var asset platformvm.GetStakingAssetIDResponse
	if err := c.call(ctx, "/ext/bc/P", "platform.getStakingAssetID", platformvm.GetStakingAssetIDArgs{SubnetID: constants.PrimaryNetworkID}, &asset); err != nil {
		return nil, err
	}
	n.AVAXAssetID = asset.AssetID
	return n, nil
}

// PHeight returns the height of the node's last accepted P-chain block.
func (c *Client) PHeight(ctx context.Context) (uint64, error) {
	var reply api.GetHeightResponse
	if err := c.call(ctx, "/ext/bc/P", "platform.getHeight", struct{}{}, &reply); err != nil {
		return 0, err
	}
	return uint64(reply.Height), nil
}

// PBlockByHeight returns the platformvm bytes of the accepted P-chain block
// at height.
func (c *Client) PBlockByHeight(ctx context.Context, height uint64) ([]byte, error) {
	var reply api.GetBlockResponse
	args := api.GetBlockByHeightArgs{Height: avajson.Uint64(height), Encoding: formatting.HexNC}
	if err := c.call(ctx, "/ext/bc/P", "platform.getBlockByHeight", args, &reply); err != nil {
		return nil, err
	}
	return decodeBlockString("platform.getBlockByHeight", height, reply.Block)
}

// IsNotFound reports whether err is the node's answer for a missing item.
func IsNotFound(err error) bool {
	var re *RPCError
	return errors.As(err, &re) && strings.HasSuffix(re.Message, "not found")
}

// NetworkID returns the id of the network the node runs
// (info.getNetworkID).
func (c *Client) NetworkID(ctx context.Context) (uint32, error) {
	var reply info.GetNetworkIDReply
	if err := c.call(ctx, "/ext/info", "info.getNetworkID", struct{}{}, &reply); err != nil {
		return 0, err
	}
	return uint32(reply.NetworkID), nil
}

// NodeVersion returns the version the node runs, as its peers see it in
// the handshake ("avalanchego/1.14.2", info.getNodeVersion).
func (c *Client) NodeVersion(ctx context.Context) (string, error) {
	var reply info.GetNodeVersionReply
	if err := c.call(ctx, "/ext/info", "info.getNodeVersion", struct{}{}, &reply); err != nil {
		return "", err
	}
	return reply.Version, nil
}
