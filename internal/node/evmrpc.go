package node

import (
	"context"
	"fmt"
	"math/big"
	"strconv"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"

	"github.com/avaindex/avaindex/internal/derrors"
)

// The calls the EVM chain registry makes: an EVM chain's own JSON-RPC (its
// chain id, head and native balances), and the node's names for chains.

// EVMRPC calls the JSON-RPC endpoint of one EVM chain: the C-chain's
// /ext/bc/C/rpc on the node, or the RPC URL configured for an L1.
type EVMRPC struct {
	c *Client
}

// NewEVMRPC returns a client of the EVM JSON-RPC endpoint at url (the full
// URL, e.g. http://127.0.0.1:9650/ext/bc/C/rpc).
func NewEVMRPC(url string) *EVMRPC { return &EVMRPC{c: New(url)} }

// EVMRPC returns a client of the node's C-chain JSON-RPC endpoint.
func (c *Client) EVMRPC() *EVMRPC { return NewEVMRPC(c.url + "/ext/bc/C/rpc") }

// URL returns the endpoint's URL.
func (e *EVMRPC) URL() string { return e.c.url }

// ChainID returns the chain's EVM chain id (eth_chainId).
func (e *EVMRPC) ChainID(ctx context.Context) (uint64, error) {
	var reply string
	if err := e.c.call(ctx, "", "eth_chainId", []any{}, &reply); err != nil {
		return 0, err
	}
	return parseQuantity("eth_chainId", reply)
}

// BlockNumber returns the number of the chain's last accepted block
// (eth_blockNumber).
func (e *EVMRPC) BlockNumber(ctx context.Context) (uint64, error) {
	var reply string
	if err := e.c.call(ctx, "", "eth_blockNumber", []any{}, &reply); err != nil {
		return 0, err
	}
	return parseQuantity("eth_blockNumber", reply)
}

// Balance returns addr's native balance after block number, or at the
// last accepted block when number is nil (eth_getBalance). A node that
// pruned the block's state answers an *RPCError.
func (e *EVMRPC) Balance(ctx context.Context, addr common.Address, number *uint64) (*big.Int, error) {
	block := "latest"
	if number != nil {
		block = "0x" + strconv.FormatUint(*number, 16)
	}
	var reply string
	if err := e.c.call(ctx, "", "eth_getBalance", []any{addr.Hex(), block}, &reply); err != nil {
		return nil, fmt.Errorf("balance of %s at %s: %w", addr.Hex(), block, err)
	}
	v, err := hexutil.DecodeBig(reply)
	if err != nil {
		return nil, fmt.Errorf("eth_getBalance: bad quantity %q: %w", reply, derrors.BadGateway)
	}
	return v, nil
}

// BlockchainID returns the id of the chain the node knows by alias (e.g.
// "C", or a chain id in cb58), from info.getBlockchainID.
func (c *Client) BlockchainID(ctx context.Context, alias string) (ids.ID, error) {
	var reply info.GetBlockchainIDReply
	if err := c.call(ctx, "/ext/info", "info.getBlockchainID", info.GetBlockchainIDArgs{Alias: alias}, &reply); err != nil {
		return ids.Empty, fmt.Errorf("blockchain id of %q: %w", alias, err)
	}
	return reply.BlockchainID, nil
}

// Blockchains returns every blockchain the node's P-chain knows, with its
// subnet and VM, the primary network's X- and C-chains included
// (platform.getBlockchains).
func (c *Client) Blockchains(ctx context.Context) ([]platformvm.APIBlockchain, error) {
	var reply platformvm.GetBlockchainsResponse
	if err := c.call(ctx, "/ext/bc/P", "platform.getBlockchains", struct{}{}, &reply); err != nil {
		return nil, err
	}
	return reply.Blockchains, nil
}
