// Package service wires avaindex together: store, node client, indexer and
// HTTP surfaces, for `avaindex serve` and `devnet`.
//
// The listener opens first, and the surfaces are swapped in once the
// network is known. instance.go holds the instance's role and the indexer
// lease it runs the indexer under: one instance indexes a store at a time,
// the others serve and take over. routeTable is the API surfaces' routes,
// which TestOpenAPIDocumentsEveryRoute compares with the served document
// both ways. Every background worker is a Run(ctx) error in the one list
// surfaces returns, run under one errgroup by runWorkers for the
// instance's --role (workers.go); each tells its progress through
// progress.Reporter, which /readyz and the status page read.
package service

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ava-labs/avalanchego/vms/platformvm/reward"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/derive"
	"github.com/avaindex/avaindex/internal/exports"
	"github.com/avaindex/avaindex/internal/ingest"
	"github.com/avaindex/avaindex/internal/metricsapi"
	"github.com/avaindex/avaindex/internal/nftmeta"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/nodeapi"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/progress"
	"github.com/avaindex/avaindex/internal/server"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/usage"
	"github.com/avaindex/avaindex/internal/webhooks"
)

// Settings keys.
const (
	networkKey   = store.NetworkSetting
	tokenKeyName = "page-token-key"
)

// OpenStore opens (and migrates) the configured store, creating the SQLite
// directory when needed. The backfills the migrations ask for run later,
// under the indexer lease (index).
func OpenStore(ctx context.Context, cfg *config.Config) (store.Store, error) {
	if path, ok := strings.CutPrefix(cfg.DB, "sqlite:"); ok {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("creating the data directory: %w", err)
		}
	}
	return store.Open(ctx, cfg.DB)
}

// Run serves until ctx is done; a stop requested through ctx is not an
// error. ready, when non-nil, receives the listener's address once the HTTP
// server accepts connections, which is before the node is first asked
// anything: until the node tells its network, /healthz and /metrics answer,
// /readyz and the API surfaces say 503 "waiting for the node at URL"; a
// store that holds a network serves it at once.
func Run(ctx context.Context, cfg *config.Config, log *slog.Logger, ready func(addr string)) error {
	st, err := OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()

	// A custom network's genesis (--genesis-file) is handed to what
	// decodes its chains; the P-chain's decoder keeps it for block 0.
	var networkGenesis []byte
	if cfg.GenesisFile != "" {
		if networkGenesis, err = pchain.ReadGenesisFile(cfg.GenesisFile); err != nil {
			return err
		}
		pchain.RegisterGenesis(networkGenesis)
	}
	client := node.New(cfg.NodeURL)
	known, err := storedNetwork(ctx, st, cfg.Rewards)
	if err != nil {
		return err
	}
	tokenKey, err := settingOrCreate(ctx, st, tokenKeyName, func() ([]byte, error) {
		k := make([]byte, 32)
		_, err := rand.Read(k)
		return k, err
	})
	if err != nil {
		return err
	}

	in := &instance{name: cfg.InstanceName, role: cfg.Role, st: st}
	access, closeAccess, err := newAccess(ctx, cfg, st, log)
	if err != nil {
		return err
	}
	defer closeAccess()

	// What the store holds is served at once, while the node is asked;
	// without it, the API surfaces wait for the node.
	handler := &swappable{}
	var workers []worker
	stopSurfaces := func() {}
	defer func() { stopSurfaces() }()
	if known != nil {
		h, ws, stop, err := surfaces(ctx, st, client, known, networkGenesis, cfg, tokenKey, access, in, log)
		if err != nil {
			return err
		}
		handler.set(h)
		workers, stopSurfaces = ws, stop
	} else {
		handler.set(server.New(server.Deps{Store: st, Waiting: "waiting for the node at " + client.URL(), Access: access, Instance: in}))
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cfg.Listen, err)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	serveErr := make(chan error, 1)
	go func() {
		serveErr <- srv.Serve(ln)
		cancel()
	}()
	log.Info("serving", "url", "http://"+ln.Addr().String())
	if ready != nil {
		ready(ln.Addr().String())
	}

	err = func() error {
		network, err := resolveNetwork(ctx, client, st, known, cfg.Rewards, log)
		if err != nil {
			return err
		}
		if workers == nil {
			h, ws, stop, err := surfaces(ctx, st, client, network, networkGenesis, cfg, tokenKey, access, in, log)
			if err != nil {
				return err
			}
			handler.set(h)
			workers, stopSurfaces = ws, stop
		}
		return runWorkers(ctx, cfg.Role, workers, log)
	}()
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		err = nil // stopped while waiting for the node
	}
	cancel()
	shutdownCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	_ = srv.Shutdown(shutdownCtx)
	if e := <-serveErr; err == nil && !errors.Is(e, http.ErrServerClosed) {
		err = e
	}
	return err
}

