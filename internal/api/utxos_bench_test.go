package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/benchstore"
	"github.com/avaindex/avaindex/internal/testing/utxobench"
)

// BenchmarkUTXOLists measures the UTXO lists (GET and POST .../utxos) and
// the historical rewards over a store of utxobench.DefaultUTXOs P-chain
// UTXOs (AVAINDEX_BENCH_UTXOS for fewer), built once and cached: the time
// of one request through the handler, JSON included, at the first page
// and at a page 50,000 items deep (scaled with a smaller store), reported
// as p50 and p99 in milliseconds, with the CPU time per request
// (utxobench.Timer).
func BenchmarkUTXOLists(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			d := utxobench.Open(b, backend)
			ctx := context.Background()
			st, err := store.Open(ctx, d.DSN)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			a, err := New(Deps{Store: st, Network: d.Network, Aliases: []string{Testnet}, TokenKey: bytes.Repeat([]byte{1}, 32)})
			if err != nil {
				b.Fatal(err)
			}
			mux := http.NewServeMux()
			for _, r := range a.Routes() {
				mux.Handle(r.Pattern, r.Handler)
			}
			bech := func(addrs ...ids.ShortID) string {
				var out []string
				for _, ad := range addrs {
					s, err := address.FormatBech32(d.Network.HRP, ad[:])
					if err != nil {
						b.Fatal(err)
					}
					out = append(out, s)
				}
				return strings.Join(out, ",")
			}
			// The heavy address with the medium ones and others drawn at
			// random, n in all.
			some := func(n int) string {
				addrs := append([]ids.ShortID{d.Heavy}, d.Medium...)
				for i := 0; len(addrs) < n; i++ {
					addrs = append(addrs, d.Normal(1000+i))
				}
				return bech(addrs...)
			}
			depth := 50_000 * d.UTXOs / utxobench.DefaultUTXOs
			const list = "/v1/networks/testnet/blockchains/p-chain/utxos"
			for _, sc := range []struct {
				name, path, query, body string
				items                   int // of a page
			}{
				{"A17/timestamp/1-address", list, "addresses=" + bech(d.Heavy), "", 100},
				{"A17/amount/1-address", list, "sortBy=amount&addresses=" + bech(d.Heavy), "", 100},
				{"A17/timestamp-asc/1-address", list, "sortOrder=asc&addresses=" + bech(d.Heavy), "", 100},
				{"A17/timestamp/64-addresses", list, "addresses=" + some(64), "", 100},
				{"A17/amount/64-addresses", list, "sortBy=amount&addresses=" + some(64), "", 100},
				{"A17/timestamp-spent/64-addresses", list, "includeSpent=true&addresses=" + some(64), "", 100},
				{"A18/timestamp/256-addresses", list, "", some(256), 1024},
				{"A18/amount/256-addresses", list, "sortBy=amount", some(256), 1024},
				{"A19/address", "/v1/networks/testnet/rewards", "addresses=" + bech(d.Heavy), "", 100},
				{"A19/node", "/v1/networks/testnet/rewards", "nodeIds=" + d.HeavyNode.String(), "", 100},
			} {
				for _, deep := range []bool{false, true} {
					name := sc.name + "/first"
					if deep {
						name = sc.name + fmt.Sprintf("/%d-deep", depth)
					}
					b.Run(name, func(b *testing.B) {
						q, err := url.ParseQuery(sc.query)
						if err != nil {
							b.Fatal(err)
						}
						q.Set("pageSize", fmt.Sprint(sc.items))
						// do returns the page's items and its next token,
						// timing the handler with t when not nil (the
						// client's decoding of the page is not the server's).
						do := func(q url.Values, t *utxobench.Timer) (int, string) {
							var req *http.Request
							if sc.body != "" {
								body, _ := json.Marshal(map[string]string{"addresses": sc.body})
								req = httptest.NewRequest("POST", sc.path+"?"+q.Encode(), bytes.NewReader(body))
							} else {
								req = httptest.NewRequest("GET", sc.path+"?"+q.Encode(), nil)
							}
							rec := httptest.NewRecorder()
							if t != nil {
								t.Time(func() { mux.ServeHTTP(rec, req) })
							} else {
								mux.ServeHTTP(rec, req)
							}
							if rec.Code != 200 {
								b.Fatalf("%s: %d %s", name, rec.Code, rec.Body)
							}
							var page struct {
								NextPageToken     string            `json:"nextPageToken"`
								Utxos             []json.RawMessage `json:"utxos"`
								HistoricalRewards []json.RawMessage `json:"historicalRewards"`
							}
							if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
								b.Fatal(err)
							}
							return len(page.Utxos) + len(page.HistoricalRewards), page.NextPageToken
						}
						// Page forward to the depth, with real tokens.
						for seen := 0; deep && seen < depth; {
							n, next := do(q, nil)
							if next == "" {
								b.Fatalf("%s: the list ends after %d items", name, seen+n)
							}
							seen += n
							q.Set("pageToken", next)
						}
						t := &utxobench.Timer{}
						for b.Loop() {
							n, _ := do(q, t)
							if n != sc.items {
								b.Fatalf("%s: %d items, want %d", name, n, sc.items)
							}
						}
						t.Report(b)
					})
				}
			}
		})
	}
}

