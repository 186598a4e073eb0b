// Command localnet runs a real single-node avalanchego network on loopback,
// built in-process from the avalanchego Go module, for development and tests.
//
// It prints one line, NODE_URL=<url>, on stdout once the P, X and C chains
// are bootstrapped, and stops the node cleanly on SIGINT or SIGTERM.
//
// --network local (the default) runs avalanchego's local network (12345)
// with sybil protection off; --network custom runs a custom network
// (--network-id, default 88888) whose only genesis validator is the node
// itself, with sybil protection on, where warp messages verify.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"syscall"

	"github.com/avaindex/avaindex/internal/localnet"
	"github.com/avaindex/avaindex/internal/localnet/inprocess"
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
	network := fs.String("network", "local", "`local` (id 12345, sybil protection off) or `custom` (the node is the only genesis validator; keys and genesis kept in <dir>)")
	networkID := fs.Uint("network-id", uint(localnet.CustomNetworkID), "network id of --network custom")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return err
	}
	opts := localnet.Options{HTTPPort: *httpPort, LogLevel: *logLevel}
	switch *network {
	case "local":
	case "custom":
		if *networkID == 0 || *networkID > math.MaxUint32 {
			return fmt.Errorf("--network-id %d out of range", *networkID)
		}
		opts.Custom = true
		opts.NetworkID = uint32(*networkID)
	default:
		return fmt.Errorf("--network %q: want local or custom", *network)
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "localnet-")
		if err != nil {
			return err
		}
		*dir = d
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	opts.Dir = *dir
	n, err := inprocess.Start(ctx, opts)
	if err != nil {
		return err
	}
	// The one line tools and tests read.
	fmt.Printf("NODE_URL=%s\n", n.URL)
	fmt.Fprintf(os.Stderr, "localnet: network %s (%d) bootstrapped; data in %s\n", *network, n.NetworkID, n.Dir)
	select {
	case <-ctx.Done():
		return n.Stop()
	case <-n.Exited():
		return fmt.Errorf("node exited unexpectedly: %v", n.Stop())
	}
}
