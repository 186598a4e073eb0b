// Package evmchains is the registry of the EVM chains avaindex serves: the
// C-chain of the indexed network, discovered from the node, and the chains
// added by configuration with their RPC URL (Avalanche L1s running
// subnet-evm, or any EVM). It resolves each chain's identity (the EVM chain
// id from eth_chainId; the blockchain, subnet and VM ids from the P-chain),
// fills in its metadata with defaults, and tells whether each chain is
// available: its RPC answers and avaindex's index of it is caught up. It
// also holds the curated contract metadata of token-list files
// (catalog.go). No HTTP is served here. Each chain's status is checked by
// Run. The service hands Chains() to the indexer and the registry to the
// Data API.
package evmchains

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
)

// Status is whether a chain is served from an index that is caught up
// (schema ChainStatus).
type Status string

const (
	// OK: the chain's RPC answers and the index is within MaxLag blocks of
	// its head.
	OK Status = "OK"
	// Unavailable: the RPC does not answer, or the index lags behind.
	Unavailable Status = "UNAVAILABLE"
)

// DefaultFeatures are the enabledFeatures of a chain whose configuration
// names none: what avaindex serves for every EVM chain (Teleporter
// messages are indexed from the configured TeleporterMessenger).
var DefaultFeatures = []string{"teleporter"}

// Chain is one EVM chain with its metadata and status, as the chain
// endpoints serve it.
type Chain struct {
	internal.EVMChain
	Name        string
	Description string
	LogoURI     string
	ExplorerURL string
	// Multicall is the Multicall contract's address, nil when unknown.
	Multicall       *common.Address
	NetworkToken    NetworkToken
	EnabledFeatures []string
	Private         bool
	IsTestnet       bool
	Status          Status
}

// NetworkToken is a chain's native token.
type NetworkToken struct {
	Name        string
	Symbol      string
	Decimals    uint8
	LogoURI     string
	Description string
}

// PChain is what the registry reads of the indexed P-chain: the chains
// CreateChainTxs made, with their genesis.
type PChain interface {
	Blockchains(ctx context.Context) ([]*pchain.Blockchain, error)
	Blockchain(ctx context.Context, id ids.ID) (*pchain.Blockchain, error)
}

// Cursors tells how far each EVM chain is indexed (store.EVMCursor).
type Cursors interface {
	Cursor(ctx context.Context, key store.CursorKey) (height uint64, ok bool, err error)
}

// Settings keeps what was resolved of each chain, so that a chain whose
// RPC is down at start is still served from what was indexed of it.
type Settings interface {
	Setting(ctx context.Context, key string) (value []byte, ok bool, err error)
	PutSettingIfAbsent(ctx context.Context, key string, value []byte) error
}

// Options configure a Registry.
type Options struct {
	// Network is the indexed network; Node its node, whose C-chain is
	// served and whose P-chain names configured chains the store does not
	// hold yet.
	Network *internal.Network
	Node    *node.Client
	// CChain is the C-chain's configured metadata; Chains the further
	// chains.
	CChain config.EVMChain
	Chains []config.EVMChain
	// DiscoverVMIDs are the VMs whose chains on the indexed P-chain are
	// served without configuration when the node serves their RPC
	// (discover.go); nil means subnet-evm's, empty none.
	DiscoverVMIDs []ids.ID
	PChain        PChain
	// Cursors may be nil: every chain is then Unavailable.
	Cursors Cursors
	// Settings may be nil: nothing is remembered across restarts.
	Settings Settings
	// MaxLag is how many blocks the index may lag behind the RPC's head
	// for the chain to be OK; 0 means DefaultMaxLag.
	MaxLag uint64
	// Refresh is how often Run checks the chains; 0 means DefaultRefresh.
	Refresh time.Duration
	// Timeout bounds each call to a chain's RPC; 0 means DefaultTimeout.
	Timeout time.Duration
	Log     *slog.Logger
}

// Defaults of Options.
const (
	DefaultMaxLag  = 64
	DefaultRefresh = 5 * time.Second
	DefaultTimeout = 5 * time.Second
)

// Registry is the set of EVM chains served. It is safe for concurrent
// use.
type Registry struct {
	opts Options

	mu      sync.RWMutex
	entries []*entry
	// pending are the configured chains not resolved yet (their RPC did
	// not answer and nothing was remembered of them); Run retries them.
	pending []config.EVMChain
	// discoverMu serializes discover, which alone touches unserved: the
	// discoverable chains the node did not serve, with when to ask again.
	discoverMu sync.Mutex
	unserved   map[ids.ID]unserved
	// tokenBals caches TokenBalance's answers.
	tokenBals tokenBalances
}

