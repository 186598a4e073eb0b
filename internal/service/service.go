// Package service wires avaindex together: store, node client, indexer and
// HTTP surfaces, for `avaindex serve` and `devnet`.
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
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/ingest"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/nodeapi"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/server"
	"github.com/avaindex/avaindex/internal/store"
)

// Settings keys.
const (
	networkKey   = store.NetworkSetting
	tokenKeyName = "page-token-key"
)

// OpenStore opens (and migrates) the configured store, creating the SQLite
// directory when needed.
func OpenStore(ctx context.Context, cfg *config.Config) (store.Store, error) {
	if path, ok := strings.CutPrefix(cfg.DB, "sqlite:"); ok {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("creating the data directory: %w", err)
		}
	}
	return store.Open(ctx, cfg.DB)
}

// Run serves until ctx is done. ready, when non-nil, receives the
// listener's address once the HTTP server accepts connections.
func Run(ctx context.Context, cfg *config.Config, log *slog.Logger, ready func(addr string)) error {
	st, err := OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()

	if cfg.GenesisFile != "" {
		if err := pchain.RegisterGenesisFile(cfg.GenesisFile); err != nil {
			return err
		}
	}
	client := node.New(cfg.NodeURL)
	network, err := resolveNetwork(ctx, client, st, cfg.Rewards, log)
	if err != nil {
		return err
	}
	log.Info("indexing network", "name", network.Name, "id", network.ID, "node", cfg.NodeURL)

	tokenKey, err := settingOrCreate(ctx, st, tokenKeyName, func() ([]byte, error) {
		k := make([]byte, 32)
		_, err := rand.Read(k)
		return k, err
	})
	if err != nil {
		return err
	}
	formatter, err := pchain.NewFormatter(network.ID)
	if err != nil {
		return err
	}
	platform, err := nodeapi.NewPlatformHandler(st, formatter, network, client)
	if err != nil {
		return err
	}
	routes := []server.Route{
		{Pattern: "/ext/bc/P", Handler: platform},
		{Pattern: "/ext/P", Handler: platform},
		{Pattern: "/ext/bc/" + network.PChainID.String(), Handler: platform},
	}
	for _, name := range store.IndexNames {
		h, err := nodeapi.NewIndexHandler(st, name)
		if err != nil {
			return err
		}
		routes = append(routes, server.Route{Pattern: "/ext/index/" + name, Handler: h})
	}
	aggregator, stopAggregator, err := newAggregator(network, client, log.With("component", "warp"))
	if err != nil {
		return err
	}
	defer stopAggregator()
	dataAPI, err := api.New(api.Deps{Store: st, Network: network, Aliases: cfg.NetworkAliases, TokenKey: tokenKey, Aggregator: aggregator})
	if err != nil {
		return err
	}
	for _, r := range dataAPI.Routes() {
		routes = append(routes, server.Route{Pattern: r.Pattern, Handler: r.Handler})
	}

	indexer := ingest.New(client, network, st, log.With("component", "indexer"), ingest.Options{PollInterval: cfg.PollInterval, BatchSize: cfg.IngestBatchSize})
	handler := server.New(server.Deps{Store: st, Indexer: indexer, Routes: routes})

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
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = indexer.Run(ctx)
	}()
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	log.Info("serving", "url", "http://"+ln.Addr().String())
	if ready != nil {
		ready(ln.Addr().String())
	}

	select {
	case <-ctx.Done():
	case err = <-serveErr:
	}
	cancel()
	shutdownCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	_ = srv.Shutdown(shutdownCtx)
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// resolveNetwork learns the node's network and remembers it in the store,
// so that avaindex still serves what it indexed while the node is down. A
// store that indexed another network is refused.
func resolveNetwork(ctx context.Context, client *node.Client, st store.Store, rewards config.RewardOverrides, log *slog.Logger) (*internal.Network, error) {
	stored, ok, err := st.Setting(ctx, networkKey)
	if err != nil {
		return nil, err
	}
	var known *internal.Network
	if ok {
		known = new(internal.Network)
		if err := json.Unmarshal(stored, known); err != nil {
			return nil, fmt.Errorf("decoding the stored network: %w", err)
		}
	}
	for attempt := 0; ; attempt++ {
		n, err := client.Discover(ctx)
		if err == nil {
			if known != nil && (known.ID != n.ID || known.XChainID != n.XChainID || known.CChainID != n.CChainID) {
				return nil, fmt.Errorf("the store holds network %s (%d) but the node at %s is on %s (%d); use another --db",
					known.Name, known.ID, client.URL(), n.Name, n.ID)
			}
			if rewards != (config.RewardOverrides{}) {
				rc := rewards.Apply(pchain.DefaultRewardConfig(n.ID))
				if rc.MinConsumptionRate > rc.MaxConsumptionRate {
					return nil, fmt.Errorf("--stake-min-consumption-rate %d is above --stake-max-consumption-rate %d",
						rc.MinConsumptionRate, rc.MaxConsumptionRate)
				}
				if rc != pchain.DefaultRewardConfig(n.ID) {
					n.RewardConfig = &rc
				}
			}
			// Rewards already replayed were computed with the stored
			// configuration: another one would mix two histories.
			if known != nil && !reflect.DeepEqual(known.RewardConfig, n.RewardConfig) {
				return nil, fmt.Errorf("the store was indexed with the reward configuration %s, not %s given by the --stake-* flags; use the same flags or another --db",
					describeRewards(known), describeRewards(n))
			}
			if known == nil {
				b, err := json.Marshal(n)
				if err != nil {
					return nil, err
				}
				if err := st.PutSettingIfAbsent(ctx, networkKey, b); err != nil {
					return nil, err
				}
			}
			return n, nil
		}
		if known != nil {
			log.Warn("node unreachable; serving the stored network while the indexer retries", "err", err)
			return known, nil
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

func describeRewards(n *internal.Network) string {
	if n.RewardConfig == nil {
		return "of the network's default"
	}
	c := n.RewardConfig
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
