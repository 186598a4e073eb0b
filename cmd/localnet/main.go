// Command localnet runs a real single-node avalanchego network on loopback,
// built in-process from the avalanchego Go module, for development and tests.
//
// It prints the node's URL once the P, X and C chains are bootstrapped and
// stops the node cleanly on SIGINT or SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ava-labs/avalanchego/app"
	"github.com/ava-labs/avalanchego/config"
	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm"
	"github.com/ava-labs/avalanchego/config/node"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "localnet:", err)
		os.Exit(1)
	}
}

func run() error {
	fs := flag.NewFlagSet("localnet", flag.ContinueOnError)
	dir := fs.String("dir", "", "directory for the node's database, logs and configs (default: a new temporary directory)")
	httpPort := fs.Int("http-port", 0, "HTTP API port on 127.0.0.1 (0 picks a free port)")
	logLevel := fs.String("log-level", "info", "avalanchego log level written to <dir>/logs")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return err
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "localnet-")
		if err != nil {
			return err
		}
		*dir = d
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}

	args, err := nodeArgs(abs, *httpPort, *logLevel)
	if err != nil {
		return err
	}

	evm.RegisterAllLibEVMExtras()
	v, err := config.BuildViper(config.BuildFlagSet(), args)
	if err != nil {
		return fmt.Errorf("node flags: %w", err)
	}
	nodeConfig, err := config.GetNodeConfig(v)
	if err != nil {
		return fmt.Errorf("node config: %w", err)
	}
	nodeApp, err := app.New(nodeConfig)
	if err != nil {
		return fmt.Errorf("starting node: %w", err)
	}
	nodeApp.Start()
	exited := make(chan int, 1)
	go func() { exited <- nodeApp.ExitCode() }()

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	uri, err := waitReady(ctx, filepath.Join(abs, "process.json"), exited, sig)
	if err != nil {
		nodeApp.Stop()
		<-exited
		return err
	}
	// The one line tools and tests read: the node URL.
	fmt.Printf("NODE_URL=%s\n", uri)
	fmt.Fprintf(os.Stderr, "localnet: network local (12345) bootstrapped; data in %s\n", abs)

	select {
	case <-sig:
		nodeApp.Stop()
		if code := <-exited; code != 0 {
			return fmt.Errorf("node exited with code %d", code)
		}
		return nil
	case code := <-exited:
		return fmt.Errorf("node exited unexpectedly with code %d", code)
	}
}

// nodeArgs builds the avalanchego flags of the local network and writes the
// C-chain config that enables archive mode, tracing and the warp API.
func nodeArgs(dir string, httpPort int, logLevel string) ([]string, error) {
	chainDir := filepath.Join(dir, "configs", "chains", "C")
	if err := os.MkdirAll(chainDir, 0o755); err != nil {
		return nil, err
	}
	cConfig := map[string]any{
		"pruning-enabled":    false,
		"warp-api-enabled":   true,
		"eth-apis":           []string{"eth", "eth-filter", "net", "web3", "internal-eth", "internal-blockchain", "internal-transaction", "internal-debug", "debug-tracer"},
		"log-level":          "warn",
		"state-sync-enabled": false,
	}
	b, err := json.Marshal(cConfig)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(chainDir, "config.json"), b, 0o644); err != nil {
		return nil, err
	}
	return []string{
		"--network-id=local",
		"--sybil-protection-enabled=false",
		"--http-host=127.0.0.1",
		fmt.Sprintf("--http-port=%d", httpPort),
		"--public-ip=127.0.0.1",
		"--staking-host=127.0.0.1",
		"--staking-port=0",
		"--index-enabled=true",
		"--fd-limit=16000",
		"--proposervm-min-block-delay=0s",
		"--min-stake-duration=5s",
		"--uptime-requirement=0",
		"--data-dir=" + dir,
		"--chain-config-dir=" + filepath.Join(dir, "configs", "chains"),
		"--log-dir=" + filepath.Join(dir, "logs"),
		"--log-level=" + logLevel,
		"--log-display-level=off",
		"--process-context-file=" + filepath.Join(dir, "process.json"),
		"--api-admin-enabled=false",
	}, nil
}

// waitReady waits for the node to write its process context and report the
// P, X and C chains bootstrapped.
func waitReady(ctx context.Context, processFile string, exited <-chan int, sig <-chan os.Signal) (string, error) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	uri := ""
	for {
		select {
		case <-ctx.Done():
			return "", errors.New("node did not bootstrap in time")
		case code := <-exited:
			return "", fmt.Errorf("node exited with code %d before bootstrapping", code)
		case <-sig:
			return "", errors.New("interrupted")
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
