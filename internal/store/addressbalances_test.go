package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/xchain"
)

// TestAddressBalances checks the per-address sums (address_balances) of
// the P-chain scenario, the X-chain's life (exports to the P-chain
// included) and DAG: they equal the sums recomputed here from the list
// rows they count; SumUTXOs gives every address set the UTXOs EachUTXO
// gives it, grouped; and the backfill, stopped after each chunk and
// resumed, writes what the appliers wrote. (TestPUTXOsSpentInBatch and
// TestXUTXOsSpentInBatch check the sums under re-application and batch
// cuts: they dump address_balances too.)
func TestAddressBalances(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		p := openStore(t, dbtestFresh(t, dsn))
		mustApply(t, p, newUTXOScenario(t).blocks)

		life := newXLife(t)
		xl := openStore(t, dbtestFresh(t, dsn))
		putXNetwork(t, xl, life.xChainID)
		if err := xl.ApplyXBlocks(ctx, xchain.BlocksData(life.blocks), deriveX); err != nil {
			t.Fatal(err)
		}

		x := newDAGScenario(t)
		xd := openStore(t, dbtestFresh(t, dsn))
		nb, _ := json.Marshal(x.network)
		if err := xd.PutSettingIfAbsent(ctx, NetworkSetting, nb); err != nil {
			t.Fatal(err)
		}
		x.applyDAG(t, xd, 0, len(x.containers), 1024)
		x.applyBlocks(t, xd)

		// What the scenarios must hold for the checks to mean anything:
		// rows counted, some of them spent since (subtracted), and
		// unspent ones not counted (several owners, stake outputs).
		var counted, spentCounted, uncounted int
		for _, s := range []*sqlStore{p, xl, xd} {
			var c, sc, u int
			if err := s.db.QueryRow(ctx, `SELECT COALESCE(SUM(CASE WHEN summed = 1 AND spent = 0 THEN 1 ELSE 0 END), 0),
				COALESCE(SUM(CASE WHEN summed = 1 AND spent = 1 THEN 1 ELSE 0 END), 0),
				COALESCE(SUM(CASE WHEN summed = 0 AND spent = 0 THEN 1 ELSE 0 END), 0) FROM address_utxos`).Scan(&c, &sc, &u); err != nil {
				t.Fatal(err)
			}
			counted, spentCounted, uncounted = counted+c, spentCounted+sc, uncounted+u
			var nulls int
			if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM address_utxos WHERE summed IS NULL").Scan(&nulls); err != nil || nulls != 0 {
				t.Fatalf("%d list rows the appliers left without summed (%v)", nulls, err)
			}
		}
		// Amounts of 2^32 and more (a high half to add), and of 2^63 and
		// more (a key of the top bit clear), lest the sums' halves go
		// untested.
		var high, top int
		for _, s := range []*sqlStore{p, xl, xd} {
			var h, tp int
			if err := s.db.QueryRow(ctx, `SELECT COALESCE(SUM(CASE WHEN amount_key < 0 AND amount_key + 9223372036854775807 + 1 >= 4294967296 THEN 1 ELSE 0 END), 0),
				COALESCE(SUM(CASE WHEN amount_key >= 0 THEN 1 ELSE 0 END), 0) FROM address_utxos WHERE summed = 1 AND spent = 0`).Scan(&h, &tp); err != nil {
				t.Fatal(err)
			}
			high, top = high+h, top+tp
		}
		t.Logf("counted rows: %d of 2^32 to 2^63, %d of 2^63 and more", high, top)
		if high == 0 {
			t.Fatal("no counted UTXO of 2^32 or more")
		}
		if counted < 5 || spentCounted == 0 || uncounted == 0 {
			t.Fatalf("the scenarios hold %d counted unspent rows, %d counted spent, %d uncounted unspent: too few to test",
				counted, spentCounted, uncounted)
		}

		for i, s := range []*sqlStore{p, xl, xd} {
			want := recountedBalances(t, s)
			if got := storedBalances(t, s); got != want {
				t.Fatalf("store %d: address_balances\n%s\nrecounted from the list rows\n%s", i, got, want)
			}
			checkSumUTXOs(t, s)
			// A rederive's recount, in SQL, of the same rows.
			for _, q := range []string{"DELETE FROM address_balances", recountAddressBalances} {
				if _, err := s.db.Exec(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			if got := storedBalances(t, s); got != want {
				t.Fatalf("store %d: address_balances recounted in SQL\n%s\nin Go\n%s", i, got, want)
			}

			if s == xd {
				continue // its rows are of the kinds the others hold: the backfill's stops are tried there
			}
			dump := func() string { return storedBalances(t, s) + "\n" + dumpRows(t, s, "address_utxos") }
			whole := dump()
			resumeBackfillEverywhere(t, s, "address_balances", func() {
				for _, q := range []string{"UPDATE address_utxos SET summed = NULL", "DELETE FROM address_balances"} {
					if _, err := s.db.Exec(ctx, q); err != nil {
						t.Fatal(err)
					}
				}
			}, dump, whole)
		}
	})
}

