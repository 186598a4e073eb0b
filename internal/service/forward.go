package service

import (
	"encoding/json"
	"net/http"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/nodeapi"
	"github.com/avaindex/avaindex/internal/server"
)

// replyCacheBytes bounds the immutable node API answers kept: forwarded
// blocks and txs by hash, and served blocks, txs and containers.
const replyCacheBytes = 32 << 20

// forwardPlatform is the P-chain service: what the store serves, and any
// other platform.* method (issueTx, the live fee state...) passed through
// to the node, as are the fee and staking configuration off mainnet and
// Fuji (nodeapi.ConfigForwarded) and the validator sets the store does
// not hold (nodeapi.ValidatorsAtForwarded).
func forwardPlatform(network *internal.Network, src nodeapi.ValidatorsAtSource, platform http.Handler, pass nodeapi.Passthrough, cache *nodeapi.ReplyCache) http.Handler {
	config, vdrs := nodeapi.ConfigForwarded(network), nodeapi.ValidatorsAtForwarded(src)
	return nodeapi.NewForwardHandler(pass, cache, nodeapi.Forward{
		Path: "/ext/bc/P", Local: platform, Service: "platform",
		Served: server.RPCMethods("platform", (*nodeapi.Platform)(nil)),
		Also: func(method string, params json.RawMessage) bool {
			return config(method, params) || vdrs(method, params)
		},
	})
}

// forwardRoutes are the node API's routes that avaindex passes through to
// the node, so that a wallet needs avaindex's URL alone: the X-chain (but
// for what avm, the X-chain service over the store, serves), the info API, the C-chain's RPC and its avax API, and the EVM chains' RPC
// (resolveEVM names the RPC URL of a chain by the path's blockchain id).
// All are the node API's surface, under its rate limits.
func forwardRoutes(network *internal.Network, avm http.Handler, pass nodeapi.Passthrough, cache *nodeapi.ReplyCache, resolveEVM func(string) (string, bool)) []server.Route {
	fwd := func(path string) http.Handler {
		return nodeapi.NewForwardHandler(pass, cache, nodeapi.Forward{Path: path})
	}
	avmMethods := server.RPCMethods("avm", (*nodeapi.AVM)(nil))
	config := nodeapi.ConfigForwarded(network)
	x := nodeapi.NewForwardHandler(pass, cache, nodeapi.Forward{
		Path: "/ext/bc/X", Local: avm, Service: "avm", Served: avmMethods,
		Also: func(method string, params json.RawMessage) bool {
			return nodeapi.AVMForwarded(method, params) || config(method, params)
		},
	})
	info := fwd("/ext/info")
	cRPC, cAVAX := fwd("/ext/bc/C/rpc"), fwd("/ext/bc/C/avax")
	return []server.Route{
		{Pattern: "/ext/bc/X", Handler: x, RPCMethods: avmMethods, Surface: server.NodeAPI},
		{Pattern: "/ext/X", Handler: x, RPCMethods: avmMethods, Surface: server.NodeAPI},
		{Pattern: "/ext/bc/{blockchainId}", Handler: byChain(network.XChainID, x), RPCMethods: avmMethods, Surface: server.NodeAPI},
		{Pattern: "/ext/info", Handler: info, Surface: server.NodeAPI},
		{Pattern: "/ext/bc/C/rpc", Handler: cRPC, Surface: server.NodeAPI},
		{Pattern: "/ext/bc/C/avax", Handler: cAVAX, Surface: server.NodeAPI},
		{Pattern: "/ext/bc/{blockchainId}/avax", Handler: byChain(network.CChainID, cAVAX), Surface: server.NodeAPI},
		{Pattern: "/ext/bc/{blockchainId}/rpc", Handler: nodeapi.NewEVMForwardHandler(pass, cache, resolveEVM), Surface: server.NodeAPI},
	}
}

// byChain serves h on a path whose {blockchainId} is chain's id (the
// network's own, so no fixed route can name it), and 404 on any other.
func byChain(chain ids.ID, h http.Handler) http.Handler {
	id := chain.String()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("blockchainId") != id {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// evmRPCResolver names the RPC URL of the followed EVM chain whose
// blockchain id is the path's.
func evmRPCResolver(chains interface {
	Chains() []internal.EVMChain
}) func(string) (string, bool) {
	return func(s string) (string, bool) {
		id, err := ids.FromString(s)
		if err != nil {
			return "", false
		}
		for _, c := range chains.Chains() {
			if c.BlockchainID == id && c.RPCURL != "" {
				return c.RPCURL, true
			}
		}
		return "", false
	}
}
