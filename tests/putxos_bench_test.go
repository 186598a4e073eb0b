package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

const (
	// benchUTXOs is how many P-chain UTXOs the benchmark's address holds.
	benchUTXOs = 100_000
	// benchUTXOsPerTx is the outputs of each BaseTx that makes them: about
	// 60 KB, under the P-chain mempool's 64 KiB bound on a tx.
	benchUTXOsPerTx = 750
	// benchUTXOPage is the page platform.getUTXOs is asked for, its most.
	benchUTXOPage = 1024
	// benchPageClients is the concurrent clients: a page is about 150 KB
	// and the node takes a while to make one, so fewer than runLoad's 64,
	// which time the node out at 10 s on two loaded cores.
	benchPageClients = 8
)

// benchFeeEnv raises the P-chain's dynamic fee capacity and refill rate of
// the benchmark's own node (avalanchego reads its flags from AVAGO_*
// variables too): at the local network's defaults (1M gas, refilled at
// 100k a second, 1,000 gas an output written) 100,000 outputs take about
// 18 minutes of gas; at these, as long as the blocks take. Blocks of the
// same second add their gas to the excess, which would double the price
// every 1.5M gas: the conversion constant keeps it at the minimum, which
// the wallet assumes.
var benchFeeEnv = map[string]string{
	"AVAGO_DYNAMIC_FEES_MAX_GAS_CAPACITY":           "1000000000",
	"AVAGO_DYNAMIC_FEES_MAX_GAS_PER_SECOND":         "1000000000",
	"AVAGO_DYNAMIC_FEES_TARGET_GAS_PER_SECOND":      "500000000",
	"AVAGO_DYNAMIC_FEES_EXCESS_CONVERSION_CONSTANT": "1000000000000",
}

// BenchmarkPUTXOsPage is platform.getUTXOs of one address holding 100,000
// P-chain UTXOs, a page of 1,024, side by side: the node itself, and
// avaindex over SQLite and PostgreSQL. The pages are spread over the whole
// list (each request starts at one of the list's page cursors, read off
// the node first), from benchPageClients concurrent clients on loopback. The node is the
// benchmark's own (testnet.StartOwn) with a raised P-chain gas capacity
// (benchFeeEnv); making the UTXOs takes 134 BaseTxs, a few minutes. Run it
// as
//
//	go test -run '^$' -bench BenchmarkPUTXOsPage -benchtime 2000x -timeout 60m ./tests/
func BenchmarkPUTXOsPage(b *testing.B) {
	for k, v := range benchFeeEnv {
		b.Setenv(k, v)
	}
	o := testnet.StartOwn(b)
	for k := range benchFeeEnv {
		os.Unsetenv(k) // the node has them; nothing else started here should
	}
	n := o.Network
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Minute)
	defer cancel()
	holder := ids.GenerateTestShortID()
	addr := n.FormatAddress("P", holder)
	start := time.Now()
	if err := fillPUTXOs(ctx, n, holder, benchUTXOs); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d UTXOs of %s made in %s", benchUTXOs, addr, time.Since(start).Round(time.Second))
	tip, err := platformvm.NewClient(n.URL).GetHeight(ctx)
	if err != nil {
		b.Fatal(err)
	}
	cursors, nodeUTXOs := utxoPageCursors(b, n.URL, addr)
	if len(cursors) != (benchUTXOs+benchUTXOPage-1)/benchUTXOPage {
		b.Fatalf("%d pages of %d, want %d", len(cursors), benchUTXOPage, (benchUTXOs+benchUTXOPage-1)/benchUTXOPage)
	}
	class := utxoPageClass(addr, cursors)
	b.Run("backend=node", func(b *testing.B) { runPages(b, n.URL, class) })
	unlimited := []string{"--rate-limit-tier", "anonymous:unlimited", "--rate-limit-tier", "node:unlimited"}
	for _, be := range dbtest.Backends() {
		base, _ := runService(b, 2*time.Minute, n.URL, be.DSN(b), unlimited...)
		t0 := time.Now()
		for pc := platformvm.NewClient(base); ; time.Sleep(time.Second) {
			if h, err := pc.GetHeight(ctx); err == nil && h >= tip {
				break
			}
			if ctx.Err() != nil {
				b.Fatalf("%s: avaindex did not index the P-chain to %d", be.Name, tip)
			}
		}
		b.Logf("%s: avaindex indexed the %d P-chain blocks in %s", be.Name, tip+1, time.Since(t0).Round(time.Second))
		// The node's UTXOs, each once, in as many pages. The pages' cut
		// points differ: the node lists the UTXOs one block added in the
		// order of a Go map (BaseTxs of 750 outputs, several a block), so
		// the node's cursors start avaindex's pages a few UTXOs off, in the
		// same block, at the same cost.
		got, utxos := utxoPageCursors(b, base, addr)
		if len(got) != len(cursors) || !slices.Equal(utxos, nodeUTXOs) {
			b.Fatalf("%s: avaindex's %d pages of %d UTXOs differ from the node's %d of %d",
				be.Name, len(got), len(utxos), len(cursors), len(nodeUTXOs))
		}
		b.Run("backend="+be.Name, func(b *testing.B) { runPages(b, base, class) })
	}
}

