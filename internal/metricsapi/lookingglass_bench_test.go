package metricsapi

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derive/erc20"
	"github.com/avaindex/avaindex/internal/derive/nfts"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/benchstore"
)

// The Looking Glass benchmark store: chain 43114 with lgBenchBlocks
// blocks, an ERC-721 collection of lgBenchHolders holders (every tenth
// holds three tokens), its mints as transfers, and n addresses with a
// native balance each.
const (
	lgBenchVer     = 1
	lgBenchHolders = 100_000
	lgBenchBlocks  = 1000
)

var lgBenchNFT = common.HexToAddress("0x00000000000000000000000000000000000bec00")

// lgBenchAddr is the i-th address: spread over the key space.
func lgBenchAddr(i int) common.Address {
	var a common.Address
	binary.BigEndian.PutUint32(a[:4], uint32(i)*2654435761)
	binary.BigEndian.PutUint64(a[12:], uint64(i))
	return a
}

func buildLGBench(n int) func(ctx context.Context, db *database.DB) error {
	return func(ctx context.Context, db *database.DB) error {
		end, err := db.BeginBulkLoad(ctx, "evm_blocks", "evm_balances", "nft_tokens", "evm_transfers")
		if err != nil {
			return err
		}
		insert := func(table string, cols []string, count int, row func(i int) []any) error {
			const chunk = 5000
			rows := make([][]any, 0, chunk)
			for i := 0; i < count; i++ {
				rows = append(rows, row(i))
				if len(rows) == chunk || i == count-1 {
					if _, err := db.BulkInsert(ctx, table, cols, rows, ""); err != nil {
						return fmt.Errorf("%s: %w", table, err)
					}
					rows = rows[:0]
				}
			}
			return nil
		}
		if _, err := db.Exec(ctx, "INSERT INTO evm_chains (chain_id, balances) VALUES (?, 1)", lgChain); err != nil {
			return err
		}
		if err := insert("evm_blocks", []string{"chain_id", "number", "hash", "parent_hash", "timestamp", "miner", "gas_limit", "gas_used", "size", "tx_count", "traced"},
			lgBenchBlocks, func(i int) []any {
				return []any{lgChain, i, common.BigToHash(big.NewInt(int64(i) + 1)).Bytes(), common.BigToHash(big.NewInt(int64(i))).Bytes(),
					1_700_000_000 + 10*i, make([]byte, 20), 8_000_000, 0, 0, 0, 1}
			}); err != nil {
			return err
		}
		if err := insert("evm_balances", []string{"chain_id", "address", "block_number", "balance"}, n, func(i int) []any {
			a := lgBenchAddr(i)
			return []any{lgChain, a[:], i % lgBenchBlocks, big.NewInt(int64(1 + i%10000)).Bytes()}
		}); err != nil {
			return err
		}
		// Tokens: holder h holds token h, and every tenth also tokens
		// holders+2h and holders+2h+1.
		tokens := lgBenchHolders + lgBenchHolders/10*2
		owner := func(id int) (common.Address, int) {
			if id < lgBenchHolders {
				return lgBenchAddr(id * 10), id % lgBenchBlocks
			}
			h := (id - lgBenchHolders) / 2 * 10
			return lgBenchAddr(h * 10), (h + 1) % lgBenchBlocks
		}
		if err := insert("nft_tokens", []string{"chain_id", "address", "token_id", "erc_type", "owner", "mint_block", "pending", "gen", "attempts",
			"next_attempt", "status", "reread"}, tokens, func(id int) []any {
			o, blk := owner(id)
			return []any{lgChain, lgBenchNFT[:], common.BigToHash(big.NewInt(int64(id))).Bytes(), 721, o[:], blk, 0, 0, 0, 0, "UNINDEXED", 0}
		}); err != nil {
			return err
		}
		if err := insert("evm_transfers", []string{"chain_id", "block_number", "log_index", "batch_index", "tx_hash", "timestamp", "token",
			"erc_type", "operator", "from_address", "to_address", "value", "token_id"}, tokens, func(id int) []any {
			o, blk := owner(id)
			return []any{lgChain, blk, id, 0, common.BigToHash(big.NewInt(int64(id))).Bytes(), 1_700_000_000 + 10*blk, lgBenchNFT[:], 721,
				make([]byte, 20), make([]byte, 20), o[:], []byte{1}, common.BigToHash(big.NewInt(int64(id))).Bytes()}
		}); err != nil {
			return err
		}
		if _, err := db.Exec(ctx, `INSERT INTO evm_contracts (chain_id, address, block_number, idx, timestamp, create_type, erc_type, name, symbol)
			VALUES (?, ?, 0, 0, 0, 'CREATE', 721, 'Bench Apes', 'BAPE')`, lgChain, lgBenchNFT[:]); err != nil {
			return err
		}
		return end(ctx)
	}
}

