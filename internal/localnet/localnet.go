// Package localnet runs a real single-node avalanchego network in-process,
// on loopback, built from the avalanchego Go module: by default the `local`
// network (id 12345) with sybil protection off, the index on, the C-chain as
// an archive node with the tracer and warp APIs, zero block delay and short
// staking durations.
//
// With Options.Custom it runs instead a custom network (id 88888 by
// default, HRP "custom") whose only genesis validator is the node itself,
// with sybil protection on: there the P-chain knows every subnet's and L1's
// validators, so warp messages verify (see custom.go).
package localnet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ava-labs/avalanchego/app"
	"github.com/ava-labs/avalanchego/config"
	"github.com/ava-labs/avalanchego/config/node"
	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm"
	"github.com/ava-labs/avalanchego/utils/constants"
)

// Options configure Start; zero values take the defaults.
type Options struct {
	// Dir holds the node's database, logs and configs; it must be set.
	Dir string
	// HTTPPort is the API port on 127.0.0.1; 0 picks a free one.
	HTTPPort int
	// LogLevel is avalanchego's level for <Dir>/logs (default info).
	LogLevel string
	// Custom runs a custom network whose only genesis validator is this
	// node, with sybil protection on, instead of the local network. Its
	// genesis and the node's keys are created in Dir on first start and
	// reused after.
	Custom bool
	// NetworkID is the custom network's id (default CustomNetworkID). It
	// must not be set without Custom.
	NetworkID uint32
}

// Node is a running node.
type Node struct {
	// URL is the node's HTTP API base, e.g. http://127.0.0.1:9650.
	URL string
	// Dir is the node's directory.
	Dir string
	// NetworkID is the network the node runs (12345 for the local network).
	NetworkID uint32

	app    app.App
	exited chan struct{} // closed when the node has exited; then code is set
	code   int
	once   sync.Once
}

var registerExtras sync.Once

// Start starts the node and returns once the P, X and C chains are
// bootstrapped, or when ctx ends.
func Start(ctx context.Context, opts Options) (*Node, error) {
	args, networkID, err := Args(opts)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	registerExtras.Do(evm.RegisterAllLibEVMExtras)
	v, err := config.BuildViper(config.BuildFlagSet(), args)
	if err != nil {
		return nil, fmt.Errorf("node flags: %w", err)
	}
	nodeConfig, err := config.GetNodeConfig(v)
	if err != nil {
		return nil, fmt.Errorf("node config: %w", err)
	}
	a, err := app.New(nodeConfig)
	if err != nil {
		return nil, fmt.Errorf("starting node: %w", err)
	}
	n := &Node{Dir: dir, NetworkID: networkID, app: a, exited: make(chan struct{})}
	a.Start()
	go func() {
		n.code = a.ExitCode()
		close(n.exited)
	}()
	uri, err := n.waitReady(ctx, ProcessFile(dir))
	if err != nil {
		_ = n.Stop()
		return nil, err
	}
	n.URL = uri
	return n, nil
}

// Args returns the avalanchego flags that Start runs the node with, and
// the network's id, for a node binary started as a process of its own
// (testnet's L1 node runs another avalanchego version than this module's).
// It prepares opts.Dir as Start does: the custom network's genesis and keys
// on first use, and the C-chain's config. The node writes its URL to
// ProcessFile(opts.Dir).
func Args(opts Options) ([]string, uint32, error) {
	if opts.Dir == "" {
		return nil, 0, errors.New("localnet: Options.Dir is required")
	}
	if opts.LogLevel == "" {
		opts.LogLevel = "info"
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, 0, err
	}
	networkArgs := []string{"--network-id=local", "--sybil-protection-enabled=false"}
	networkID := constants.LocalID
	switch {
	case opts.Custom:
		networkID = opts.NetworkID
		if networkID == 0 {
			networkID = CustomNetworkID
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, 0, err
		}
		id, err := loadOrCreateCustom(dir, networkID)
		if err != nil {
			return nil, 0, err
		}
		networkArgs = customArgs(networkID, id)
	case opts.NetworkID != 0:
		return nil, 0, errors.New("localnet: Options.NetworkID is only for a custom network")
	}
	args, err := nodeArgs(dir, opts.HTTPPort, opts.LogLevel, networkArgs)
	if err != nil {
		return nil, 0, err
	}
	return args, networkID, nil
}

