// Package localnet configures a real single-node avalanchego network on
// loopback (package inprocess runs it in this process; the tests run
// cmd/localnet, or another version's node, with Args): by default the `local`
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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ava-labs/avalanchego/utils/constants"
)

// Options configure the node (Args, inprocess.Start); zero values take
// the defaults.
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

// Args returns the avalanchego flags of the node opts configures, and the
// network's id: inprocess.Start runs a node with them, and testnet passes
// them to a node binary started as a process of its own (its L1 node runs
// another avalanchego version than this module's). It prepares opts.Dir:
// the custom network's genesis and keys on first use, and the C-chain's
// config. The node writes its URL to ProcessFile(opts.Dir).
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