// fillPUTXOs gives holder count UTXOs of 1 nAVAX each on the P-chain, in
// BaseTxs of benchUTXOsPerTx outputs from the local key.
func fillPUTXOs(ctx context.Context, n *testnet.Network, holder ids.ShortID, count int) error {
	return n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		for made := 0; made < count; {
			k := min(benchUTXOsPerTx, count-made)
			outs := make([]*avax.TransferableOutput, k)
			for i := range outs {
				outs[i] = &avax.TransferableOutput{Asset: avax.Asset{ID: n.AVAXAssetID}, Out: &secp256k1fx.TransferOutput{
					Amt: 1, OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{holder}}}}
			}
			if _, err := w.P().IssueBaseTx(outs); err != nil {
				return fmt.Errorf("BaseTx of %d outputs after %d: %w", k, made, err)
			}
			made += k
		}
		return nil
	})
}

// utxoPageCursors walks addr's UTXO list at base in pages of
// benchUTXOPage and returns each page's startIndex (the first's empty),
// as JSON, and the UTXOs listed (as the node encodes them), sorted.
func utxoPageCursors(b *testing.B, base, addr string) (cursors, utxos []string) {
	b.Helper()
	cursors = []string{""}
	defer func() { slices.Sort(utxos) }()
	for {
		params := map[string]any{"addresses": []string{addr}, "limit": benchUTXOPage}
		if c := cursors[len(cursors)-1]; c != "" {
			params["startIndex"] = json.RawMessage(c)
		}
		res, rpcErr := rpc(b, base+"/ext/bc/P", "platform.getUTXOs", params)
		var page struct {
			NumFetched string          `json:"numFetched"`
			UTXOs      []string        `json:"utxos"`
			EndIndex   json.RawMessage `json:"endIndex"`
		}
		if rpcErr != nil || json.Unmarshal(res, &page) != nil {
			b.Fatalf("%s getUTXOs: %s %s", base, res, rpcErr)
		}
		utxos = append(utxos, page.UTXOs...)
		if page.NumFetched != fmt.Sprint(benchUTXOPage) {
			return cursors, utxos
		}
		cursors = append(cursors, string(page.EndIndex))
	}
}

// utxoPageClass spreads platform.getUTXOs of addr over its pages.
func utxoPageClass(addr string, cursors []string) routeClass {
	return routeClass{"getUTXOs", func(base string, i uint64) (*http.Request, error) {
		body := `{"jsonrpc":"2.0","id":1,"method":"platform.getUTXOs","params":{"addresses":["` + addr + `"],"limit":` +
			fmt.Sprint(benchUTXOPage)
		if c := cursors[i%uint64(len(cursors))]; c != "" {
			body += `,"startIndex":` + c
		}
		r, err := http.NewRequest(http.MethodPost, base+"/ext/bc/P", strings.NewReader(body+`}}`))
		if r != nil {
			r.Header.Set("Content-Type", "application/json")
		}
		return r, err
	}}
}

// runPages sends b.N requests of class to base from benchPageClients
// concurrent clients and reports requests/s and the p50 and p99 latency;
// any answer but a 200 without a JSON-RPC error fails.
func runPages(b *testing.B, base string, class routeClass) {
	client := &http.Client{Timeout: 2 * time.Minute}
	defer client.CloseIdleConnections()
	do := func(i uint64) error {
		req, err := class.req(base, i)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var env struct {
			Error json.RawMessage `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || resp.StatusCode != http.StatusOK || env.Error != nil {
			return fmt.Errorf("HTTP %d, %s, %v", resp.StatusCode, env.Error, err)
		}
		return nil
	}
	var (
		next    atomic.Uint64
		mu      sync.Mutex
		lats    []time.Duration
		failure atomic.Value
	)
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((benchPageClients + procs - 1) / procs)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			t0 := time.Now()
			if err := do(next.Add(1)); err != nil {
				failure.CompareAndSwap(nil, err.Error())
			}
			mine = append(mine, time.Since(t0))
		}
		mu.Lock()
		lats = append(lats, mine...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if f := failure.Load(); f != nil {
		b.Fatalf("%s: %v", class.name, f)
	}
	slices.Sort(lats)
	q := func(p float64) float64 { return float64(lats[int(p*float64(len(lats)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(float64(len(lats))/elapsed.Seconds(), "req/s")
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}
