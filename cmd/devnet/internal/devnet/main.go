// Command devnet starts a real single-node avalanchego local network and
// avaindex indexing it on embedded SQLite, then prints the URLs to try. It
// is what cmd/devnet builds and runs.
// Everything listens on loopback; Ctrl-C stops both. The node's and the
// store's data go to a temporary directory, removed on exit, unless
// --data-dir names one to keep.
//
// Unless --demo=false, it then issues a realistic set of transactions (see
// issueDemo) and prints a curl command for each surface that shows them.
//
// With --l1 it runs a real subnet-evm L1 instead (l1.go): a custom network
// on an avalanchego v1.14.0 node with the subnet-evm plugin, built once per
// machine, whose L1 avaindex finds on the P-chain; its demo is the L1's.
//
//	go run ./cmd/devnet [--data-dir DIR] [--listen 127.0.0.1:8080] [--demo=false] [--l1]
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

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/localnet"
	"github.com/avaindex/avaindex/internal/localnet/inprocess"
	"github.com/avaindex/avaindex/internal/service"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "devnet:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "devnet: stopped; the node and avaindex are down")
}

func run() error {
	fs := flag.NewFlagSet("devnet", flag.ContinueOnError)
	dir := fs.String("data-dir", "", "directory for the node and the SQLite store, kept on exit (default: a temporary directory, removed on exit)")
	fs.StringVar(dir, "dir", "", "the same as --data-dir")
	listen := fs.String("listen", "127.0.0.1:8080", "address avaindex listens on")
	demo := fs.Bool("demo", true, "issue demo transactions once avaindex serves, and print the commands that show them")
	l1 := fs.Bool("l1", false, "run a subnet-evm L1 on a custom network instead of the local network (builds avalanchego v1.14.0 and subnet-evm once: minutes the first time)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return err
	}
	keep := *dir != ""
	if !keep {
		d, err := os.MkdirTemp("", "devnet-")
		if err != nil {
			return fmt.Errorf("creating a temporary directory: %w", err)
		}
		*dir = d
		// Deferred first, so it runs last: after the node and avaindex stopped.
		defer func() {
			if err := os.RemoveAll(d); err != nil {
				fmt.Fprintln(os.Stderr, "devnet: removing the temporary directory:", err)
			}
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		fmt.Fprintln(os.Stderr, "devnet: stopping avaindex and the node...")
	}()
	if *l1 {
		return runL1(ctx, *dir, keep, *listen, *demo)
	}

	fmt.Fprintln(os.Stderr, "devnet: starting a local avalanchego node...")
	node, err := inprocess.Start(ctx, localnet.Options{Dir: filepath.Join(*dir, "node")})
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
	// The local genesis funds one key (ewoq) on all three chains.
	key := genesis.EWOQKey
	funded, err := address.FormatBech32(constants.GetHRP(constants.LocalID), key.Address().Bytes())
	if err != nil {
		return fmt.Errorf("formatting the funded address: %w", err)
	}
	data := *dir
	if !keep {
		data += " (removed on exit; --data-dir keeps it)"
	}
	serving := make(chan string, 1)
	ready := func(addr string) {
		serving <- "http://" + addr
		base := "http://" + addr
		fmt.Printf(`
avaindex status page: %[2]s/   (API reference: %[2]s/docs)

avaindex is indexing a local Avalanche network.

  node (avalanchego)  %[1]s
  avaindex            %[2]s
  data                %[3]s
  funded key          %[4]s
                      (P-%[5]s, X-%[5]s, C-chain %[6]s)

Try:
  curl -s '%[2]s/v1/networks/testnet/blockchains/p-chain/blocks?pageSize=3'
  curl -s -X POST -H 'content-type: application/json' %[2]s/ext/bc/P \
       -d '{"jsonrpc":"2.0","id":1,"method":"platform.getBlockByHeight","params":{"height":0,"encoding":"json"}}'
  curl -s -X POST -H 'content-type: application/json' %[2]s/ext/bc/P \
       -d '{"jsonrpc":"2.0","id":1,"method":"platform.getBalance","params":{"addresses":["P-%[5]s"]}}'
  curl -s %[2]s/readyz
  curl -s %[2]s/metrics | grep avaindex_

Ctrl-C stops both.
`, node.URL, base, data, key, funded, key.EthAddress().Hex())
	}
	errc := make(chan error, 1)
	go func() { errc <- service.Run(ctx, cfg, log, ready) }()
	if *demo {
		go func() {
			var base string
			select {
			case base = <-serving:
			case <-ctx.Done():
				return
			}
			d, err := issueDemo(ctx, node.URL, os.Stderr)
			if err == nil {
				err = waitIndexed(ctx, node.URL, base, d.EVMChainID)
			}
			if err == nil {
				err = waitNFTMetadata(ctx, base, d)
			}
			if err != nil {
				if ctx.Err() == nil {
					fmt.Fprintln(os.Stderr, "devnet: the demo transactions failed (avaindex keeps serving):", err)
				}
				return
			}
			printSurfaces(os.Stdout, demoSurfaces(base, d))
		}()
	}
	select {
	case err := <-errc:
		return err
	case <-node.Exited():
		stop()
		<-errc
		return fmt.Errorf("the node stopped unexpectedly: %w", node.Stop())
	}
}
