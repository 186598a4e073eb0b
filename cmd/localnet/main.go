// Command localnet runs a real single-node avalanchego network on loopback,
// built in-process from the avalanchego Go module, for development and tests.
//
// It prints one line, NODE_URL=<url>, on stdout once the P, X and C chains
// are bootstrapped, and stops the node cleanly on SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/avaindex/avaindex/internal/localnet"
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
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	n, err := localnet.Start(ctx, localnet.Options{Dir: *dir, HTTPPort: *httpPort, LogLevel: *logLevel})
	if err != nil {
		return err
	}
	// The one line tools and tests read.
	fmt.Printf("NODE_URL=%s\n", n.URL)
	fmt.Fprintf(os.Stderr, "localnet: network local (12345) bootstrapped; data in %s\n", n.Dir)
	select {
	case <-ctx.Done():
		return n.Stop()
	case <-n.Exited():
		return fmt.Errorf("node exited unexpectedly: %v", n.Stop())
	}
}
