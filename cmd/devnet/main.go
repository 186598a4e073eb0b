// Command devnet starts a real single-node avalanchego local network and
// avaindex indexing it on embedded SQLite, then prints the URLs to try.
// Everything listens on loopback; Ctrl-C stops both.
//
//	go run ./cmd/devnet [--dir DIR] [--listen 127.0.0.1:8080]
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/localnet"
	"github.com/avaindex/avaindex/internal/service"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "devnet:", err)
		os.Exit(1)
	}
}

func run() error {
	fs := flag.NewFlagSet("devnet", flag.ContinueOnError)
	dir := fs.String("dir", "", "directory for the node and the SQLite store (default: a new temporary directory)")
	listen := fs.String("listen", "127.0.0.1:8080", "address avaindex listens on")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return err
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "devnet-")
		if err != nil {
			return err
		}
		*dir = d
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	fmt.Fprintln(os.Stderr, "devnet: starting a local avalanchego node...")
	node, err := localnet.Start(ctx, localnet.Options{Dir: filepath.Join(*dir, "node")})
	if err != nil {
		return err
	}
	defer node.Stop()

	cfg, err := config.Load("devnet", []string{
		"--node-url", node.URL,
		"--data-dir", filepath.Join(*dir, "avaindex"),
		"--listen", *listen,
		// Strict clients only accept the schema's network names.
		"--network-alias", "testnet",
	}, os.Getenv, os.Stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ready := func(addr string) {
		base := "http://" + addr
		fmt.Printf(`
avaindex is indexing a local Avalanche network.

  node (avalanchego)  %[1]s
  avaindex            %[2]s
  data                %[3]s

Try:
  curl -s '%[2]s/v1/networks/testnet/blockchains/p-chain/blocks?pageSize=3'
  curl -s -X POST -H 'content-type: application/json' %[2]s/ext/bc/P \
       -d '{"jsonrpc":"2.0","id":1,"method":"platform.getBlockByHeight","params":{"height":0,"encoding":"json"}}'
  curl -s %[2]s/readyz
  curl -s %[2]s/metrics | grep avaindex_

Ctrl-C stops both.
`, node.URL, base, *dir)
	}
	errc := make(chan error, 1)
	go func() { errc <- service.Run(ctx, cfg, log, ready) }()
	select {
	case err := <-errc:
		return err
	case <-node.Exited():
		stop()
		<-errc
		return fmt.Errorf("the node stopped unexpectedly: %w", node.Stop())
	}
}
