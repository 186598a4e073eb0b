package evmchains

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/pchain"
)

// Discovery: the EVM chains the indexed P-chain created (CreateChainTxs of
// an EVM VM, subnet-evm's by default) that the configured node serves are
// added without configuration, at start and by Run while avaindex runs.
// Their ids come from the P-chain, their EVM chain id from the chain's
// RPC (checked against the genesis), their name from the CreateChainTx.
// A chain that the configuration lists (by its RPC URL's /ext/bc/<id>/ or
// its blockchainId) is left to the configuration, whose metadata then
// overrides the discovered defaults.

// SubnetEVMID is subnet-evm's VM id, the VM whose chains are discovered
// when Options.DiscoverVMIDs is nil.
var SubnetEVMID = ids.ID{'s', 'u', 'b', 'n', 'e', 't', 'e', 'v', 'm'}

// discoverVMIDs returns the VM ids whose chains are discovered.
func (r *Registry) discoverVMIDs() []ids.ID {
	if r.opts.DiscoverVMIDs == nil {
		return []ids.ID{SubnetEVMID}
	}
	return r.opts.DiscoverVMIDs
}

// configuredBlockchains are the blockchain ids the configuration names,
// whose chains discovery leaves to it.
func configuredBlockchains(chains []config.EVMChain) map[ids.ID]bool {
	out := map[ids.ID]bool{}
	for _, c := range chains {
		if id, err := ids.FromString(c.BlockchainID); err == nil {
			out[id] = true
		}
		if m := bcPath.FindStringSubmatch(c.RPCURL + "/"); m != nil {
			if id, err := ids.FromString(m[1]); err == nil {
				out[id] = true
			}
		}
	}
	return out
}

// maxProbeWait bounds the wait before a chain whose RPC the node did not
// serve is asked again: a node restarted to track its subnet serves it
// within that of its start.
const maxProbeWait = time.Minute

// unserved is a discoverable chain the node did not serve when asked.
type unserved struct {
	next time.Time     // when to ask again
	wait time.Duration // the wait after the next failure
}

// discover adds the chains of the indexed P-chain that run a discovered
// VM, are not served yet nor configured, and whose RPC the node serves. A
// chain whose RPC does not answer (the node does not run it, or not yet)
// is asked again after a wait that doubles from Refresh up to
// maxProbeWait, so that a P-chain of many chains that the node does not
// run costs few requests; a chain new on the P-chain is asked at once.
func (r *Registry) discover(ctx context.Context) {
	r.discoverMu.Lock()
	defer r.discoverMu.Unlock()
	if r.opts.PChain == nil {
		return
	}
	vms := r.discoverVMIDs()
	if len(vms) == 0 {
		return
	}
	chains, err := r.opts.PChain.Blockchains(ctx)
	if err != nil {
		r.opts.Log.Warn("discovering EVM chains: reading the P-chain's blockchains", "err", err)
		return
	}
	configured := configuredBlockchains(r.opts.Chains)
	for _, bc := range chains {
		if !slices.Contains(vms, bc.VMID) || configured[bc.ID] {
			continue
		}
		if _, ok := r.ByBlockchainID(bc.ID); ok {
			continue
		}
		now := time.Now()
		if u, ok := r.unserved[bc.ID]; ok && now.Before(u.next) {
			continue
		}
		e, err := r.discovered(ctx, bc)
		if err != nil {
			u, ok := r.unserved[bc.ID]
			if !ok {
				u.wait = r.opts.Refresh
			}
			u.next = now.Add(u.wait)
			u.wait = min(2*u.wait, maxProbeWait)
			r.unserved[bc.ID] = u
			r.opts.Log.Debug("EVM chain not served by the node", "blockchainId", bc.ID, "retryIn", u.next.Sub(now), "err", err)
			continue
		}
		delete(r.unserved, bc.ID)
		if err := r.add(e); err != nil {
			r.opts.Log.Error("discovered EVM chain not served", "blockchainId", bc.ID, "err", err)
			continue
		}
		r.opts.Log.Info("EVM chain discovered", "blockchainId", bc.ID, "chainId", e.chain.ChainID, "name", e.chain.Name)
	}
}

// discovered makes the entry of bc, served at the node's /ext/bc/<id>/rpc:
// it fails when that RPC does not answer, or answers an EVM chain id that
// is not the genesis's.
func (r *Registry) discovered(ctx context.Context, bc *pchain.Blockchain) (*entry, error) {
	base := r.opts.Node.URL() + "/ext/bc/" + bc.ID.String()
	rpc := node.NewEVM(base + "/rpc")
	callCtx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	chainID, err := rpc.ChainID(callCtx)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("eth_chainId at %s: %w", rpc.URL(), err)
	}
	if g, ok := genesisChainID(bc.Genesis); ok && g != chainID {
		return nil, fmt.Errorf("%s answers EVM chain id %d, its genesis says %d", rpc.URL(), chainID, g)
	}
	c := Chain{
		EVMChain: internal.EVMChain{
			ChainID: chainID, BlockchainID: bc.ID, SubnetID: bc.SubnetID, VMID: bc.VMID,
			RPCURL: rpc.URL(), WSURL: wsURL(base) + "/ws",
		},
		Name:         bc.Name,
		NetworkToken: NetworkToken{Name: "Native Token", Symbol: "NATIVE", Decimals: 18},
	}
	if c.Name == "" {
		c.Name = "EVM chain " + strconv.FormatUint(chainID, 10)
	}
	c.Description = fmt.Sprintf("%s, an EVM chain of subnet %s (EVM chain id %d), created on the P-chain by %s",
		c.Name, bc.SubnetID, chainID, bc.ID)
	applyConfig(&c, config.EVMChain{}, r.opts.Network)
	return &entry{chain: c, rpc: rpc}, nil
}

// genesisChainID reads config.chainId of an EVM genesis.
func genesisChainID(genesis []byte) (uint64, bool) {
	var g struct {
		Config struct {
			ChainID *big.Int `json:"chainId"`
		} `json:"config"`
	}
	if json.Unmarshal(genesis, &g) != nil || g.Config.ChainID == nil || !g.Config.ChainID.IsUint64() {
		return 0, false
	}
	return g.Config.ChainID.Uint64(), true
}
