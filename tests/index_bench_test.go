package tests

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/indexer"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// benchIndex is the index the benchmark reads; it is grown with X-chain
// BaseTxs, one block each.
const benchIndex = "X/block"

// growXChain issues X-chain BaseTxs until the node's X/block index holds at
// least want containers. One wallet issues them all (each waits for its
// block to be accepted), which is faster than a fresh wallet per tx
// (n.XBaseTx and n.PBaseTx: ~22ms per block here). The X-chain, unlike
// the P-chain, has no gas capacity that back-to-back txs exhaust.
func growXChain(tb testing.TB, n *testnet.Network, want uint64) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c := indexer.NewClient(n.URL + "/ext/index/" + benchIndex)
	have := uint64(0)
	_, last, err := c.GetLastAccepted(ctx)
	switch {
	case err == nil:
		have = last + 1
	case !strings.Contains(err.Error(), "no containers have been accepted"):
		tb.Fatal(err)
	}
	if have >= want {
		return
	}
	missing := want - have
	start := time.Now()
	out := []*avax.TransferableOutput{{
		Asset: avax.Asset{ID: n.AVAXAssetID},
		Out: &secp256k1fx.TransferOutput{
			Amt:          1000,
			OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{n.Addr}},
		},
	}}
	err = n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		for range missing {
			if _, err := w.X().IssueBaseTx(out); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("grew %s by %d containers in %s (%s each)", benchIndex, missing, time.Since(start).Round(time.Millisecond),
		(time.Since(start) / time.Duration(missing)).Round(time.Microsecond))
}

// BenchmarkGetContainerRange measures index.getContainerRange of 1,024
// containers of the X/block index, on the node and on avaindex (SQLite and
// PostgreSQL) holding the same containers, in one run.
func BenchmarkGetContainerRange(b *testing.B) {
	n := testnet.Get(b)
	growXChain(b, n, 1100)
	const body = `{"jsonrpc":"2.0","id":1,"method":"index.getContainerRange","params":{"startIndex":0,"numToFetch":1024,"encoding":"hex"}}`
	fetch := func(b *testing.B, url string) []byte {
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("HTTP %d, %v", resp.StatusCode, err)
		}
		return raw
	}
	nodeEP := n.URL + "/ext/index/" + benchIndex
	want := fetch(b, nodeEP)
	if !bytes.Contains(want, []byte(`"index":"1023"`)) {
		b.Fatalf("the node's reply lacks container 1023: %.300s", want)
	}
	run := func(b *testing.B, url string) {
		if got := fetch(b, url); !bytes.Equal(got, want) {
			b.Fatalf("reply differs from the node's (%d vs %d bytes)", len(got), len(want))
		}
		b.SetBytes(int64(len(want)))
		b.ResetTimer()
		for b.Loop() {
			fetch(b, url)
		}
		b.ReportMetric(float64(1024*b.N)/b.Elapsed().Seconds(), "containers/s")
	}
	b.Run("node", func(b *testing.B) { run(b, nodeEP) })
	for _, be := range dbtest.Backends() {
		b.Run(fmt.Sprintf("avaindex-%s", be.Name), func(b *testing.B) {
			base, _ := runService(b, 2*time.Minute, n.URL, be.DSN(b))
			c := indexer.NewClient(base + "/ext/index/" + benchIndex)
			deadline := time.Now().Add(2 * time.Minute)
			for {
				if _, last, err := c.GetLastAccepted(context.Background()); err == nil && last >= 1023 {
					break
				}
				if time.Now().After(deadline) {
					b.Fatal("avaindex did not mirror 1,024 containers within 2 minutes")
				}
				time.Sleep(20 * time.Millisecond)
			}
			run(b, base+"/ext/index/"+benchIndex)
		})
	}
}
