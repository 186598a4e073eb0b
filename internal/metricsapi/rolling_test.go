package metricsapi

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal/chainmetrics"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// windowBlocks are 400 days of EVM-like blocks ending before now, sparse
// long ago and dense in the last two days, with gas, fees, a few hundred
// addresses, senders and deployers.
func windowBlocks(now int64) []chainmetrics.Block {
	var out []chainmetrics.Block
	addr := func(i int) []byte { return fmt.Appendf(nil, "addr-%04d", i) }
	t := now - 400*86400 + 17
	for h := uint64(1); t < now-30; h++ {
		b := chainmetrics.Block{Height: h, Time: t, Txs: int(h % 5), GasUsed: 21000 * (h % 5),
			GasPriceSum: float64(h%5) * float64(25e9+h%7), GasPriceMax: float64(25e9 + h%7), Fees: float64(21000*(h%5)) * 25e9,
			Addresses: [][]byte{addr(int(h % 311))}, Senders: [][]byte{addr(int(h % 37))}}
		if h%50 == 0 {
			b.Contracts = 1
			b.Deployers = [][]byte{addr(int(h % 13))}
		}
		out = append(out, b)
		if now-t > 2*86400 {
			t += 7*3600 + int64(h%900)
		} else {
			t += 97 + int64(h%40)
		}
	}
	return out
}

// bruteWindow is metric m over the blocks in the window from from to now,
// counted block by block.
func bruteWindow(m chainmetrics.Metric, blocks []chainmetrics.Block, from, now int64) float64 {
	var (
		txs, gas, contracts  int64
		priceSum, fees       float64
		maxTPS, maxGPS, maxP float64
		addrs, senders, deps = map[string]bool{}, map[string]bool{}, map[string]bool{}
	)
	for i, b := range blocks {
		if b.Time < from || b.Time > now {
			continue
		}
		txs += int64(b.Txs)
		gas += int64(b.GasUsed)
		contracts += int64(b.Contracts)
		priceSum += b.GasPriceSum
		fees += b.Fees
		maxP = max(maxP, b.GasPriceMax)
		secs := int64(1)
		if i > 0 {
			secs = max(1, b.Time-blocks[i-1].Time)
		}
		maxTPS = max(maxTPS, float64(b.Txs)/float64(secs))
		maxGPS = max(maxGPS, float64(b.GasUsed)/float64(secs))
		for _, a := range b.Addresses {
			addrs[string(a)] = true
		}
		for _, a := range b.Senders {
			addrs[string(a)], senders[string(a)] = true, true
		}
		for _, a := range b.Deployers {
			addrs[string(a)], deps[string(a)] = true, true
		}
	}
	secs := float64(max(1, now-from))
	switch m {
	case chainmetrics.GasUsed:
		return float64(gas)
	case chainmetrics.TxCount:
		return float64(txs)
	case chainmetrics.AvgGps:
		return float64(gas) / secs
	case chainmetrics.MaxGps:
		return maxGPS
	case chainmetrics.AvgTps:
		return float64(txs) / secs
	case chainmetrics.MaxTps:
		return maxTPS
	case chainmetrics.AvgGasPrice:
		if txs == 0 {
			return 0
		}
		return priceSum / float64(txs)
	case chainmetrics.MaxGasPrice:
		return maxP
	case chainmetrics.FeesPaid:
		return fees
	case chainmetrics.Contracts:
		return float64(contracts)
	case chainmetrics.Deployers:
		return float64(len(deps))
	case chainmetrics.ActiveAddresses:
		return float64(len(addrs))
	case chainmetrics.ActiveSenders:
		return float64(len(senders))
	}
	panic(m)
}