// ProcessFile is where the node started with Args(opts) writes its process
// context (node.ProcessContext, whose URI is its API's base URL), for
// opts.Dir dir.
func ProcessFile(dir string) string { return filepath.Join(dir, "process.json") }

// ChainConfigDir is the --chain-config-dir of the node started with
// Args(opts), for opts.Dir dir: a chain's config goes in
// <ChainConfigDir>/<blockchainID>/config.json.
func ChainConfigDir(dir string) string { return filepath.Join(dir, "configs", "chains") }

// Exited is closed when the node stops, for whatever reason.
func (n *Node) Exited() <-chan struct{} { return n.exited }

// Stop stops the node and waits for it to exit.
func (n *Node) Stop() error {
	n.once.Do(n.app.Stop)
	<-n.exited
	if n.code != 0 {
		return fmt.Errorf("node exited with code %d", n.code)
	}
	return nil
}

// nodeArgs builds the avalanchego flags of the network (networkArgs select
// it) and writes the C-chain config that enables archive mode, tracing and
// the warp API.
func nodeArgs(dir string, httpPort int, logLevel string, networkArgs []string) ([]string, error) {
	chainDir := filepath.Join(ChainConfigDir(dir), "C")
	if err := os.MkdirAll(chainDir, 0o755); err != nil {
		return nil, err
	}
	cConfig := map[string]any{
		"pruning-enabled":    false,
		"warp-api-enabled":   true,
		"eth-apis":           []string{"eth", "eth-filter", "net", "web3", "internal-eth", "internal-blockchain", "internal-transaction", "internal-debug", "debug-tracer"},
		"log-level":          "warn",
		"state-sync-enabled": false,
		// ICM's TeleporterMessenger is deployed by a keyless transaction
		// signed without a chain id (the same address on every chain).
		"allow-unprotected-txs": true,
		// Without it coreth makes a keystore under $TMPDIR and leaves it.
		"keystore-directory": filepath.Join(dir, "coreth-keystore"),
	}
	b, err := json.Marshal(cConfig)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(chainDir, "config.json"), b, 0o644); err != nil {
		return nil, err
	}
	return append(networkArgs,
		"--http-host=127.0.0.1",
		fmt.Sprintf("--http-port=%d", httpPort),
		"--public-ip=127.0.0.1",
		"--staking-host=127.0.0.1",
		"--staking-port=0",
		"--index-enabled=true",
		// The default is above this machine's hard limit.
		"--fd-limit=16000",
		"--proposervm-min-block-delay=0s",
		"--min-stake-duration=5s",
		"--uptime-requirement=0",
		"--data-dir="+dir,
		"--chain-config-dir="+ChainConfigDir(dir),
		"--log-dir="+filepath.Join(dir, "logs"),
		"--log-level="+logLevel,
		"--log-display-level=off",
		// The C-chain writes its own log lines through the node logger's
		// writer; keep them off stdout.
		"--log-disable-display-plugin-logs=true",
		"--process-context-file="+ProcessFile(dir),
		"--api-admin-enabled=false",
	), nil
}

// waitReady waits for the node to write its process context and report the
// P, X and C chains bootstrapped.
func (n *Node) waitReady(ctx context.Context, processFile string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	uri := ""
	for {
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("node did not bootstrap: %w", ctx.Err())
		case <-n.exited:
			return "", fmt.Errorf("node exited with code %d before bootstrapping", n.code)
		case <-tick.C:
		}
		if uri == "" {
			b, err := os.ReadFile(processFile)
			if err != nil {
				continue
			}
			var pc node.ProcessContext
			if json.Unmarshal(b, &pc) != nil || pc.URI == "" {
				continue
			}
			uri = pc.URI
		}
		if bootstrapped(ctx, uri, "P") && bootstrapped(ctx, uri, "X") && bootstrapped(ctx, uri, "C") {
			return uri, nil
		}
	}
}

func bootstrapped(ctx context.Context, uri, chain string) bool {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"info.isBootstrapped","params":{"chain":%q}}`, chain)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, uri+"/ext/info", strings.NewReader(body))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var out struct {
		Result struct {
			IsBootstrapped bool `json:"isBootstrapped"`
		} `json:"result"`
	}
	return json.NewDecoder(resp.Body).Decode(&out) == nil && out.Result.IsBootstrapped
}
