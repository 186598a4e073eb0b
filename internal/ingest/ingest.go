// Package ingest is the worker that follows the chains of an avalanchego
// node and writes what it decodes into the store. Each batch of blocks is
// committed together with the chain's cursor, so a crash at any point
// resumes from the last committed block with nothing lost or doubled. It
// calls only what its Store interface lists of the store.
package ingest

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/instrument"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/progress"
	"github.com/avaindex/avaindex/internal/store"
)

// Options tune the indexer; zero values take the defaults.
type Options struct {
	// PollInterval is the wait between asking the node for new blocks once
	// caught up.
	PollInterval time.Duration
	// BatchSize is how many blocks are committed per database transaction
	// (default DefaultBatchSize).
	BatchSize int
	// Fetchers is how many blocks are fetched from the node at once.
	Fetchers int
	// BatchRecords also ends a batch once its blocks hold this many
	// records (default DefaultBatchRecords): txs, and on EVM chains also logs and
	// internal txs. A batch of BatchSize heavy blocks would hold hundreds
	// of MiB, twice over with the next one fetched while it is applied.
	BatchRecords int
	// ProgressEvery is the interval of progress log lines while catching up.
	ProgressEvery time.Duration
	// EVMChains are the EVM chains followed besides the primary network's
	// three (the C-chain's EVM blocks among them), each through its own
	// RPC URL.
	EVMChains []internal.EVMChain
	// MoreEVMChains, when set, is asked every EVMChainsEvery for the EVM
	// chains to follow (the registry's, which discovers chains while
	// avaindex runs); those not followed yet are followed from then on.
	MoreEVMChains func() []internal.EVMChain
	// EVMChainsEvery is how often MoreEVMChains is asked (default 5s).
	EVMChainsEvery time.Duration
	// Teleporter is the TeleporterMessenger's address on the EVM chains;
	// zero is the canonical one (evm.DefaultTeleporter).
	Teleporter common.Address
	// NetworkGenesis is the network's genesis bytes when avalanchego does
	// not build it in (--genesis-file): the X-chain's genesis UTXOs and
	// the genesis balances of the EVM chains it creates.
	NetworkGenesis []byte
	// NetworkCheckEvery is how often the node is asked which network it
	// runs (network.go); a failed step of any loop asks sooner.
	NetworkCheckEvery time.Duration
}

// DefaultBatchSize is Options.BatchSize's default. A catch-up commits
// fewer, larger transactions with it than with 256 (the default until
// 2026-12-04): the commit's writes, the per-batch reads and the state
// kept per address (balances, holdings) are paid once for more blocks.
// BenchmarkIngestP ran 1.4x as fast on SQLite and 1.15x on PostgreSQL,
// and BenchmarkCatchUpMemory caught up on 100,000 P-chain blocks 1.1-1.3x
// as fast (docs/benchmarks.md, "Batches of 1024 blocks").
const DefaultBatchSize = 1024

// DefaultFetchers is Options.Fetchers' default.
const DefaultFetchers = 8

// DefaultBatchRecords is Options.BatchRecords' default. On the EVM
// catch-up benchmark the follower held 210 MiB with it and 322 MiB with
// 65,536, which was no faster end to end (docs/benchmarks.md).
const DefaultBatchRecords = 16_384

func (o *Options) defaults() {
	if o.PollInterval == 0 {
		o.PollInterval = 250 * time.Millisecond
	}
	if o.BatchSize == 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.Fetchers == 0 {
		o.Fetchers = DefaultFetchers
	}
	if o.BatchRecords == 0 {
		o.BatchRecords = DefaultBatchRecords
	}
	if o.ProgressEvery == 0 {
		o.ProgressEvery = 5 * time.Second
	}
	if o.EVMChainsEvery == 0 {
		o.EVMChainsEvery = 5 * time.Second
	}
	if o.NetworkCheckEvery == 0 {
		o.NetworkCheckEvery = 10 * time.Second
	}
}