// swappable is an http.Handler whose handler can be replaced while it
// serves: the waiting one until the network is known, then the surfaces.
type swappable struct{ h atomic.Pointer[http.Handler] }

func (s *swappable) set(h http.Handler) { s.h.Store(&h) }

func (s *swappable) ServeHTTP(w http.ResponseWriter, r *http.Request) { (*s.h.Load()).ServeHTTP(w, r) }

// surfaces returns the handler of every surface of network, the
// background workers (not yet running) whose progress it reports, and
// what stops the signature aggregator's peer.
func surfaces(ctx context.Context, st store.Store, client *node.Client, network *internal.Network, networkGenesis []byte, cfg *config.Config, tokenKey []byte, access *server.Access, in *instance, log *slog.Logger) (_ http.Handler, _ []worker, stop func(), err error) {
	formatter, err := pchain.NewFormatter(network.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	platform, err := nodeapi.NewPlatformHandler(st, formatter, network, client)
	if err != nil {
		return nil, nil, nil, err
	}
	// One cache of immutable node API answers, forwarded or served.
	replies := nodeapi.NewReplyCache(replyCacheBytes)
	indexes := map[string]http.Handler{}
	for _, name := range store.IndexNames {
		h, err := nodeapi.NewIndexHandler(st, name, replies)
		if err != nil {
			return nil, nil, nil, err
		}
		indexes[name] = h
	}
	aggregator, stop, err := newAggregator(network, client, log.With("component", "warp"))
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	chains, catalog, err := evmChains(ctx, st, client, network, cfg, log.With("component", "evmchains"))
	if err != nil {
		return nil, nil, nil, err
	}
	priceSrc, err := priceSource(cfg.Prices, network, chains, log.With("component", "prices"))
	if err != nil {
		return nil, nil, nil, err
	}
	minAge := cfg.Prices.HistoricalMinAge
	if minAge == 0 {
		minAge = api.NoMinAge
	}
	// Every instance that serves records its own requests.
	recorder := usage.New(st, usage.Config{Retention: cfg.UsageRetention}, log.With("component", "usage"))
	dataAPI, err := api.New(api.Deps{Store: st, Usage: st, Network: network, NetworkGenesis: networkGenesis, Aliases: cfg.NetworkAliases, TokenKey: tokenKey, Aggregator: aggregator,
		EVM: st, Health: st, Chains: chains, Catalog: catalog, Prices: priceSrc, Spam: cfg.SpamTokens, HistoricalPriceMinAge: minAge,
		Uptimes: nodeUptimes{client}, Operations: st, ExportLinkTTL: cfg.Exports.LinkTTL,
		Webhooks: st, WebhookLimits: func(tier string) store.WebhookLimits {
			l := cfg.Webhooks.Limit(tier)
			return store.WebhookLimits{Webhooks: l.Webhooks, Addresses: l.Addresses}
		},
		CheckWebhookURL: func(ctx context.Context, u *url.URL) error {
			return webhooks.CheckURL(ctx, net.DefaultResolver, u, cfg.Webhooks.AllowPrivateNetworks)
		}})
	if err != nil {
		return nil, nil, nil, err
	}
	pass := node.NewForwarder(client.URL())
	routes := routeTable(network, forwardPlatform(network, st, platform, pass, replies), indexes, dataAPI.Routes())
	avm, err := nodeapi.NewAVMHandler(st, network, networkGenesis, client)
	if err != nil {
		return nil, nil, nil, err
	}
	routes = append(routes, forwardRoutes(network, avm, pass, replies, evmRPCResolver(chains))...)
	// The Metrics API serves the EVM chains of the registry.
	metricsAPI, err := metricsapi.New(metricsapi.Deps{Store: st, Network: network, TokenKey: tokenKey,
		EVMChains:   func() []metricsapi.EVMChain { return metricsEVMChains(chains.Chains()) },
		BTCbBridges: btcbBridges(cfg.BTCbBridges)})
	if err != nil {
		return nil, nil, nil, err
	}
	routes = append(routes, metricsRoutes(metricsAPI)...)
	patterns := make([]string, len(routes))
	for i, r := range routes {
		patterns[i] = r.Pattern
	}
	if err := access.CheckWeights(patterns); err != nil {
		return nil, nil, nil, err
	}

	indexer := ingest.New(client, network, st, log.With("component", "indexer"), ingest.Options{PollInterval: cfg.PollInterval,
		BatchSize: cfg.IngestBatchSize, EVMChains: chains.Chains(), MoreEVMChains: chains.Chains, Teleporter: common.HexToAddress(cfg.TeleporterMessenger),
		NetworkGenesis: networkGenesis})
	var rederives progress.Queues
	backfiller := derive.NewBackfiller(st, log.With("component", "backfill"), derive.BackfillOptions{})
	// The metadata worker claims its work in the store, so every instance
	// that does background work may run one.
	nftWorker := nftmeta.NewWorker(st, nftMetaConfig(cfg), log.With("component", "nftmeta"))
	nftWorker.SetURIReader(indexer)
	hookWorker := webhooks.NewWorker(st, webhookConfig(cfg), log.With("component", "webhooks"))
	exportWorker := exports.NewWorker(st, exports.Config{MaxRows: cfg.Exports.MaxRows, Retention: cfg.Exports.Retention,
		ChainIDs: map[internal.Chain]string{internal.PChain: network.PChainID.String(), internal.XChain: network.XChainID.String(),
			internal.CChain: network.CChainID.String()}}, log.With("component", "exports"))
	workers := []worker{
		{name: "evm chains' status", roles: everyRole, run: func(ctx context.Context) error {
			chains.Run(ctx)
			return nil
		}},
		{name: "indexer", roles: indexingRoles, run: func(ctx context.Context) error {
			log.Info("indexing network while this instance holds the indexer lease", "name", network.Name, "id", network.ID,
				"node", cfg.NodeURL, "instance", cfg.InstanceName)
			in.lead(ctx, func(ctx context.Context) error {
				return index(ctx, st, backfiller, indexer, networkGenesis, &rederives, log)
			}, log)
			return nil
		}},
		{name: "NFT metadata", roles: indexingRoles, run: nftWorker.Run},
		// Deliveries are claimed per webhook in the store, so every
		// instance that does background work shares them.
		{name: "webhook delivery", roles: indexingRoles, run: hookWorker.Run},
		{name: "usage recorder", roles: everyRole, run: recorder.Run},
		// The Data API keeps answers while the store is unchanged; another
		// instance's writes must count as changes too.
		{name: "store change watcher", roles: everyRole, run: func(ctx context.Context) error {
			return st.WatchChanges(ctx, storeWatchInterval)
		}},
		// Export jobs are claimed in the store: every instance that does
		// background work shares them.
		{name: "transaction exports", roles: indexingRoles, run: exportWorker.Run},
	}
	reporters := progress.Reporters{indexerStatus{in, indexer}, backfiller, &rederives, nftWorker, hookWorker, recorder, exportWorker}
	if cfg.Role == config.RoleIndexer {
		routes = nil // an indexer-only instance serves the operational routes alone
	}
	// Every instance, the lease holder or not, tells from the store
	// whether derivation work is left (/readyz says 503 until it is done).
	pending := func(ctx context.Context) ([]string, error) { return derive.PendingWork(ctx, st) }
	return server.New(server.Deps{Store: st, Progress: reporters, Pending: pending, Network: network, Routes: routes, Access: access,
			Instance: in, Usage: recorder}),
		workers, stop, nil
}

// index runs, under the indexer lease, the derivation work left, in
// order, and then the indexer: first the backfills a migration asked for
// and the metrics' catch-up (which read what the indexer writes, may ask
// for rederives, and must roll up the stored blocks before the indexer
// rolls up newer ones), then the rederives a migration, a backfill or
// `avaindex rederive` asked for, or that were cut short (the indexer
// refuses to apply a chain's blocks while its rederive is pending). None
// of it runs beside the indexer: each writes tables the indexer writes
// from a state the indexer would move under it. A failure is retried
// after a pause by the lease's loop (instance.lead), from the committed
// cursors.
func index(ctx context.Context, st store.Store, backfiller *derive.Backfiller, indexer *ingest.Indexer, networkGenesis []byte,
	rederives *progress.Queues, log *slog.Logger) error {
	if err := backfiller.Run(ctx); err != nil {
		return pause(ctx, log.With("component", "backfill"), "backfill failed; the indexer waits for it", err)
	}
	rlog := log.With("component", "rederive")
	err := derive.RunPendingRederives(ctx, st, rlog, derive.RederiveOptions{NetworkGenesis: networkGenesis, OnBatch: func(r store.Rederive) {
		// The blocks left, in /readyz's queues.
		rederives.Set(store.RederiveKey(r.Chain), int64(r.Left()))
	}})
	if err != nil {
		return pause(ctx, rlog, "rederive failed; the indexer waits for it", err)
	}
	return indexer.Run(ctx)
}

// pause logs the failure err of derivation work and waits a little before
// returning it, unless ctx ended.
func pause(ctx context.Context, log *slog.Logger, msg string, err error) error {
	if ctx.Err() == nil {
		log.Error(msg, "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
	return err
}

// metricsRoutes are the Metrics API's routes in the route table.
func metricsRoutes(m *metricsapi.API) []server.Route {
	var out []server.Route
	for _, r := range m.Routes() {
		out = append(out, server.Route{Pattern: r.Pattern, Handler: r.Handler, Surface: server.MetricsAPI})
	}
	return out
}

// btcbBridges are the configured BTC.b contracts by chain.
func btcbBridges(refs []config.TokenRef) map[uint64]common.Address {
	out := map[uint64]common.Address{}
	for _, r := range refs {
		out[r.ChainID] = r.Address
	}
	return out
}

// metricsEVMChains are the followed EVM chains as the Metrics API lists
// them; the C-chain is named as the hosted API names it.
func metricsEVMChains(chains []internal.EVMChain) []metricsapi.EVMChain {
	out := make([]metricsapi.EVMChain, 0, len(chains))
	for _, c := range chains {
		name := c.BlockchainID.String()
		if c.IsCChain {
			name = "c_chain"
		}
		out = append(out, metricsapi.EVMChain{EVMChainID: c.ChainID, Name: name, BlockchainID: c.BlockchainID, SubnetID: c.SubnetID})
	}
	return out
}

// routeTable is the API surfaces' routes: the node API's P-chain service
// under its three names, its container indexes (a handler per name in
// store.IndexNames), and the Data API's routes. With server.Routes, it is
// what the served OpenAPI document describes.
func routeTable(network *internal.Network, platform http.Handler, indexes map[string]http.Handler, data []api.Route) []server.Route {
	platformMethods := server.RPCMethods("platform", (*nodeapi.Platform)(nil))
	routes := []server.Route{
		{Pattern: "/ext/bc/P", Handler: platform, RPCMethods: platformMethods, Surface: server.NodeAPI},
		{Pattern: "/ext/P", Handler: platform, RPCMethods: platformMethods, Surface: server.NodeAPI},
		{Pattern: "/ext/bc/" + network.PChainID.String(), Handler: platform, RPCMethods: platformMethods, Surface: server.NodeAPI},
	}
	indexMethods := server.RPCMethods("index", (*nodeapi.Index)(nil))
	for _, name := range store.IndexNames {
		routes = append(routes, server.Route{Pattern: "/ext/index/" + name, Handler: indexes[name], RPCMethods: indexMethods, Surface: server.NodeAPI})
	}
	for _, r := range data {
		routes = append(routes, server.Route{Pattern: r.Pattern, Handler: r.Handler, Surface: server.DataAPI, Write: r.Write, Signed: r.Signed})
	}
	return routes
}

// storedNetwork returns the network the store indexed, nil if none yet. A
// store indexed with another reward configuration than the --stake-* flags
// give is refused: its replayed rewards would mix two histories.
func storedNetwork(ctx context.Context, st store.Store, rewards config.RewardOverrides) (*internal.Network, error) {
	stored, ok, err := st.Setting(ctx, networkKey)
	if err != nil || !ok {
		return nil, err
	}
	known := new(internal.Network)
	if err := json.Unmarshal(stored, known); err != nil {
		return nil, fmt.Errorf("decoding the stored network: %w", err)
	}
	want, err := rewardConfig(known.ID, rewards)
	if err != nil {
		return nil, err
	}
	if !reflect.DeepEqual(known.RewardConfig, want) {
		return nil, fmt.Errorf("the store was indexed with the reward configuration %s, not %s given by the --stake-* flags; use the same flags or another --db",
			describeRewards(known.RewardConfig), describeRewards(want))
	}
	return known, nil
}

// rewardConfig returns the network's reward configuration under the
// --stake-* flags, nil for the network's default.
func rewardConfig(networkID uint32, rewards config.RewardOverrides) (*reward.Config, error) {
	if rewards == (config.RewardOverrides{}) {
		return nil, nil
	}
	rc := rewards.Apply(pchain.DefaultRewardConfig(networkID))
	if rc.MinConsumptionRate > rc.MaxConsumptionRate {
		return nil, fmt.Errorf("--stake-min-consumption-rate %d is above --stake-max-consumption-rate %d",
			rc.MinConsumptionRate, rc.MaxConsumptionRate)
	}
	if rc == pchain.DefaultRewardConfig(networkID) {
		return nil, nil
	}
	return &rc, nil
}

// resolveNetwork learns the node's network and remembers it in the store,
// so that avaindex still serves what it indexed while the node is down.
// known is the network the store already holds: a node on another network
// is refused, and a node that does not answer leaves known in use (the
// indexer retries). Without known, it waits for the node until ctx is done.
func resolveNetwork(ctx context.Context, client *node.Client, st store.Store, known *internal.Network, rewards config.RewardOverrides, log *slog.Logger) (*internal.Network, error) {
	for attempt := 0; ; attempt++ {
		n, err := client.Discover(ctx)
		if err == nil {
			if known != nil {
				if known.ID != n.ID || known.XChainID != n.XChainID || known.CChainID != n.CChainID {
					return nil, fmt.Errorf("the store holds network %s (%d) but the node at %s is on %s (%d); use another --db",
						known.Name, known.ID, client.URL(), n.Name, n.ID)
				}
				return known, nil
			}
			if n.RewardConfig, err = rewardConfig(n.ID, rewards); err != nil {
				return nil, err
			}
			b, err := json.Marshal(n)
			if err != nil {
				return nil, fmt.Errorf("encoding the network: %w", err)
			}
			if err := st.PutSettingIfAbsent(ctx, networkKey, b); err != nil {
				return nil, err
			}
			return n, nil
		}
		if known != nil {
			log.Warn("node unreachable; serving the stored network while the indexer retries", "err", err)
			return known, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if attempt%10 == 0 {
			log.Warn("waiting for the node to answer", "url", client.URL(), "err", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func describeRewards(c *reward.Config) string {
	if c == nil {
		return "of the network's default"
	}
	return fmt.Sprintf("{max consumption rate %d, min consumption rate %d, minting period %s, supply cap %d}",
		c.MaxConsumptionRate, c.MinConsumptionRate, c.MintingPeriod, c.SupplyCap)
}

// settingOrCreate returns the setting key, creating it with create if absent.
func settingOrCreate(ctx context.Context, st store.Store, key string, create func() ([]byte, error)) ([]byte, error) {
	v, err := create()
	if err != nil {
		return nil, err
	}
	if err := st.PutSettingIfAbsent(ctx, key, v); err != nil {
		return nil, err
	}
	v, ok, err := st.Setting(ctx, key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("setting %q vanished after it was written", key)
	}
	return v, nil
}

// webhookConfig is the webhook delivery worker's configuration.
func webhookConfig(cfg *config.Config) webhooks.Config {
	w := cfg.Webhooks
	return webhooks.Config{AllowNetworks: w.AllowPrivateNetworks, Timeout: w.Timeout, MaxAttempts: w.MaxAttempts,
		MaxBackoff: w.MaxBackoff, Concurrency: w.Concurrency, Retention: w.Retention}
}

// nftMetaConfig is the NFT metadata worker's configuration.
func nftMetaConfig(cfg *config.Config) nftmeta.Config {
	m := cfg.NFTMetadata
	return nftmeta.Config{IPFSGateway: m.IPFSGateway, AllowNetworks: m.AllowPrivateNetworks, Concurrency: m.Concurrency,
		PerHost: m.PerHost, MaxBytes: m.MaxBytes, Timeout: m.Timeout}
}