type entry struct {
	chain Chain
	rpc   *node.EVMClient
}

// New resolves the chains: a chain resolved by an earlier run is taken
// from the settings without asking anything (so that a store that holds
// a network is served at once, whether its RPCs answer or not); any other
// is resolved at its RPC, and one whose RPC does not answer is resolved
// later by Run. Every chain is Unavailable until Run first checks it. Two
// chains with one EVM chain id are a configuration error.
func New(ctx context.Context, opts Options) (*Registry, error) {
	if opts.MaxLag == 0 {
		opts.MaxLag = DefaultMaxLag
	}
	if opts.Refresh == 0 {
		opts.Refresh = DefaultRefresh
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	r := &Registry{opts: opts, unserved: map[ids.ID]unserved{}}
	c, err := r.resolveCChain(ctx)
	if err != nil {
		return nil, err
	}
	c.chain.Status = Unavailable
	r.entries = append(r.entries, c)
	for _, cfg := range opts.Chains {
		e, err := r.resolve(ctx, cfg)
		if err != nil {
			opts.Log.Warn("EVM chain not resolved yet; retrying", "rpcUrl", cfg.RPCURL, "err", err)
			r.pending = append(r.pending, cfg)
			continue
		}
		if err := r.add(e); err != nil {
			return nil, err
		}
	}
	r.discover(ctx)
	return r, nil
}

// add adds a resolved chain, refusing a second chain with its id.
func (r *Registry) add(e *entry) error {
	e.chain.Status = Unavailable // until checked
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range r.entries {
		if o.chain.ChainID == e.chain.ChainID {
			what := "the RPC at " + o.rpc.URL()
			if o.chain.IsCChain {
				what = "the C-chain"
			}
			return fmt.Errorf("evm-chains: the RPC at %s serves EVM chain id %d, as %s does", e.rpc.URL(), e.chain.ChainID, what)
		}
	}
	r.entries = append(r.entries, e)
	return nil
}

// Chains returns the resolved chains' identities, the C-chain first: what
// the indexer follows.
func (r *Registry) Chains() []internal.EVMChain {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]internal.EVMChain, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.chain.EVMChain
	}
	return out
}

// List returns the chains with their metadata and last status, the
// C-chain first.
func (r *Registry) List() []Chain {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Chain, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.chain
		out[i].EnabledFeatures = slices.Clone(e.chain.EnabledFeatures)
	}
	return out
}

// ByChainID returns the chain whose EVM chain id is id.
func (r *Registry) ByChainID(id uint64) (Chain, bool) {
	return r.find(func(c *Chain) bool { return c.ChainID == id })
}

// ByBlockchainID returns the chain whose P-chain blockchain id is id.
func (r *Registry) ByBlockchainID(id ids.ID) (Chain, bool) {
	if id == ids.Empty {
		return Chain{}, false
	}
	return r.find(func(c *Chain) bool { return c.BlockchainID == id })
}

func (r *Registry) find(match func(*Chain) bool) (Chain, bool) {
	for _, c := range r.List() {
		if match(&c) {
			return c, true
		}
	}
	return Chain{}, false
}

func (r *Registry) rpcOf(chainID uint64) (*node.EVMClient, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, e := range r.entries {
		if e.chain.ChainID == chainID {
			return e.rpc, true
		}
	}
	return nil, false
}

// NativeBalance asks the chain's RPC for addr's native balance after block
// number, or after its last accepted block when number is nil
// (eth_getBalance): for chains whose balances are not indexed. The RPC's
// refusal (a pruned block's state, a block it does not have) is a
// derrors.Unavailable in the RPC's words, for the client.
func (r *Registry) NativeBalance(ctx context.Context, chainID uint64, addr common.Address, number *uint64) (*big.Int, error) {
	bal, err := r.nativeBalance(ctx, chainID, addr, number)
	var rpcErr *node.RPCError
	if errors.As(err, &rpcErr) {
		at := "the latest block"
		if number != nil {
			at = fmt.Sprintf("block %d", *number)
		}
		msg := rpcErr.Message
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		return nil, derrors.Client(derrors.Unavailable, "the RPC of chain %d cannot tell the balance at %s: %s", chainID, at, msg)
	}
	return bal, err
}

