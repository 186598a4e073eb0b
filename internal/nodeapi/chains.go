package nodeapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/status"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/pchain"
)

// upstreamTimeout bounds the calls that ask the node what only it knows, so
// that a slow node delays an answer by at most this much.
const upstreamTimeout = 2 * time.Second

// The node's texts for these failures.
var (
	errMissingBlockchainID = errors.New("argument 'blockchainID' not given")
	errSupplyNotFound      = errors.New("fetching current supply failed: not found")
)

// genesisChain is a primary-network chain created by the genesis rather
// than by a block. Every genesis avalanchego builds (genesis.FromConfig,
// custom networks included) names and runs them the same way.
type genesisChain struct {
	id      ids.ID
	name    string
	vmID    ids.ID
	aliases []string // the node's chain aliases (genesis.Aliases)
}

// genesisChains returns the primary network's chains in the order the node
// lists them: its chain list is a linked list that puts the chain written
// last (the C-chain) first.
func (p *Platform) genesisChains() []genesisChain {
	return []genesisChain{
		{id: p.network.CChainID, name: "C-Chain", vmID: constants.EVMID, aliases: []string{"C", "evm"}},
		{id: p.network.XChainID, name: "X-Chain", vmID: constants.AVMID, aliases: []string{"X", "avm"}},
	}
}

// GetBlockchains lists every blockchain except the P-chain: the chains of
// each subnet, subnets in creation order and each subnet's chains newest
// first, then the primary network's (C, X).
//
// The node lists from in-memory caches over linked lists that put the
// newest entry first; entries added while a list is cached are appended.
// Its subnet list is cached at start when sybil protection is off (a node
// run from genesis, like the local network, lists subnets in creation
// order) and at the first such call otherwise (subnets that existed then
// come newest first). A subnet's chain list is cached when first read,
// normally after its chains were written: newest first. avaindex answers
// creation order for subnets and newest first for chains; a node whose
// caches were filled at other times (restarts, a chain added to a subnet
// after its list was read) orders differently, and that order is
// node-local and not reproduced.
func (p *Platform) GetBlockchains(r *http.Request, _ *struct{}, reply *platformvm.GetBlockchainsResponse) error {
	ctx := r.Context()
	subnets, err := p.store.Subnets(ctx)
	if err != nil {
		return storeError("couldn't retrieve subnets", err)
	}
	chains, err := p.store.Blockchains(ctx)
	if err != nil {
		return storeError("couldn't retrieve subnets", err)
	}
	bySubnet := make(map[ids.ID][]*pchain.Blockchain, len(subnets))
	for _, c := range chains {
		bySubnet[c.SubnetID] = append(bySubnet[c.SubnetID], c)
	}
	reply.Blockchains = []platformvm.APIBlockchain{}
	for _, s := range subnets {
		chains := bySubnet[s.ID]
		for i := len(chains) - 1; i >= 0; i-- { // newest first
			c := chains[i]
			reply.Blockchains = append(reply.Blockchains, platformvm.APIBlockchain{
				ID: c.ID, Name: c.Name, SubnetID: c.SubnetID, VMID: c.VMID,
			})
		}
	}
	for _, g := range p.genesisChains() {
		reply.Blockchains = append(reply.Blockchains, platformvm.APIBlockchain{
			ID: g.id, Name: g.name, SubnetID: constants.PrimaryNetworkID, VMID: g.vmID,
		})
	}
	return nil
}

// GetBlockchainStatus answers a chain's status. Whether the chain exists
// comes from the store: a chain avaindex has not indexed the creation of is
// "Unknown". avaindex sees accepted blocks only, so it never answers
// "Preferred" (a creating tx in a block the node prefers but has not
// accepted); such a chain is "Unknown" until its block is accepted and
// indexed, as the node answers once that block is rejected.
//
// For an existing chain, "Validating" and "Syncing" describe the node
// itself (whether it runs the chain, and validates its subnet), so the
// node is asked; when it cannot answer, the chain is "Created".
func (p *Platform) GetBlockchainStatus(r *http.Request, args *platformvm.GetBlockchainStatusArgs, reply *platformvm.GetBlockchainStatusReply) error {
	if args.BlockchainID == "" {
		return errMissingBlockchainID
	}
	ctx := r.Context()
	if !p.isChainAlias(args.BlockchainID) {
		id, err := ids.FromString(args.BlockchainID)
		if err != nil {
			return fmt.Errorf("problem parsing blockchainID %q: %w", args.BlockchainID, err)
		}
		created, err := p.chainCreated(ctx, id)
		if err != nil {
			return storeError("problem looking up blockchain", err)
		}
		if !created {
			reply.Status = status.UnknownChain
			return nil
		}
	}
	reply.Status = p.nodeChainStatus(ctx, args.BlockchainID)
	return nil
}