// Indexer follows every chain of one node (P, X and C, and the X-chain's
// pre-Cortina DAG), mirrors its container indexes, and follows the EVM
// chains of Options.EVMChains (evm.go).
type Indexer struct {
	node    *node.Client
	network *internal.Network
	store   Store
	// uriClients are the EVM clients ReadTokenURI uses, by chain id.
	uriClients sync.Map
	log        *slog.Logger
	opts       Options

	// lastP is the last P-chain block applied, for the proposal context of
	// a next batch that starts with its option block. Only the P-chain's
	// loop touches it.
	lastP *pchain.Block

	running atomic.Bool
	mu      sync.Mutex
	status  progress.Status
	errors  map[string]string // the failure of each loop's last step
	rates   rates
	// evmChains are the EVM chains followed: Options.EVMChains, then those
	// MoreEVMChains added. Guarded by mu.
	evmChains []internal.EVMChain
	// refused is why the node is refused (network.go), nil while it runs
	// the store's network; checkNetwork asks for a check of it.
	refused      error
	checkNetwork chan struct{}
}

// New returns an indexer of the chains of network, read from node n, into st.
func New(n *node.Client, network *internal.Network, st Store, log *slog.Logger, opts Options) *Indexer {
	opts.defaults()
	return &Indexer{node: n, network: network, store: st, log: log, opts: opts, evmChains: slices.Clone(opts.EVMChains),
		status: progress.Status{Heights: map[string]uint64{}, Tips: map[string]uint64{}, Tracers: map[string]bool{}},
		errors: map[string]string{}, rates: newRates(time.Now()), checkNetwork: make(chan struct{}, 1)}
}

// Report adds the indexer's state to s (progress.Reporter).
func (ix *Indexer) Report(s *progress.Status) {
	st := ix.Status()
	s.Running, s.Heights, s.Tips, s.Tracers = st.Running, st.Heights, st.Tips, st.Tracers
	s.BlocksPerSecond, s.History, s.LastError = st.BlocksPerSecond, st.History, st.LastError
}

// Status returns a snapshot of the indexer's state.
func (ix *Indexer) Status() progress.Status {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s := ix.status
	s.Running = ix.running.Load()
	s.Heights = cloneMap(s.Heights)
	s.Tips = cloneMap(s.Tips)
	s.Tracers = cloneMap(s.Tracers)
	now := time.Now()
	s.BlocksPerSecond = ix.rates.perSecond(now)
	s.History = ix.rates.history(now)
	var errs []string
	for what, e := range ix.errors {
		errs = append(errs, what+": "+e)
	}
	slices.Sort(errs)
	s.LastError = strings.Join(errs, "; ")
	return s
}

func cloneMap[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Run follows the chains until ctx is done, each in its own loop. Failures
// of the node or the store are logged and retried with backoff; Run returns
// only when ctx ends.
func (ix *Indexer) Run(ctx context.Context) error {
	ix.running.Store(true)
	defer ix.running.Store(false)
	// The node's network is checked alongside (network.go).
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ix.watchNetwork(ctx)
	}()
	defer wg.Wait()
	// The node's container indexes are mirrored alongside (containers.go).
	defer ix.followIndexes(ctx)()
	steps := map[string]func(context.Context) (bool, error){
		"P-chain": func(ctx context.Context) (bool, error) {
			caughtUp, err := follow(ctx, ix, ix.pFollower())
			if err == nil {
				ix.observeSupply(ctx)
			}
			return caughtUp, err
		},
		"X-chain": func(ctx context.Context) (bool, error) {
			g, err := ix.xGenesis()
			if err != nil {
				return false, err
			}
			return follow(ctx, ix, ix.xFollower(g))
		},
		"C-chain": func(ctx context.Context) (bool, error) { return follow(ctx, ix, ix.cFollower()) },
		// The X-chain's pre-Cortina txs, from the mirrored X/tx index.
		"X-chain DAG": ix.stepXDAG,
		// The vertices that carried them, from the mirrored X/vtx index.
		"X-chain DAG vertices": ix.stepXVertices,
	}
	for what, step := range steps {
		steps[what] = ix.guarded(step)
	}
	for _, c := range ix.followedEVMChains() {
		what, step := ix.evmStep(c)
		steps[what] = step
	}
	for what, step := range steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix.loop(ctx, what, step)
		}()
	}
	if ix.opts.MoreEVMChains != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix.followNewEVMChains(ctx, &wg)
		}()
	}
	wg.Wait()
	return nil
}