func (r *Registry) nativeBalance(ctx context.Context, chainID uint64, addr common.Address, number *uint64) (*big.Int, error) {
	rpc, ok := r.rpcOf(chainID)
	if !ok {
		return nil, fmt.Errorf("EVM chain %d: %w", chainID, derrors.NotFound)
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	var n uint64
	if number != nil {
		n = *number
	} else {
		head, err := rpc.BlockNumber(ctx)
		if err != nil {
			return nil, err
		}
		n = head
	}
	bals, err := rpc.Balances(ctx, []common.Address{addr}, n)
	if err != nil {
		return nil, fmt.Errorf("balance of %s at block %d: %w", addr.Hex(), n, err)
	}
	return bals[addr], nil
}

// Run checks the chains' status every Refresh, resolves the chains not
// resolved yet and discovers new ones, until ctx is done. A chain added
// after start is in Chains() from then on, which the indexer follows.
func (r *Registry) Run(ctx context.Context) {
	t := time.NewTicker(r.opts.Refresh)
	defer t.Stop()
	for {
		r.Refresh(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Refresh retries the chains not resolved yet, discovers new ones and
// checks every chain's status now (Run does it periodically).
func (r *Registry) Refresh(ctx context.Context) {
	r.retryPending(ctx)
	r.discover(ctx)
	r.refresh(ctx)
}

func (r *Registry) retryPending(ctx context.Context) {
	r.mu.RLock()
	pending := slices.Clone(r.pending)
	r.mu.RUnlock()
	var still []config.EVMChain
	for _, cfg := range pending {
		e, err := r.resolve(ctx, cfg)
		if err == nil {
			err = r.add(e)
			if err != nil { // a configuration error: it will not resolve
				r.opts.Log.Error("EVM chain not served", "rpcUrl", cfg.RPCURL, "err", err)
				continue
			}
			r.opts.Log.Info("EVM chain resolved", "rpcUrl", cfg.RPCURL, "chainId", e.chain.ChainID)
			continue
		}
		still = append(still, cfg)
	}
	r.mu.Lock()
	r.pending = still
	r.mu.Unlock()
}

// refresh checks every chain's status at once.
func (r *Registry) refresh(ctx context.Context) {
	r.mu.RLock()
	entries := slices.Clone(r.entries)
	r.mu.RUnlock()
	statuses := make([]Status, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = r.status(ctx, e)
		}()
	}
	wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, e := range entries {
		if e.chain.Status != statuses[i] {
			r.opts.Log.Info("EVM chain status", "chainId", e.chain.ChainID, "status", statuses[i])
		}
		e.chain.Status = statuses[i]
	}
}

// status is OK when the chain's RPC answers and the index is within
// MaxLag blocks of its head.
func (r *Registry) status(ctx context.Context, e *entry) Status {
	if r.opts.Cursors == nil {
		return Unavailable
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	head, err := e.rpc.BlockNumber(ctx)
	if err != nil {
		return Unavailable
	}
	indexed, ok, err := r.opts.Cursors.Cursor(ctx, store.EVMCursor(e.chain.ChainID))
	if err != nil || !ok || indexed+r.opts.MaxLag < head {
		return Unavailable
	}
	return OK
}

// knownCChainIDs are the C-chains' EVM chain ids of the public networks,
// for a start while the node does not answer and nothing is remembered.
var knownCChainIDs = map[uint32]uint64{
	constants.MainnetID: 43114,
	constants.FujiID:    43113,
	constants.LocalID:   43112,
}

// resolveCChain makes the C-chain's entry: its ids are the network's, its
// EVM chain id the node's eth_chainId.
func (r *Registry) resolveCChain(ctx context.Context) (*entry, error) {
	n := r.opts.Network
	rpc := node.NewEVM(r.opts.Node.URL() + "/ext/bc/C/rpc")
	id := identity{BlockchainID: n.CChainID, SubnetID: constants.PrimaryNetworkID, VMID: constants.EVMID}
	const key = "evm-chain:C"
	if rem, ok := r.remembered(ctx, key); ok {
		id.ChainID = rem.ChainID
	} else {
		callCtx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
		chainID, err := rpc.ChainID(callCtx)
		cancel()
		switch known, isKnown := knownCChainIDs[n.ID]; {
		case err == nil:
			id.ChainID = chainID
			r.remember(ctx, key, id)
		case isKnown:
			id.ChainID = known
		default:
			return nil, fmt.Errorf("the C-chain's EVM chain id: %w", err)
		}
	}
	cfg := r.opts.CChain
	c := Chain{
		EVMChain: internal.EVMChain{
			ChainID: id.ChainID, BlockchainID: id.BlockchainID, SubnetID: id.SubnetID, VMID: id.VMID,
			RPCURL: rpc.URL(), WSURL: wsURL(r.opts.Node.URL()) + "/ext/bc/C/ws", IsCChain: true,
		},
		Name:        "Avalanche C-Chain",
		Description: "The Contract Chain of the Avalanche Primary Network, the EVM chain that every Avalanche validator validates.",
		NetworkToken: NetworkToken{Name: "Avalanche", Symbol: "AVAX", Decimals: 18,
			Description: "AVAX, the native token of the Avalanche Primary Network, pays the C-chain's fees."},
	}
	if n.ID != constants.MainnetID && n.ID != constants.FujiID {
		c.Name = "Avalanche C-Chain (" + n.Name + ")"
	}
	// Multicall3 is at its keyless-deployment address on the public
	// networks' C-chains.
	if n.ID == constants.MainnetID || n.ID == constants.FujiID {
		m := common.HexToAddress("0xcA11bde05977b3631167028862bE2a173976CA11")
		c.Multicall = &m
	}
	applyConfig(&c, cfg, n)
	return &entry{chain: c, rpc: rpc}, nil
}

// identity is what is resolved of a chain, and remembered.
type identity struct {
	ChainID      uint64
	BlockchainID ids.ID
	SubnetID     ids.ID
	VMID         ids.ID
	// Name is the chain's name on the P-chain.
	Name string `json:",omitempty"`
}

// resolve makes the entry of a configured chain.
func (r *Registry) resolve(ctx context.Context, cfg config.EVMChain) (*entry, error) {
	rpc := node.NewEVM(cfg.RPCURL)
	key := "evm-chain:" + cfg.RPCURL
	id, ok := r.remembered(ctx, key)
	if !ok {
		callCtx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
		chainID, err := rpc.ChainID(callCtx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("eth_chainId at %s: %w", cfg.RPCURL, err)
		}
		if id, err = r.identify(ctx, cfg, chainID); err != nil {
			return nil, err
		}
		r.remember(ctx, key, id)
	}
	c := Chain{
		EVMChain: internal.EVMChain{
			ChainID: id.ChainID, BlockchainID: id.BlockchainID, SubnetID: id.SubnetID, VMID: id.VMID,
			RPCURL: cfg.RPCURL, WSURL: cfg.WSURL,
		},
		Name:         id.Name,
		NetworkToken: NetworkToken{Name: "Native Token", Symbol: "NATIVE", Decimals: 18},
	}
	if c.Name == "" {
		c.Name = "EVM chain " + strconv.FormatUint(id.ChainID, 10)
	}
	c.Description = c.Name + ", an EVM chain (EVM chain id " + strconv.FormatUint(id.ChainID, 10) + ")"
	applyConfig(&c, cfg, r.opts.Network)
	return &entry{chain: c, rpc: rpc}, nil
}

// bcPath finds the chain named in an avalanchego RPC URL's path.
var bcPath = regexp.MustCompile(`/ext/bc/([^/]+)/`)

// identify finds the P-chain ids of the chain with EVM chain id chainID:
// the configured blockchainId, else the chain the RPC URL names
// (/ext/bc/{id or alias}/rpc), else the one blockchain whose genesis has
// that chain id. An EVM that is no Avalanche chain keeps empty ids.
func (r *Registry) identify(ctx context.Context, cfg config.EVMChain, chainID uint64) (identity, error) {
	id := identity{ChainID: chainID}
	switch {
	case cfg.BlockchainID != "":
		bc, err := ids.FromString(cfg.BlockchainID)
		if err != nil {
			return id, fmt.Errorf("blockchainId %q: %w", cfg.BlockchainID, err)
		}
		id.BlockchainID = bc
	default:
		if m := bcPath.FindStringSubmatch(cfg.RPCURL + "/"); m != nil {
			if bc, err := ids.FromString(m[1]); err == nil {
				id.BlockchainID = bc
			} else if bc, err := r.aliasAt(ctx, cfg.RPCURL, m[1]); err == nil {
				id.BlockchainID = bc
			}
		}
		if id.BlockchainID == ids.Empty {
			bc, err := r.byGenesisChainID(ctx, chainID)
			if err != nil {
				return id, err
			}
			id.BlockchainID = bc
		}
	}
	if id.BlockchainID == ids.Empty {
		return id, nil
	}
	if id.BlockchainID == r.opts.Network.CChainID {
		id.SubnetID, id.VMID = constants.PrimaryNetworkID, constants.EVMID
		return id, nil
	}
	if r.opts.PChain != nil {
		bc, err := r.opts.PChain.Blockchain(ctx, id.BlockchainID)
		switch {
		case err == nil:
			id.SubnetID, id.VMID, id.Name = bc.SubnetID, bc.VMID, bc.Name
			return id, nil
		case !errors.Is(err, derrors.NotFound):
			return id, err
		}
	}
	// Not indexed yet: the node's P-chain knows it.
	callCtx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	chains, err := r.opts.Node.Blockchains(callCtx)
	if err != nil {
		return id, fmt.Errorf("subnet and VM of blockchain %s: %w", id.BlockchainID, err)
	}
	for _, bc := range chains {
		if bc.ID == id.BlockchainID {
			id.SubnetID, id.VMID, id.Name = bc.SubnetID, bc.VMID, bc.Name
		}
	}
	return id, nil
}

// aliasAt asks the avalanchego node serving rpcURL which chain alias is.
func (r *Registry) aliasAt(ctx context.Context, rpcURL, alias string) (ids.ID, error) {
	u, err := url.Parse(rpcURL)
	if err != nil {
		return ids.Empty, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	return node.New(u.Scheme+"://"+u.Host).BlockchainID(ctx, alias)
}

// byGenesisChainID returns the one indexed blockchain whose EVM genesis
// names chainID, ids.Empty when none or several do.
func (r *Registry) byGenesisChainID(ctx context.Context, chainID uint64) (ids.ID, error) {
	if r.opts.PChain == nil {
		return ids.Empty, nil
	}
	chains, err := r.opts.PChain.Blockchains(ctx)
	if err != nil {
		return ids.Empty, err
	}
	var found []ids.ID
	for _, bc := range chains {
		if id, ok := genesisChainID(bc.Genesis); ok && id == chainID {
			found = append(found, bc.ID)
		}
	}
	if len(found) != 1 {
		return ids.Empty, nil
	}
	return found[0], nil
}

func (r *Registry) remember(ctx context.Context, key string, id identity) {
	if r.opts.Settings == nil {
		return
	}
	b, err := json.Marshal(id)
	if err == nil {
		err = r.opts.Settings.PutSettingIfAbsent(ctx, key, b)
	}
	if err != nil {
		r.opts.Log.Warn("remembering an EVM chain", "key", key, "err", err)
	}
}

func (r *Registry) remembered(ctx context.Context, key string) (identity, bool) {
	var id identity
	if r.opts.Settings == nil {
		return id, false
	}
	b, ok, err := r.opts.Settings.Setting(ctx, key)
	if err != nil || !ok || json.Unmarshal(b, &id) != nil || id.ChainID == 0 {
		return id, false
	}
	return id, true
}

// applyConfig sets what the configuration gives over the defaults.
func applyConfig(c *Chain, cfg config.EVMChain, n *internal.Network) {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&c.Name, cfg.Name)
	set(&c.Description, cfg.Description)
	set(&c.LogoURI, cfg.LogoURI)
	set(&c.ExplorerURL, cfg.ExplorerURL)
	t := cfg.NetworkToken
	set(&c.NetworkToken.Name, t.Name)
	set(&c.NetworkToken.Symbol, t.Symbol)
	set(&c.NetworkToken.LogoURI, t.LogoURI)
	set(&c.NetworkToken.Description, t.Description)
	if t.Decimals != nil {
		c.NetworkToken.Decimals = *t.Decimals
	}
	if cfg.Multicall != "" {
		m := common.HexToAddress(cfg.Multicall)
		c.Multicall = &m
	}
	c.EnabledFeatures = slices.Clone(DefaultFeatures)
	if cfg.EnabledFeatures != nil {
		c.EnabledFeatures = slices.Clone(cfg.EnabledFeatures)
	}
	c.Private = cfg.Private
	c.IsTestnet = n.ID != constants.MainnetID
	if cfg.IsTestnet != nil {
		c.IsTestnet = *cfg.IsTestnet
	}
}

// wsURL is the websocket form of an http(s) base URL.
func wsURL(base string) string {
	if rest, ok := strings.CutPrefix(base, "https://"); ok {
		return "wss://" + rest
	}
	return "ws://" + strings.TrimPrefix(base, "http://")
}
