package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/service"
	"github.com/avaindex/avaindex/internal/testing/contracts"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// With --l1, devnet runs a real subnet-evm L1 instead of the local
// network: a custom network (id 88888, sybil protection on, so that warp
// verifies) on an avalanchego v1.14.0 node with the subnet-evm v0.8.0
// plugin (tools/l1node, built once per machine: minutes the first time),
// one subnet-evm chain on it converted to an L1 that the node validates.
// avaindex indexes that network with no EVM configuration: it finds the
// L1's chain on the P-chain. The demo is the L1's (contracts.RunL1); the
// primary-network demo, whose staking would stall a network of one
// validator, runs without --l1.

// runL1 is devnet --l1 with its data in dir (kept when keep).
func runL1(ctx context.Context, dir string, keep bool, listen string, demo bool) error {
	fmt.Fprintln(os.Stderr, "devnet: building the L1 node and the subnet-evm plugin (tools/l1node; minutes the first time)...")
	buildCtx, cancel := context.WithTimeout(ctx, testnet.L1BuildTimeout)
	nodeBin, pluginDir, err := testnet.L1Binaries(buildCtx)
	cancel()
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "devnet: starting the L1 network (a subnet, a subnet-evm chain, its conversion to an L1)...")
	startCtx, cancel := context.WithTimeout(ctx, testnet.L1StartTimeout)
	l, proc, err := testnet.StartL1(startCtx, nodeBin, pluginDir, filepath.Join(dir, "l1"))
	cancel()
	if err != nil {
		return err
	}
	defer proc.Stop()

	cfg, err := config.Load("devnet", []string{
		"--node-url", l.URL,
		"--data-dir", filepath.Join(dir, "avaindex"),
		"--listen", listen,
		"--genesis-file", l.GenesisFile,
		"--network-alias", demoNetwork,
	}, os.Getenv, os.Stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	data := dir
	if !keep {
		data += " (removed on exit; --data-dir keeps it)"
	}
	serving := make(chan string, 1)
	ready := func(addr string) {
		base := "http://" + addr
		serving <- base
		fmt.Printf(`
avaindex status page: %[2]s/   (API reference: %[2]s/docs)

avaindex is indexing a custom Avalanche network (id %[7]d) with a subnet-evm L1.

  node (avalanchego)  %[1]s
  avaindex            %[2]s
  data                %[3]s
  funded key          %[4]s
                      (P-%[5]s, X-%[5]s, C-chain and L1 %[6]s)
  L1                  subnet %[8]s, blockchain %[9]s
                      EVM chain id %[10]d, RPC %[11]s

Try:
  curl -s '%[2]s/v1/chains'
  curl -s '%[2]s/v1/chains/%[10]d'
  curl -s '%[2]s/v1/networks/testnet/blockchains/p-chain/transactions/%[9]s'
  curl -s %[2]s/readyz

Ctrl-C stops both.
`, l.URL, base, data, testnet.LocalKey, l.Net.Address, l.Net.EthAddr.Hex(), l.Net.NetworkID,
			l.SubnetID, l.BlockchainID, l.EVMChainID, l.RPCURL())
	}
	errc := make(chan error, 1)
	go func() { errc <- service.Run(ctx, cfg, log, ready) }()
	if demo {
		go func() {
			var base string
			select {
			case base = <-serving:
			case <-ctx.Done():
				return
			}
			s, err := runL1Demo(ctx, l, base, os.Stderr)
			if err != nil {
				if ctx.Err() == nil {
					fmt.Fprintln(os.Stderr, "devnet: the L1 demo failed (avaindex keeps serving):", err)
				}
				return
			}
			printSurfaces(os.Stdout, l1Surfaces(base, l, s))
		}()
	}
	select {
	case err := <-errc:
		return err
	case <-proc.Exited():
		return fmt.Errorf("the L1 node stopped unexpectedly: %w", proc.Stop())
	}
}

// runL1Demo issues the L1's demo and waits until avaindex at base has
// indexed the L1's chain up to its last block.
func runL1Demo(ctx context.Context, l *testnet.EVML1, base string, progress io.Writer) (*contracts.L1Scenario, error) {
	fmt.Fprintln(progress, "devnet: issuing the L1 demo (a transfer, a native-minter mint, an ERC-20)...")
	s, err := contracts.RunL1(ctx, l)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	key := fmt.Sprintf("evm:%d", l.EVMChainID)
	for {
		var r struct {
			Indexer struct {
				Heights map[string]uint64 `json:"heights"`
			} `json:"indexer"`
		}
		if err := getJSON(ctx, base+"/readyz", &r); err == nil && r.Indexer.Heights[key] >= s.Last {
			return s, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("avaindex did not index the L1 demo: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// l1Surfaces are the commands that show the L1 demo.
func l1Surfaces(base string, l *testnet.EVML1, s *contracts.L1Scenario) []surface {
	chain := fmt.Sprintf("%s/v1/chains/%d", base, l.EVMChainID)
	get := func(what, url string) surface { return surface{what, fmt.Sprintf("curl -s '%s'", url)} }
	return []surface{
		get("the EVM chains served: the C-chain and the L1, found on the P-chain", base+"/v1/chains"),
		get("the L1's chain", chain),
		get("its CreateChainTx, with the subnet-evm genesis", base+"/v1/networks/"+demoNetwork+"/blockchains/p-chain/transactions/"+l.BlockchainID.String()),
		get("its conversion to an L1 validated by the node", base+"/v1/networks/"+demoNetwork+"/blockchains/p-chain/transactions/"+l.L1.ConvertSubnetToL1Tx.String()),
		get("the L1 token's transfers: a mint and a transfer", chain+"/tokens/"+s.Token.Hex()+"/transfers"),
		get("the token's metadata", chain+"/addresses/"+s.Token.Hex()),
		get("Alice's native balance (a transfer)", chain+"/addresses/"+s.Alice.Hex()+"/balances:getNative"),
		get("Bob's (minted by the native minter)", chain+"/addresses/"+s.Bob.Hex()+"/balances:getNative"),
		get("Bob's before the mint", fmt.Sprintf("%s/addresses/%s/balances:getNative?blockNumber=%d", chain, s.Bob.Hex(), s.First)),
	}
}
