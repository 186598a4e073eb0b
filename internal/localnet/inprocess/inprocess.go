// Package inprocess runs the node that package localnet configures inside
// this process, built from the avalanchego Go module (cmd/localnet and the
// devnet demo). It is a package apart because it links the whole node and
// its VMs: their package initialisation alone holds about 40 MiB, which
// every test binary that only needs a node's flags (the test networks run
// cmd/localnet as a process of its own) would otherwise carry, and which
// the memory benchmarks would count as avaindex's.
package inprocess

import (
	"context"
	"encoding/json"
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

	"github.com/avaindex/avaindex/internal/localnet"
)

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
func Start(ctx context.Context, opts localnet.Options) (*Node, error) {
	args, networkID, err := localnet.Args(opts)
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
	uri, err := n.waitReady(ctx, localnet.ProcessFile(dir))
	if err != nil {
		_ = n.Stop()
		return nil, err
	}
	n.URL = uri
	return n, nil
}

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