// TestRollingWindow: every metric over every window equals the blocks'
// count from the window's first whole hour (at or after now minus its
// length) to now, and all time from the first block; the active addresses
// and senders have the last hour, day and week only.
func TestRollingWindow(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, err := database.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Migrate(ctx, store.Migrations()); err != nil {
			t.Fatal(err)
		}
		st := store.New(db)
		t.Cleanup(func() { st.Close() })
		now := time.Date(2025, 6, 18, 13, 41, 7, 0, time.UTC).Unix()
		blocks := windowBlocks(now)
		for i := 0; i < len(blocks); i += 500 {
			batch := blocks[i:min(len(blocks), i+500)]
			if err := db.Transact(ctx, func(tx *database.DB) error { return store.RollupMetrics(ctx, tx, store.PMetricKey, batch) }); err != nil {
				t.Fatal(err)
			}
		}
		a, err := New(Deps{Store: st, Network: testNetwork, TokenKey: make([]byte, 32), Now: func() time.Time { return time.Unix(now, 0) }})
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		for _, r := range a.Routes() {
			mux.Handle(r.Pattern, r.Handler)
		}
		doc := openapitest.Metrics(t)
		spans := map[string]int64{"lastHour": 3600, "lastDay": 86400, "lastWeek": 7 * 86400, "lastMonth": 30 * 86400,
			"last90Days": 90 * 86400, "lastYear": 365 * 86400}
		for _, chain := range []string{constants.PlatformChainID.String(), "total"} {
			for _, m := range chainmetrics.WindowMetrics {
				path := "/v2/chains/" + chain + "/rollingWindowMetrics/" + string(m)
				rec := httptest.NewRecorder()
				mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
				if rec.Code != 200 {
					t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
				}
				doc.ValidateResponse(t, "GET", path, 200, rec.Body.Bytes())
				var res RollingWindowResponse
				if err := jsonDecode(rec.Body.Bytes(), &res); err != nil {
					t.Fatal(err)
				}
				want := map[string]float64{}
				for name, span := range spans {
					if (m == chainmetrics.ActiveAddresses || m == chainmetrics.ActiveSenders) && span > 7*86400 {
						continue
					}
					// The first hour starting at or after now - span.
					from := time.Unix(now-span, 0).UTC().Truncate(time.Hour).Unix()
					if from < now-span {
						from += 3600
					}
					want[name] = bruteWindow(m, blocks, from, now)
				}
				if m != chainmetrics.ActiveAddresses && m != chainmetrics.ActiveSenders {
					want["allTime"] = bruteWindow(m, blocks, blocks[0].Time, now)
				}
				if len(res.Result) != len(want) {
					t.Errorf("%s: windows %v, want %v", path, res.Result, want)
				}
				for name, w := range want {
					got, ok := res.Result[name]
					if !ok || math.Abs(got-w) > 1e-9*math.Max(1, math.Abs(w)) {
						t.Errorf("%s: %s = %v (%t), want %v", path, name, got, ok, w)
					}
				}
				if want["lastDay"] == 0 || want["lastYear"] == want["lastDay"] && m != chainmetrics.MaxGasPrice && m != chainmetrics.MaxTps && m != chainmetrics.MaxGps {
					if m != chainmetrics.ActiveAddresses && m != chainmetrics.ActiveSenders && m != chainmetrics.Deployers && m != chainmetrics.Contracts {
						t.Errorf("%s: the fixture does not tell the windows apart: %v", path, want)
					}
				}
			}
		}

		// Bad input names what is wrong.
		for path, wantMsg := range map[string]string{
			"/v2/chains/total/rollingWindowMetrics/cumulativeTxCount": "metric must be one of gasUsed, txCount",
			"/v2/chains/999/rollingWindowMetrics/txCount":             "is not a chain this service indexes",
			"/v2/chains/total/rollingWindowMetrics/txCount?x=1":       "x",
		} {
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
			if rec.Code/100 != 4 || !strings.Contains(rec.Body.String(), wantMsg) {
				t.Errorf("%s: %d %s, want a 4xx naming %q", path, rec.Code, rec.Body, wantMsg)
			}
			doc.ValidateResponse(t, "GET", path, rec.Code, rec.Body.Bytes())
		}
	})
}

// TestHealthCheck: ok with the database up while the store answers, 503
// with it down when it does not.
func TestHealthCheck(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		st, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		a, err := New(Deps{Store: st, Network: testNetwork, TokenKey: make([]byte, 32)})
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		for _, r := range a.Routes() {
			mux.Handle(r.Pattern, r.Handler)
		}
		doc := openapitest.Metrics(t)
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", "/v2/health-check", nil))
		doc.ValidateResponse(t, "GET", "/v2/health-check", rec.Code, rec.Body.Bytes())
		if want := `{"status":"ok","info":{"database":{"status":"up"}},"error":{},"details":{"database":{"status":"up"}}}`; rec.Code != 200 || rec.Body.String() != want {
			t.Errorf("health check: %d %s, want 200 %s", rec.Code, rec.Body, want)
		}
		st.Close()
		rec = httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", "/v2/health-check", nil))
		if want := `{"status":"error","info":{},"error":{"database":{"status":"down"}},"details":{"database":{"status":"down"}}}`; rec.Code != 503 || rec.Body.String() != want {
			t.Errorf("health check, store closed: %d %s, want 503 %s", rec.Code, rec.Body, want)
		}
	})
}
