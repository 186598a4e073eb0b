package webhooks_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/evmstate"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/webhooks"
)

// BenchmarkDelivery delivers the outbox of 16 webhooks, 4,096 events in
// all, to a receiver on loopback that verifies each signature, with the
// default concurrency (8 webhooks at once), and reports events/s. Per
// store.
func BenchmarkDelivery(b *testing.B) {
	for _, be := range dbtest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			const hooks, blocks, perBlock = 16, 64, 64
			ctx := context.Background()
			st, err := store.Open(ctx, be.DSN(b))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			secret := "5ec4e7bench"
			if err := st.SetWebhookSecret(ctx, "k", secret); err != nil {
				b.Fatal(err)
			}
			var got, bad atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if !webhooks.Verify(secret, body, r.Header.Get(webhooks.SignatureHeader)) {
					bad.Add(1)
				}
				got.Add(1)
			}))
			defer srv.Close()
			for i := range hooks {
				w := store.Webhook{ID: fmt.Sprint("hook-", i), Owner: "k", EventType: internal.EventAddressActivity, ChainID: chainID,
					URL: srv.URL + "/" + fmt.Sprint(i), Status: store.WebhookActive, Created: time.Now()}
				a := strings.ToLower(addr(fmt.Sprint("watched", i)).Hex())
				if err := st.CreateWebhook(ctx, w, []string{a}, store.WebhookLimits{Webhooks: 100, Addresses: 10}); err != nil {
					b.Fatal(err)
				}
			}
			cfg := webhooks.Config{AllowNetworks: loopback(), PollInterval: time.Millisecond}
			next := uint64(0)
			var total time.Duration
			events := 0
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				bs := chainBlocks(next, next+blocks, perBlock, func(h uint64, i int) common.Address {
					return addr(fmt.Sprint("watched", i%hooks))
				}, func(h uint64, i int) common.Address { return addr(fmt.Sprint("other", i)) })
				if err := st.ApplyEVMBlocks(ctx, chainID, bs, evmstate.Apply[*store.EVMTx]); err != nil {
					b.Fatal(err)
				}
				next += blocks
				want := got.Load() + blocks*perBlock
				b.StartTimer()
				start := time.Now()
				wctx, cancel := context.WithCancel(ctx)
				w := webhooks.NewWorker(st, cfg, quiet())
				done := make(chan struct{})
				go func() { defer close(done); _ = w.Run(wctx) }()
				for got.Load() < want {
					time.Sleep(time.Millisecond)
				}
				total += time.Since(start)
				events += blocks * perBlock
				cancel()
				<-done
			}
			b.StopTimer()
			if bad.Load() > 0 {
				b.Fatalf("%d signatures did not verify", bad.Load())
			}
			b.ReportMetric(float64(events)/total.Seconds(), "events/s")
		})
	}
}