// BenchmarkBalances measures getBalancesByAddresses on the P-chain over
// the store of BenchmarkUTXOLists (utxobench.DefaultUTXOs UTXOs over a
// million addresses; AVAINDEX_BENCH_UTXOS=1000000 for a quicker build):
// the time of one request through the handler, JSON included, as p50 and
// p99 in milliseconds with the CPU time per request. Each request asks
// for 256 addresses:
//   - typical: 256 of the addresses drawn at random (about ten UTXOs
//     each, seven unspent), a new set each request, so that no request
//     finds the previous one's rows cached;
//   - with-heavy: the heavy address (1.2% of all UTXOs) and the nine
//     medium ones (0.1% each) among them, the worst case the data set
//     holds;
//   - at-timestamp: typical, with blockTimestamp (spent UTXOs are read
//     too, to judge them at that time).
//
// Each case first serves untimed requests (300; AVAINDEX_BENCH_WARMUP to
// change it, 0 for none) for addresses from the other end of the list,
// which the timed requests do not ask for: they warm the connections,
// not the rows. A new PostgreSQL backend maps the server's shared
// buffers into its memory one 4 KiB page at a time, as it first touches
// them; on this project's machine such a fault costs about 40 µs, and a
// new pool's first 300 requests measured a p99 of 17-36 ms where warm
// connections measured 7-9 (docs/benchmarks.md, "Warm connections"). A
// running server's pool has paid that long before; a benchmark process
// starts with a new pool.
func BenchmarkBalances(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			d := utxobench.Open(b, backend)
			ctx := context.Background()
			st, err := store.Open(ctx, d.DSN)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			a, err := New(Deps{Store: st, Network: d.Network, Aliases: []string{Testnet}, TokenKey: bytes.Repeat([]byte{1}, 32)})
			if err != nil {
				b.Fatal(err)
			}
			mux := http.NewServeMux()
			for _, r := range a.Routes() {
				mux.Handle(r.Pattern, r.Handler)
			}
			bech := func(addrs []ids.ShortID) string {
				out := make([]string, len(addrs))
				for i, ad := range addrs {
					s, err := address.FormatBech32(d.Network.HRP, ad[:])
					if err != nil {
						b.Fatal(err)
					}
					out[i] = s
				}
				return strings.Join(out, ",")
			}
			const n = 256
			// next is the first normal address not asked for yet: each
			// request asks for new ones.
			next := 0
			typical := func() string {
				addrs := make([]ids.ShortID, n)
				for i := range addrs {
					addrs[i] = d.Normal(next)
					next++
				}
				return bech(addrs)
			}
			withHeavy := func() string {
				addrs := append([]ids.ShortID{d.Heavy}, d.Medium...)
				for len(addrs) < n {
					addrs = append(addrs, d.Normal(next))
					next++
				}
				return bech(addrs)
			}
			warmups := benchstore.Count(b, "AVAINDEX_BENCH_WARMUP", 300, 0)
			// The warm-ups walk down the upper half of the normal
			// addresses while the timed requests walk up from the first:
			// at the default size they never meet (3 cases of 300 timed
			// requests ask for 230,400 of a million); a small store's
			// warm-ups go round their half again.
			warmed := 0
			unmeasured := func() string {
				addrs := make([]ids.ShortID, n)
				for i := range addrs {
					addrs[i] = d.Normal(d.Normals() - 1 - warmed%(d.Normals()/2))
					warmed++
				}
				return bech(addrs)
			}
			// The last UTXOs' time: blockTimestamp judges every lock and
			// spend at it.
			at := fmt.Sprint(1_700_000_000 + d.UTXOs/10)
			for _, sc := range []struct {
				name  string
				addrs func() string
				query string
			}{
				{"256-addresses/typical", typical, ""},
				{"256-addresses/with-heavy", withHeavy, ""},
				{"256-addresses/at-timestamp", typical, "&blockTimestamp=" + at},
			} {
				b.Run(sc.name, func(b *testing.B) {
					// get serves a balance request for addrs, timed by t
					// when it is not nil.
					get := func(addrs string, t *utxobench.Timer) *httptest.ResponseRecorder {
						req := httptest.NewRequest("GET", "/v1/networks/testnet/blockchains/p-chain/balances?addresses="+addrs+sc.query, nil)
						rec := httptest.NewRecorder()
						if t == nil {
							mux.ServeHTTP(rec, req)
						} else {
							t.Time(func() { mux.ServeHTTP(rec, req) })
						}
						if rec.Code != 200 {
							b.Fatalf("%s: %d %s", sc.name, rec.Code, rec.Body)
						}
						return rec
					}
					for range warmups {
						get(unmeasured(), nil)
					}
					t := &utxobench.Timer{}
					for b.Loop() {
						rec := get(sc.addrs(), t)
						var resp struct {
							Balances struct {
								UnlockedUnstaked []struct {
									UTXOCount int `json:"utxoCount"`
								} `json:"unlockedUnstaked"`
							} `json:"balances"`
						}
						if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
							b.Fatal(err)
						}
						if len(resp.Balances.UnlockedUnstaked) != 1 || resp.Balances.UnlockedUnstaked[0].UTXOCount < n {
							b.Fatalf("%s: %s", sc.name, rec.Body)
						}
					}
					t.Report(b)
				})
			}
		})
	}
}