// isChainAlias reports whether s is one of the node's aliases of the
// primary network's chains ("P", "platform", "X", "avm", "C", "evm").
func (p *Platform) isChainAlias(s string) bool {
	if s == "P" || s == "platform" {
		return true
	}
	for _, g := range p.genesisChains() {
		for _, a := range g.aliases {
			if s == a {
				return true
			}
		}
	}
	return false
}

// chainCreated reports whether the chain id exists: one of the primary
// network's, or created by an indexed CreateChainTx.
func (p *Platform) chainCreated(ctx context.Context, id ids.ID) (bool, error) {
	if id == p.network.PChainID {
		return true, nil
	}
	for _, g := range p.genesisChains() {
		if id == g.id {
			return true, nil
		}
	}
	_, err := p.store.Blockchain(ctx, id)
	switch {
	case errors.Is(err, derrors.NotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// nodeChainStatus asks the node the status of a chain that exists; it is
// "Created" when the node does not answer, or answers a creation state
// other than "Created" (its view and avaindex's agree on accepted blocks).
func (p *Platform) nodeChainStatus(ctx context.Context, chain string) status.BlockchainStatus {
	if p.upstream == nil {
		return status.Created
	}
	ctx, cancel := context.WithTimeout(ctx, upstreamTimeout)
	defer cancel()
	st, err := p.upstream.BlockchainStatus(ctx, chain)
	if err != nil {
		return status.Created
	}
	switch st {
	case status.Validating, status.Syncing:
		return st
	}
	return status.Created
}

// GetCurrentSupply answers an upper bound of the tokens that can stake a
// subnet: the primary network, or an elastic subnet (made permissionless by
// a TransformSubnetTx). For every other subnet (permissioned subnets, L1s)
// and for unknown ids, the node fails with "not found", and so does
// avaindex.
//
// The supply is replayed from the genesis by the indexer (see
// pchain.RewardState) and answered with the last indexed height. A store
// whose replay is not complete (see store.SupplyStore.Supply) answers the
// node's supply observed at an indexed height for the primary network, and
// relays the node's answer otherwise.
func (p *Platform) GetCurrentSupply(r *http.Request, args *platformvm.GetCurrentSupplyArgs, reply *platformvm.GetCurrentSupplyReply) error {
	ctx := r.Context()
	sup, err := p.store.Supply(ctx, args.SubnetID)
	switch {
	case err == nil:
		reply.Supply, reply.Height = avajson.Uint64(sup.Supply), avajson.Uint64(sup.Height)
		return nil
	case !errors.Is(err, derrors.NotFound):
		return storeError("fetching current supply failed", err)
	case args.SubnetID == constants.PrimaryNetworkID:
		return p.relaySupply(ctx, args, reply)
	}
	s, err := p.store.Subnet(ctx, args.SubnetID)
	switch {
	case errors.Is(err, derrors.NotFound):
		return errSupplyNotFound
	case err != nil:
		return storeError("fetching current supply failed", err)
	case s.TransformTxID == ids.Empty:
		return errSupplyNotFound
	}
	return p.relaySupply(ctx, args, reply)
}

// relaySupply answers the node's platform.getCurrentSupply.
func (p *Platform) relaySupply(ctx context.Context, args *platformvm.GetCurrentSupplyArgs, reply *platformvm.GetCurrentSupplyReply) error {
	if p.upstream == nil {
		return errSupplyNotFound
	}
	ctx, cancel := context.WithTimeout(ctx, upstreamTimeout)
	defer cancel()
	sup, err := p.upstream.CurrentSupply(ctx, args.SubnetID)
	var rpcErr *node.RPCError
	switch {
	case errors.As(err, &rpcErr):
		return errors.New(rpcErr.Message) // the node's own words
	case err != nil:
		return errors.New("fetching current supply failed: node unavailable")
	}
	*reply = *sup
	return nil
}