// evmStep is the loop's name and step of an EVM chain's follower.
func (ix *Indexer) evmStep(c internal.EVMChain) (string, func(context.Context) (bool, error)) {
	f := ix.newEVMFollower(c)
	if ix.readsNode(c.RPCURL) {
		return f.name, ix.guarded(f.step)
	}
	return f.name, f.step
}

// followedEVMChains returns the EVM chains followed now.
func (ix *Indexer) followedEVMChains() []internal.EVMChain {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return slices.Clone(ix.evmChains)
}

// followNewEVMChains asks MoreEVMChains every EVMChainsEvery and starts a
// loop, under wg, for each chain not followed yet, until ctx is done.
func (ix *Indexer) followNewEVMChains(ctx context.Context, wg *sync.WaitGroup) {
	t := time.NewTicker(ix.opts.EVMChainsEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, c := range ix.opts.MoreEVMChains() {
			if !ix.addEVMChain(c) {
				continue
			}
			what, step := ix.evmStep(c)
			ix.log.Info("following a new EVM chain", "chainId", c.ChainID, "blockchainId", c.BlockchainID, "rpcUrl", c.RPCURL)
			wg.Add(1)
			go func() {
				defer wg.Done()
				ix.loop(ctx, what, step)
			}()
		}
	}
}

// addEVMChain adds c to the followed chains unless a chain with its EVM
// chain id is followed already; it reports whether it added it.
func (ix *Indexer) addEVMChain(c internal.EVMChain) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, o := range ix.evmChains {
		if o.ChainID == c.ChainID {
			return false
		}
	}
	ix.evmChains = append(ix.evmChains, c)
	return true
}

// setError records the outcome of one step of the loop named what.
func (ix *Indexer) setError(what string, err error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err == nil {
		delete(ix.errors, what)
	} else {
		ix.errors[what] = err.Error()
	}
}

// setHeights records how far what key follows is applied, and the tip it
// is applied towards, for /readyz and the metrics.
func (ix *Indexer) setHeights(key store.CursorKey, height, tip uint64) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.status.Heights[string(key)] = height
	ix.status.Tips[string(key)] = tip
	instrument.SetIndexedHeight(string(key), height)
	instrument.SetNodeHeight(string(key), tip)
}

// applied records n blocks (or containers, or txs) of key just committed,
// for the ingest rate.
func (ix *Indexer) applied(key store.CursorKey, n int) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.rates.add(string(key), time.Now(), uint64(n))
	instrument.AddApplied(string(key), n)
}

// observeSupply records the node's platform.getCurrentSupply answer for the
// primary network when the node's height is the height just indexed, so
// that avaindex serves the supply that goes with what it indexed. It is the
// fallback for stores whose reward replay is not complete (blocks indexed
// before it existed, or a custom network's genesis not given with
// --genesis-file), which cannot compute the supply (see
// pchain.RewardState). Failures are logged only: the supply is retried at
// the next height.
func (ix *Indexer) observeSupply(ctx context.Context) {
	cur, ok, err := ix.store.Cursor(ctx, store.ChainCursor(internal.PChain))
	if err != nil || !ok {
		return
	}
	if sup, err := ix.store.Supply(ctx, constants.PrimaryNetworkID); err == nil && (sup.Replayed || sup.Height >= cur) {
		return // avaindex computes it, or it was observed at this height
	}
	reply, err := ix.node.CurrentSupply(ctx, constants.PrimaryNetworkID)
	if err != nil {
		ix.log.Debug("reading the node's current supply", "err", err)
		return
	}
	if uint64(reply.Height) != cur {
		return // the node moved on: observe at the next indexed height
	}
	if err := ix.store.PutSupply(ctx, constants.PrimaryNetworkID, cur, uint64(reply.Supply)); err != nil {
		ix.log.Warn("storing the node's current supply", "err", err)
	}
}