// lgHerd is how many clients ask at once in BenchmarkLookingGlass's
// herd cases.
const lgHerd = 16

// BenchmarkLookingGlass answers, through the handler (JSON included), a
// 100-item page of the holders of an NFT collection of 100,000 holders
// (first and deep), and composite queries over a chain of a million
// addresses with native balances (AVAINDEX_BENCH_LG_ADDRESSES for fewer):
// the collection's holders over a range AND a latest native balance, the
// collection's holders alone, and the latest native balance alone; p50
// and p99 in milliseconds (in the herd cases, of the time until all of
// lgHerd clients asking the same composite at once are answered).
func BenchmarkLookingGlass(b *testing.B) {
	n := benchstore.Size(b, "AVAINDEX_BENCH_LG_ADDRESSES", 1_000_000)
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			built := time.Now()
			dsn := benchstore.Open(b, backend, "lookingglass", lgBenchVer, n, buildLGBench(n))
			b.Logf("store ready in %s", time.Since(built).Round(time.Millisecond))
			ctx := context.Background()
			st, err := store.Open(ctx, dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			// The collection's holders (nft_holders): the rows above
			// bypass the NFT applier, so they are filled as a store
			// indexed before migration 0044 has them, by its backfill.
			if err := runBackfill(ctx, st, "nft_holders"); err != nil {
				b.Fatal(err)
			}
			// The latest balances (evm_latest_balances), likewise: as a
			// store indexed before migration 0047 has them.
			if err := runBackfill(ctx, st, "evm_latest_balances"); err != nil {
				b.Fatal(err)
			}
			// The NFT holding spans (nft_spans), likewise: as a store
			// indexed before migration 0048 has them.
			if err := runBackfill(ctx, st, "nft_spans"); err != nil {
				b.Fatal(err)
			}
			// What autovacuum does after the backfills on a server that
			// runs it (the test server does not): the visibility map and
			// statistics that let PostgreSQL read the indexes alone.
			if backend == "postgres" {
				db, err := database.Open(ctx, dsn)
				if err != nil {
					b.Fatal(err)
				}
				for _, t := range []string{"nft_holders", "nft_holder_totals", "evm_latest_balances", "nft_spans"} {
					if _, err := db.Exec(ctx, "VACUUM ANALYZE "+t); err != nil {
						b.Fatal(err)
					}
				}
				db.Close()
			}
			// newMux is the API's handler, with an empty cache.
			newMux := func() (*http.ServeMux, *API) {
				a, err := New(Deps{Store: st, Network: testNetwork, TokenKey: make([]byte, 32),
					EVMChains: func() []EVMChain { return []EVMChain{{EVMChainID: lgChain, Name: "c_chain"}} }})
				if err != nil {
					b.Fatal(err)
				}
				mux := http.NewServeMux()
				for _, r := range a.Routes() {
					mux.Handle(r.Pattern, r.Handler)
				}
				return mux, a
			}
			mux, a := newMux()
			holders := "/v2/chains/43114/contracts/" + lgBenchNFT.Hex() + "/nfts:listHolders?pageSize=100"
			// A deep page: the token of the 501st page, after the
			// 50,000th holder.
			deep := holders
			{
				hs, err := st.NFTHolders(ctx, lgChain, lgBenchNFT, internal.ERC721, nil, 50_000)
				if err != nil || len(hs) != 50_000 {
					b.Fatalf("the first 50,000 holders: %d, %v", len(hs), err)
				}
				tok := a.tokens.encodeKey(param.Scope("v2/nfts:listHolders/after", "43114", lgBenchNFT.Hex()), hs[len(hs)-1].Address[:], a.now())
				deep += "&pageToken=" + tok
			}
			nft := fmt.Sprintf(`{"id":"nft","type":"AnyTimeNftHolders","params":{"evmChainId":"43114","contractAddress":%q,"startTs":1700005000,"endTs":1700008000}}`, lgBenchNFT.Hex())
			native := `{"id":"rich","type":"LatestBalance","params":{"evmChainId":"43114","tokenType":"NATIVE","minBalance":"9000"}}`
			cases := []struct{ name, method, path, body string }{
				{"holders-page", "GET", holders, ""},
				{"holders-deep-page", "GET", deep, ""},
				{"composite-nft", "POST", "/v2/lookingGlass/compositeQuery", `{"operator":"OR","pageSize":100,"queries":[` + nft + `]}`},
				{"composite-nft-and-native", "POST", "/v2/lookingGlass/compositeQuery", `{"operator":"AND","pageSize":100,"queries":[` + nft + `,` + native + `]}`},
				{"composite-native", "POST", "/v2/lookingGlass/compositeQuery", `{"operator":"OR","pageSize":100,"queries":[` + native + `]}`},
			}
			// One untimed request of each case first, through an API of
			// its own: it warms the pool's connections, as a running
			// server's are, and leaves no answer cached for the cases
			// below. (A new PostgreSQL backend faults the shared buffers
			// it first touches into its memory, and a new SQLite
			// connection starts with an empty page cache: the first
			// request of a new pool measures that, not the query; see
			// BenchmarkBalances in internal/api.)
			for _, c := range cases {
				m, _ := newMux()
				rec := httptest.NewRecorder()
				m.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, strings.NewReader(c.body)))
				if rec.Code != 200 {
					b.Fatalf("%s: warming up: %d %.300s", c.path, rec.Code, rec.Body)
				}
			}
			// cold: the first request after a block (an empty cache);
			// warm: the next ones until the chain's next block.
			for _, c := range cases {
				for _, cold := range []bool{true, false} {
					name := c.name + "/warm"
					if cold {
						name = c.name + "/cold"
					}
					b.Run(name, func(b *testing.B) {
						var lat []time.Duration
						for b.Loop() {
							if cold {
								b.StopTimer()
								mux, _ = newMux()
								b.StartTimer()
							}
							rec := httptest.NewRecorder()
							req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
							t0 := time.Now()
							mux.ServeHTTP(rec, req)
							lat = append(lat, time.Since(t0))
							if rec.Code != 200 {
								b.Fatalf("%s: %d %.300s", c.path, rec.Code, rec.Body)
							}
						}
						reportLatencies(b, lat)
					})
				}
			}
			// herd: lgHerd clients ask the same composite at once after a
			// block (an empty cache), as a dashboard's viewers do; the
			// time until the last is answered.
			for _, c := range cases {
				if c.method != "POST" {
					continue // the holders' pages: no scan to share
				}
				b.Run(c.name+"/herd", func(b *testing.B) {
					var lat []time.Duration
					for b.Loop() {
						b.StopTimer()
						mux, _ = newMux()
						b.StartTimer()
						t0 := time.Now()
						var wg sync.WaitGroup
						codes := make([]int, lgHerd)
						for i := range lgHerd {
							wg.Add(1)
							go func() {
								defer wg.Done()
								rec := httptest.NewRecorder()
								mux.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, strings.NewReader(c.body)))
								codes[i] = rec.Code
							}()
						}
						wg.Wait()
						lat = append(lat, time.Since(t0))
						for _, code := range codes {
							if code != 200 {
								b.Fatalf("%s: %d", c.path, code)
							}
						}
					}
					reportLatencies(b, lat)
				})
			}
		})
	}
}

// reportLatencies reports the p99 and p50 of lat in milliseconds.
func reportLatencies(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}

// runBackfill runs the backfill name through the store's backfill
// machinery when it is pending (what derive.RunBackfills does for it).
func runBackfill(ctx context.Context, st store.Store, name string) error {
	pending, err := st.PendingBackfills(ctx)
	if err != nil {
		return err
	}
	for _, bf := range pending {
		if bf.Name != name {
			continue
		}
		parts, err := st.BackfillParts(ctx, name, store.BackfillDerivations{
			ERC20:    erc20.ApplyMoves[*store.EVMTx],
			NFTSpans: nfts.ApplySpanMoves[*store.EVMTx],
		})
		if err != nil {
			return err
		}
		for ; bf.Part < len(parts); bf.Part, bf.Next = bf.Part+1, 0 {
			p := parts[bf.Part]
			for bf.Next = max(bf.Next, p.Lo); bf.Next < p.Hi; {
				if bf, err = st.FillBackfill(ctx, bf, p, bf.Next+4096); err != nil {
					return err
				}
			}
		}
		return st.FinishBackfill(ctx, name)
	}
	return nil
}