// storedBalances renders the rows of address_balances.
func storedBalances(t *testing.T, s *sqlStore) string {
	t.Helper()
	var lines []string
	err := s.db.RunQuery(context.Background(), `SELECT chain, address, origin, asset_id, kind, locktime, stakeable_locktime,
		amount_lo, amount_hi, utxos FROM address_balances`, func(r *sql.Rows) error {
		var (
			chain, origin, kind string
			addr, asset         []byte
			lt, st, lo, hi, n   int64
		)
		if err := r.Scan(&chain, &addr, &origin, &asset, &kind, &lt, &st, &lo, &hi, &n); err != nil {
			return err
		}
		total := new(big.Int).Lsh(big.NewInt(hi), 32)
		total.Add(total, big.NewInt(lo))
		lines = append(lines, fmt.Sprintf("%s %x %s %x %s %d %d amount=%s utxos=%d", chain, addr, origin, asset, kind, lt, st, total, n))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// recountedBalances is storedBalances as the list rows say it should be:
// the unspent rows of UTXOs of one owner, but for stake outputs and the
// X-chain's outputs of kind other, summed by group.
func recountedBalances(t *testing.T, s *sqlStore) string {
	t.Helper()
	type group struct {
		chain, addr, origin, asset, kind string
		lt, st                           int64
	}
	owners := map[string]int{}
	type row struct {
		g      group
		id     string
		amount uint64
		spent  int64
	}
	var rows []row
	err := s.db.RunQuery(context.Background(), `SELECT utxo_id, chain, address, origin, asset_id, kind, locktime, stakeable_locktime,
		amount_key, spent FROM address_utxos`, func(r *sql.Rows) error {
		var (
			x               row
			id, addr, asset []byte
			key             int64
		)
		if err := r.Scan(&id, &x.g.chain, &addr, &x.g.origin, &asset, &x.g.kind, &x.g.lt, &x.g.st, &key, &x.spent); err != nil {
			return err
		}
		x.id, x.g.addr, x.g.asset = string(id)+x.g.chain, fmt.Sprintf("%x", addr), fmt.Sprintf("%x", asset)
		x.amount = uint64(key) ^ (1 << 63)
		owners[x.id]++
		rows = append(rows, x)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sums := map[group]*big.Int{}
	counts := map[group]int{}
	for _, x := range rows {
		if x.spent != 0 || owners[x.id] != 1 || (x.g.origin == "P" && x.g.kind == "stake") || (x.g.origin == "X" && x.g.kind == "other") {
			continue
		}
		if sums[x.g] == nil {
			sums[x.g] = new(big.Int)
		}
		sums[x.g].Add(sums[x.g], new(big.Int).SetUint64(x.amount))
		counts[x.g]++
	}
	var lines []string
	for g, sum := range sums {
		lines = append(lines, fmt.Sprintf("%s %s %s %s %s %d %d amount=%s utxos=%d", g.chain, g.addr, g.origin, g.asset, g.kind, g.lt, g.st, sum, counts[g]))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// checkSumUTXOs compares SumUTXOs with EachUTXO, grouped alike, for each
// address of each list alone and for all of a list's addresses at once,
// once the backfills are done (a fresh store's markers are there until
// they run), so that SumUTXOs reads the sums.
func checkSumUTXOs(t *testing.T, s *sqlStore) {
	t.Helper()
	ctx := context.Background()
	if err := runBackfills(ctx, s); err != nil {
		t.Fatal(err)
	}
	if ready, err := addressBalancesReady(ctx, s.db); !ready || err != nil {
		t.Fatalf("the sums' backfill is not done (%v)", err)
	}
	type key struct {
		origin internal.Chain
		kind   string
		asset  ids.ID
		lt, st uint64
	}
	render := func(sums map[key]*big.Int, counts map[key]int) string {
		var lines []string
		for k, v := range sums {
			if counts[k] != 0 {
				lines = append(lines, fmt.Sprintf("%s %s %s %d %d amount=%s utxos=%d", k.origin, k.kind, k.asset, k.lt, k.st, v, counts[k]))
			}
		}
		slices.Sort(lines)
		return strings.Join(lines, "\n")
	}
	checked := 0
	for _, chain := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
		addrs := listAddresses(t, s, "chain = ?", string(chain))
		sets := [][]ids.ShortID{addrs}
		for _, a := range addrs {
			sets = append(sets, []ids.ShortID{a})
		}
		for _, set := range sets {
			if len(set) == 0 {
				continue
			}
			q := UTXOQuery{Chain: chain, Addresses: set, AnyOwner: true, NoOwners: true}
			eachSums, eachCounts := map[key]*big.Int{}, map[key]int{}
			err := s.EachUTXO(ctx, q, func(u *ListedUTXO) error {
				k := key{u.Origin, u.Kind, u.AssetID, u.Locktime, u.StakeableLocktime}
				if eachSums[k] == nil {
					eachSums[k] = new(big.Int)
				}
				eachSums[k].Add(eachSums[k], new(big.Int).SetUint64(u.Amount))
				eachCounts[k]++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sumSums, sumCounts := map[key]*big.Int{}, map[key]int{}
			err = s.SumUTXOs(ctx, q, func(x UTXOSum) error {
				u := x.UTXO
				k := key{u.Origin, u.Kind, u.AssetID, u.Locktime, u.StakeableLocktime}
				if sumSums[k] == nil {
					sumSums[k] = new(big.Int)
				}
				sumSums[k].Add(sumSums[k], x.Amount)
				sumCounts[k] += x.Count
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := render(sumSums, sumCounts), render(eachSums, eachCounts); got != want {
				t.Fatalf("%s, %d addresses: SumUTXOs\n%s\nEachUTXO\n%s", chain, len(set), got, want)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no address set to check")
	}
}

// TestAmountHalvesSQL checks recountAddressBalances' halves of amounts,
// in SQL on each store, against Go's, at the edges: one list row per
// amount, each of its own address, recounted.
func TestAmountHalvesSQL(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		amounts := []uint64{0, 1, 1<<32 - 1, 1 << 32, 5_000_000_000, 1<<63 - 1, 1 << 63, 1<<63 + 1<<32 + 7, 1<<64 - 1}
		var rows [][]any
		for i, a := range amounts {
			rows = append(rows, []any{[]byte{byte(i)}, "P", []byte{byte(i)}, "P", int64(0), amountKey(a), make([]byte, 32), int64(1), 0,
				"regular", int64(0), int64(0), 1})
		}
		if _, err := s.db.BulkInsert(ctx, "address_utxos", addressUTXOColumns, rows, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.Exec(ctx, recountAddressBalances); err != nil {
			t.Fatal(err)
		}
		for i, a := range amounts {
			var lo, hi int64
			if err := s.db.QueryRow(ctx, "SELECT amount_lo, amount_hi FROM address_balances WHERE address = ?", []byte{byte(i)}).Scan(&lo, &hi); err != nil {
				t.Fatal(err)
			}
			if uint64(lo) != a&0xFFFFFFFF || uint64(hi) != a>>32 {
				t.Errorf("amount %d: halves %d, %d, want %d, %d", a, lo, hi, a&0xFFFFFFFF, a>>32)
			}
		}
	})
}

// TestAddressBalancesWrittenLast checks that a batch writes the sums
// after every other statement of its appliers, the atomic lock's and the
// list rows' included (batchTx.sums: no batch waits for the lock, or
// for a list row, while it holds rows of the sums), and that the P-chain
// scenario's batches do write sums under that rule.
func TestAddressBalancesWrittenLast(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		var stmts []string
		s.db.Trace(func(q string, _ []any) { stmts = append(stmts, q) })
		defer s.db.Trace(nil)
		wrote := 0
		bs := newUTXOScenario(t).blocks
		for i := range bs {
			stmts = nil
			mustApply(t, s, bs[i:i+1])
			first := slices.IndexFunc(stmts, func(q string) bool { return strings.Contains(q, "address_balances") })
			if first < 0 {
				continue
			}
			wrote++
			for _, q := range stmts[first:] {
				if strings.Contains(q, "pg_advisory_xact_lock") || strings.Contains(q, "address_utxos") {
					t.Fatalf("block %d: %q after the sums were written", i, q)
				}
			}
		}
		if wrote == 0 {
			t.Fatal("no block wrote sums")
		}
	})
}

// TestBalanceReadPlans records the statements SumUTXOs runs and checks
// that neither leaves its index (migration 0050): the sums are read off
// address_balances' key, and the uncounted rows off the covering
// address_utxos_unsummed, on SQLite as planned without statistics and on
// PostgreSQL as an index-only scan once the rows are all-visible.
func TestBalanceReadPlans(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		mustApply(t, s, newUTXOScenario(t).blocks)
		if err := runBackfills(ctx, s); err != nil {
			t.Fatal(err)
		}
		pg := s.db.Dialect() == database.Postgres
		if pg {
			for _, tb := range []string{"address_utxos", "address_balances"} {
				if _, err := s.db.Exec(ctx, "VACUUM ANALYZE "+tb); err != nil {
					t.Fatal(err)
				}
			}
		}
		addrs := listAddresses(t, s, "chain = 'P' AND spent = 0 AND summed = 0")
		if len(addrs) == 0 {
			t.Fatal("no address with uncounted rows")
		}
		type stmt struct {
			q    string
			args []any
		}
		var stmts []stmt
		s.db.Trace(func(q string, args []any) { stmts = append(stmts, stmt{q, slices.Clone(args)}) })
		err := s.SumUTXOs(ctx, UTXOQuery{Chain: internal.PChain, Addresses: addrs, AnyOwner: true, NoOwners: true},
			func(UTXOSum) error { return nil })
		s.db.Trace(nil)
		if err != nil {
			t.Fatal(err)
		}
		explain := func(q string, args []any) string {
			var plan []string
			err := s.db.Transact(ctx, func(tx *database.DB) error {
				if !pg {
					return tx.RunQuery(ctx, "EXPLAIN QUERY PLAN "+q, func(r *sql.Rows) error {
						var id, parent, unused int
						var detail string
						err := r.Scan(&id, &parent, &unused, &detail)
						plan = append(plan, detail)
						return err
					}, args...)
				}
				// A few rows' table is cheaper to scan whole; the index's
				// use is what is checked here.
				for _, set := range []string{"enable_seqscan", "enable_bitmapscan"} {
					if _, err := tx.Exec(ctx, "SET LOCAL "+set+" = off"); err != nil {
						return err
					}
				}
				return tx.RunQuery(ctx, "EXPLAIN "+q, func(r *sql.Rows) error {
					var line string
					err := r.Scan(&line)
					plan = append(plan, line)
					return err
				}, args...)
			})
			if err != nil {
				t.Fatal(err)
			}
			return strings.Join(plan, "\n")
		}
		want := map[string][]string{
			"FROM address_balances": {"SEARCH address_balances USING PRIMARY KEY", "Index Only Scan using address_balances_pkey"},
			"FROM address_utxos":    {"USING COVERING INDEX address_utxos_unsummed", "Index Only Scan using address_utxos_unsummed"},
		}
		seen := map[string]bool{}
		for _, st := range stmts {
			for from, w := range want {
				if !strings.Contains(st.q, from) {
					continue
				}
				seen[from] = true
				plan := explain(st.q, st.args)
				if wp := w[0]; pg && !strings.Contains(plan, w[1]) || !pg && !strings.Contains(plan, wp) {
					t.Errorf("the plan of\n  %s\nis\n  %s\nwant %q", st.q, strings.ReplaceAll(plan, "\n", "\n  "), w)
				}
			}
		}
		if len(seen) != len(want) {
			t.Fatalf("SumUTXOs ran %d statements, reading from %v; want both of %v", len(stmts), seen, want)
		}
	})
}

// listAddresses reads the addresses of the list rows cond selects.
func listAddresses(t *testing.T, s *sqlStore, cond string, args ...any) []ids.ShortID {
	t.Helper()
	var addrs []ids.ShortID
	err := s.db.RunQuery(context.Background(), "SELECT DISTINCT address FROM address_utxos WHERE "+cond, func(r *sql.Rows) error {
		var a []byte
		if err := r.Scan(&a); err != nil {
			return err
		}
		id, err := ids.ToShortID(a)
		addrs = append(addrs, id)
		return err
	}, args...)
	if err != nil {
		t.Fatal(err)
	}
	return addrs
}
