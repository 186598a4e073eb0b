package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/core/types"

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
// L1's chain on the P-chain. The demo is the L1's (contracts.RunL1) and
// ICM's (contracts.RunICM, a message each way relayed with avaindex's
// signature aggregation); the
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
			s, icm, err := runL1Demo(ctx, l, base, os.Stderr)
			if err != nil {
				if ctx.Err() == nil {
					fmt.Fprintln(os.Stderr, "devnet: the L1 demo failed (avaindex keeps serving):", err)
				}
				return
			}
			printSurfaces(os.Stdout, l1Surfaces(base, l, s, icm))
		}()
	}
	select {
	case err := <-errc:
		return err
	case <-proc.Exited():
		return fmt.Errorf("the L1 node stopped unexpectedly: %w", proc.Stop())
	}
}

// runL1Demo issues the L1's demo and the ICM demo (a message each way
// between the C-chain and the L1, relayed with avaindex's signature
// aggregation at base), and waits until avaindex has indexed both chains
// up to their last blocks.
func runL1Demo(ctx context.Context, l *testnet.EVML1, base string, progress io.Writer) (*contracts.L1Scenario, *contracts.ICMRun, error) {
	fmt.Fprintln(progress, "devnet: issuing the L1 demo (a transfer, a native-minter mint, an ERC-20)...")
	s, err := contracts.RunL1(ctx, l)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintln(progress, "devnet: relaying ICM messages between the C-chain and the L1 (TeleporterMessenger v1.0.0)...")
	// Warp verifies against a P-chain epoch begun after the conversion.
	if _, err := l.Net.AdvanceEpoch(ctx, l.L1.ConvertedHeight); err != nil {
		return nil, nil, err
	}
	icm, err := contracts.RunICM(ctx, l, func(ctx context.Context, logData []byte, signing *ids.ID) ([]byte, error) {
		return aggregateWarp(ctx, base, logData, signing)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("the ICM demo: %w", err)
	}
	want := map[string]uint64{fmt.Sprintf("evm:%d", l.EVMChainID): s.Last}
	for _, d := range icm.Msgs {
		for _, r := range []*types.Receipt{d.Sent, d.Delivered} {
			if r == nil {
				continue
			}
			e := d.From
			if r == d.Delivered {
				e = d.To
			}
			key := fmt.Sprintf("evm:%d", e.EVMChainID)
			want[key] = max(want[key], r.BlockNumber.Uint64())
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		var r struct {
			Indexer struct {
				Heights map[string]uint64 `json:"heights"`
			} `json:"indexer"`
		}
		if err := getJSON(ctx, base+"/readyz", &r); err == nil {
			done := true
			for k, h := range want {
				done = done && r.Indexer.Heights[k] >= h
			}
			if done {
				return s, icm, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("avaindex did not index the L1 demo: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// aggregateWarp has avaindex at base aggregate a warp message's
// signatures, given as its SendWarpMessage log's data.
func aggregateWarp(ctx context.Context, base string, logData []byte, signing *ids.ID) ([]byte, error) {
	req := map[string]any{"message": hex.EncodeToString(logData)}
	if signing != nil {
		req["signingSubnetId"] = signing.String()
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/signatureAggregator/"+demoNetwork+"/aggregateSignatures", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusCreated {
		return nil, fmt.Errorf("the signature aggregator answered %d: %s", resp.StatusCode, body)
	}
	var out struct {
		SignedMessage string `json:"signedMessage"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, err
	}
	return hex.DecodeString(out.SignedMessage)
}

// l1Surfaces are the commands that show the L1 demo.
func l1Surfaces(base string, l *testnet.EVML1, s *contracts.L1Scenario, icm *contracts.ICMRun) []surface {
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
		get("an ICM message C-chain -> L1, relayed, its receipt back", base+"/v1/icm/messages/"+hex.EncodeToString(icm.Msgs[0].ID[:])),
		get("an ICM message L1 -> C-chain, carrying receipts", base+"/v1/icm/messages/"+hex.EncodeToString(icm.Msgs[2].ID[:])),
		get("the ICM messages the L1 sent or received", base+"/v1/icm/messages?blockchainId="+l.BlockchainID.String()),
		get("the ICM messages sent, over rolling windows", base+"/v2/icm/summary"),
	}
}
