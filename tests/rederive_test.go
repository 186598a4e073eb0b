package tests

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derive"
	"github.com/avaindex/avaindex/internal/derive/pstate"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// derivedTables are the tables written by appliers (every chain's, so a
// rederive of one chain is seen to leave the others as they were), and
// p_reward_utxos, the node input a P-chain rederive reads. Wall-clock
// columns are left out of the dumps (dumpTables).
var derivedTables = []string{
	"p_utxos", "p_utxo_addresses", "p_imported_utxos", "p_subnets", "p_blockchains",
	"p_stakers", "p_staker_owners", "p_l1_validator_events", "p_l1_validators", "p_l1_validator_owners",
	"p_l1_fees", "p_l1_fee_validators", "p_l1_fee_days", "p_l1_balance_changes", "p_reward_state", "p_reward_subnets", "p_supply_history",
	"p_historical_rewards", "p_historical_reward_owners", "p_reward_utxos", "p_supply",
	"x_utxos", "x_utxo_addresses", "x_imported_utxos", "x_dag_txs", "x_early_spends",
	"c_atomic_txs", "c_atomic_utxos", "c_atomic_utxo_addresses", "c_imported_utxos",
	"address_utxos", "address_balances", "address_txs", "metric_chains", "metric_rollups", "metric_addresses",
	"evm_blocks", "evm_txs", "evm_logs", "evm_internal_txs", "evm_transfers", "evm_address_transfers",
	"evm_contracts", "evm_deployments", "evm_balances", "evm_teleporter_messages", "burned",
}

// wallClock are the columns that hold when something was written, not
// what: they differ between two stores with the same contents.
var wallClock = map[string]bool{"updated_at": true}

// dumpTables returns each table's rows, each rendered as one line, sorted.
func dumpTables(t testing.TB, db *database.DB, tables []string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, table := range tables {
		var lines []string
		err := db.RunQuery(context.Background(), "SELECT * FROM "+table, func(rows *sql.Rows) error {
			cols, err := rows.Columns()
			if err != nil {
				return err
			}
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			var b strings.Builder
			for i, v := range vals {
				if wallClock[cols[i]] {
					continue
				}
				switch v := v.(type) {
				case []byte:
					fmt.Fprintf(&b, "%s=%x ", cols[i], v)
				default:
					fmt.Fprintf(&b, "%s=%v ", cols[i], v)
				}
			}
			lines = append(lines, b.String())
			return nil
		})
		if err != nil {
			t.Fatalf("dumping %s: %v", table, err)
		}
		sort.Strings(lines)
		out[table] = lines
	}
	return out
}

// diffDumps lists how got differs from want, table by table.
func diffDumps(want, got map[string][]string) []string {
	var diffs []string
	for _, table := range derivedTables {
		w, g := want[table], got[table]
		if strings.Join(w, "\n") == strings.Join(g, "\n") {
			continue
		}
		ws, gs := map[string]bool{}, map[string]bool{}
		for _, l := range w {
			ws[l] = true
		}
		for _, l := range g {
			gs[l] = true
		}
		var missing, extra []string
		for _, l := range w {
			if !gs[l] {
				missing = append(missing, l)
			}
		}
		for _, l := range g {
			if !ws[l] {
				extra = append(extra, l)
			}
		}
		d := fmt.Sprintf("%s: %d rows, want %d", table, len(g), len(w))
		if len(missing) > 0 {
			d += "\n  missing: " + missing[0]
		}
		if len(extra) > 0 {
			d += "\n  extra:   " + extra[0]
		}
		diffs = append(diffs, d)
	}
	return diffs
}

func count(t testing.TB, db *database.DB, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// indexedStore indexes the network's chains into dsn with avaindex serve
// up to the node's P-chain tip, stops it, and returns the store's
// derived tables, with the database opened for the test.
func indexedStore(t *testing.T, n *testnet.Network, dsn string) (*database.DB, map[string][]string) {
	t.Helper()
	ctx := context.Background()
	tip, err := platformvm.NewClient(n.URL).GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	base, stop := runService(t, 2*time.Minute, n.URL, dsn)
	waitIndexed(t, base, tip, 3*time.Minute)
	db, err := database.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	waitCursorsStill(t, db)
	if err := stop(); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("service.Run: %v", err)
	}
	return db, dumpTables(t, db, derivedTables)
}

// waitCursorsStill waits until no cursor of db (every chain's, index's
// and EVM chain's) has moved for 3s: the indexer, polling every 50ms, has
// caught up with the node.
func waitCursorsStill(t *testing.T, db *database.DB) {
	t.Helper()
	cursors := func() string {
		dump := dumpTables(t, db, []string{"cursors", "evm_chains"})
		return strings.Join(dump["cursors"], "\n") + strings.Join(dump["evm_chains"], "\n")
	}
	last, since, deadline := cursors(), time.Now(), time.Now().Add(2*time.Minute)
	for time.Since(since) < 3*time.Second {
		if time.Now().After(deadline) {
			t.Fatal("the indexer did not catch up with the node within 2m")
		}
		time.Sleep(100 * time.Millisecond)
		if now := cursors(); now != last {
			last, since = now, time.Now()
		}
	}
}

// findKey returns the value of the first member named key in v, a
// decoded JSON document.
func findKey(v any, key string) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		if x, ok := v[key]; ok {
			return x, true
		}
		for _, x := range v {
			if found, ok := findKey(x, key); ok {
				return found, true
			}
		}
	case []any:
		for _, x := range v {
			if found, ok := findKey(x, key); ok {
				return found, true
			}
		}
	}
	return nil, false
}

// migrationFill returns the statement of migration 0022 that fills
// p_reward_utxos from the reward UTXOs indexed before it.
func migrationFill(t *testing.T) string {
	t.Helper()
	b, err := fs.ReadFile(store.Migrations(), "0022_p_reward_utxos.sql")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), "INSERT INTO p_reward_utxos")
	if i < 0 {
		t.Fatal("migration 0022 has no INSERT INTO p_reward_utxos")
	}
	return string(b[i:])
}

// TestRederivePChain indexes a network where every transaction type was
// issued, then takes the store back to what an older avaindex left (the
// P-chain's derived tables empty or wrong, p_reward_utxos filled by its
// migration), rederives it with a crash (a cancel) midway and a resume,
// and compares every derived table with the store as indexed from
// scratch; then asks for a rederive as a migration does and checks that
// avaindex serve runs it before indexing. On both stores.
func TestRederivePChain(t *testing.T) {
	n, _ := issuedNetwork(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, want := indexedStore(t, n, dsn)
		for _, table := range []string{"p_utxos", "p_stakers", "p_subnets", "p_blockchains", "p_l1_validators",
			"p_historical_rewards", "p_reward_utxos", "p_supply_history", "p_l1_fees", "p_l1_fee_days", "p_l1_balance_changes", "address_utxos", "metric_rollups"} {
			if len(want[table]) == 0 {
				t.Fatalf("the indexed store has no %s rows: the comparison would prove nothing", table)
			}
		}
		pCursor := count(t, db, "SELECT height FROM cursors WHERE chain = 'P'")

		// An older store: the P-chain's derived tables missing or wrong,
		// p_reward_utxos filled by migration 0022 from p_utxos.
		for _, q := range []string{
			"DELETE FROM p_reward_utxos",
			migrationFill(t),
			"DELETE FROM p_stakers", "DELETE FROM p_staker_owners", "DELETE FROM p_historical_rewards",
			"DELETE FROM p_historical_reward_owners", "DELETE FROM p_reward_state", "DELETE FROM p_l1_fees",
			"DELETE FROM p_l1_fee_days", "DELETE FROM p_l1_balance_changes",
			"DELETE FROM p_subnets", "DELETE FROM p_l1_validators",
			"DELETE FROM metric_rollups WHERE chain_key = 'P'",
			"UPDATE p_utxos SET consumed_tx_id = NULL, consumed_height = NULL",
			"UPDATE address_utxos SET spent = 0 WHERE origin = 'P' OR chain = 'P'",
			"UPDATE p_supply_history SET supply = 1",
		} {
			if _, err := db.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if diff := diffDumps(want, dumpTables(t, db, derivedTables)); len(diff) == 0 {
			t.Fatal("the wiped store equals the indexed one: the test would prove nothing")
		}
		if got := dumpTables(t, db, []string{"p_reward_utxos"}); strings.Join(got["p_reward_utxos"], "\n") != strings.Join(want["p_reward_utxos"], "\n") {
			t.Errorf("migration 0022 filled p_reward_utxos with %d rows, the indexer wrote %d (or they differ)",
				len(got["p_reward_utxos"]), len(want["p_reward_utxos"]))
		}

		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		if err := st.RequestRederive(ctx, internal.PChain); err != nil {
			t.Fatal(err)
		}

		// A crash after two batches of 3 blocks: the cursor is at 6.
		cctx, cancel := context.WithCancel(ctx)
		batches := 0
		err = derive.Rederive(cctx, st, internal.PChain, log, derive.RederiveOptions{BatchSize: 3, OnBatch: func(store.Rederive) {
			if batches++; batches == 2 {
				cancel()
			}
		}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled rederive returned %v, want context.Canceled", err)
		}
		pending, err := st.PendingRederives(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(pending) != 1 || !pending[0].Started || pending[0].Next != 6 || pending[0].Target != uint64(pCursor) {
			t.Fatalf("after the crash the pending rederives are %+v, want the P-chain's at 6 of %d", pending, pCursor)
		}
		if diff := diffDumps(want, dumpTables(t, db, derivedTables)); len(diff) == 0 {
			t.Fatal("the store is whole after 6 blocks: the crash proves nothing")
		}
		// While it is pending the indexer may not write the P-chain.
		last, err := st.StoredPBlocks(ctx, uint64(pCursor), 1)
		if err != nil || len(last) != 1 {
			t.Fatalf("the stored block at the cursor: %v", err)
		}
		lb, err := pchain.Decode(last[0].Height, last[0].Bytes)
		if err != nil {
			t.Fatal(err)
		}
		// Linked to its proposal, as the indexer links the blocks it
		// applies.
		err = pchain.LinkProposals([]*pchain.Block{lb}, func(h uint64, _ ids.ID) (*pchain.Block, error) {
			sb, err := st.StoredPBlocks(ctx, h, 1)
			if err != nil || len(sb) != 1 {
				return nil, fmt.Errorf("the stored block %d: %v", h, err)
			}
			return pchain.Decode(h, sb[0].Bytes)
		})
		if err != nil {
			t.Fatal(err)
		}
		batch, err := pchain.Batch([]*pchain.Block{lb})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.ApplyPBlocks(ctx, batch, pstate.Apply[*store.PTx]); err == nil || !strings.Contains(err.Error(), "rederive") {
			t.Fatalf("ApplyPBlocks during a rederive returned %v, want a refusal naming the rederive", err)
		}

		// The resume, in other batches, from the cursor.
		if err := derive.RunPendingRederives(ctx, st, log, derive.RederiveOptions{BatchSize: 5}); err != nil {
			t.Fatal(err)
		}
		if pending, err := st.PendingRederives(ctx); err != nil || len(pending) != 0 {
			t.Fatalf("after the resume the pending rederives are %+v (%v), want none", pending, err)
		}
		if diff := diffDumps(want, dumpTables(t, db, derivedTables)); len(diff) > 0 {
			t.Fatalf("the rederived store differs from the one indexed from scratch:\n%s", strings.Join(diff, "\n"))
		}

		// A migration asks for a rederive: serve runs it before indexing.
		for _, q := range []string{
			"INSERT INTO settings (key, value) VALUES ('rederive:P', 'request')",
			"DELETE FROM p_stakers",
			"UPDATE p_utxos SET amount = 1",
		} {
			if _, err := db.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		// The node's P-chain grows meanwhile (reward txs as stakers end):
		// serve sees it end at pCursor, so that what it indexes after the
		// rederive is what the store indexed from scratch had.
		base, stop := runService(t, 2*time.Minute, pHeightCapProxy(t, n.URL, uint64(pCursor)), dsn)
		deadline := time.Now().Add(2 * time.Minute)
		for count(t, db, "SELECT COUNT(*) FROM settings WHERE key = 'rederive:P'") > 0 {
			if time.Now().After(deadline) {
				t.Fatal("avaindex serve did not run the rederive a migration asked for within 2m")
			}
			time.Sleep(50 * time.Millisecond)
		}
		waitIndexed(t, base, uint64(pCursor), time.Minute)
		// /readyz's queues show what is left of the rederive: nothing.
		_, body, _ := get(t, base+"/readyz")
		var ready any
		if err := json.Unmarshal(body, &ready); err != nil {
			t.Fatalf("/readyz: %v in %s", err, body)
		}
		if left, ok := findKey(ready, "rederive:P"); !ok || left != float64(0) {
			t.Errorf("/readyz's rederive:P = %v (found %v), want 0 left: %s", left, ok, body)
		}
		waitCursorsStill(t, db)
		if err := stop(); err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("service.Run: %v", err)
		}
		if now := count(t, db, "SELECT height FROM cursors WHERE chain = 'P'"); now != pCursor {
			t.Fatalf("the P-chain cursor is at %d, want %d: serve indexed past the capped tip", now, pCursor)
		}
		if diff := diffDumps(want, dumpTables(t, db, derivedTables)); len(diff) > 0 {
			t.Fatalf("after serve's rederive the store differs from the one indexed from scratch:\n%s", strings.Join(diff, "\n"))
		}
	})
}

// pHeightCapProxy forwards to the node at nodeURL everything but
// platform.getHeight, which it answers with height: an indexer behind it
// follows the P-chain up to height and no further, however far the node
// has gone.
func pHeightCapProxy(t *testing.T, nodeURL string, height uint64) string {
	t.Helper()
	u, err := url.Parse(nodeURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.TrimSuffix(r.URL.Path, "/") == "/ext/bc/P" {
			body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var req struct {
				Method string          `json:"method"`
				ID     json.RawMessage `json:"id"`
			}
			if json.Unmarshal(body, &req) == nil && req.Method == "platform.getHeight" {
				if len(req.ID) == 0 {
					req.ID = json.RawMessage("null")
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","result":{"height":"%d"},"id":%s}`, height, req.ID)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// BenchmarkRederivePChain measures a P-chain rederive from the genesis
// (clear, then decode and apply every stored block in batches of 256 and
// of derive.DefaultBatchSize) on a store of the local network grown to at
// least loadPBlocks P-chain blocks, on SQLite and PostgreSQL; blocks/s is
// the figure. Run it as
//
//	go test -run '^$' -bench BenchmarkRederivePChain -benchtime 3x ./tests/
func BenchmarkRederivePChain(b *testing.B) {
	n := testnet.Get(b)
	tip := growPChain(b, n, loadPBlocks)
	dbtest.Run(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		base, stop := runService(b, 2*time.Minute, n.URL, dsn)
		waitIndexedB(b, base, tip)
		if err := stop(); err != nil && !errors.Is(err, context.Canceled) {
			b.Fatal(err)
		}
		st, err := store.Open(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		cur, _, err := st.Cursor(ctx, store.ChainCursor(internal.PChain))
		if err != nil {
			b.Fatal(err)
		}
		for _, size := range []int{256, derive.DefaultBatchSize} {
			b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
				for range b.N {
					if err := st.RequestRederive(ctx, internal.PChain); err != nil {
						b.Fatal(err)
					}
					if err := derive.Rederive(ctx, st, internal.PChain, log, derive.RederiveOptions{BatchSize: size}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cur+1)*float64(b.N)/b.Elapsed().Seconds(), "blocks/s")
			})
		}
	})
}

// TestRederiveXChain and TestRederiveCChain do for the X-chain (its
// blocks; its DAG phase is TestRederiveXDAG's, internal/store, as the local
// network has no DAG txs) and the C-chain's atomic txs what
// TestRederivePChain does for the P-chain: the chain's derived tables
// wiped or wrong, a rederive cut short after one batch and resumed, and
// every derived table compared with the store indexed from scratch, on
// both stores.
func TestRederiveXChain(t *testing.T) {
	rederiveChain(t, internal.XChain, []string{"x_utxos", "x_imported_utxos", "address_utxos", "metric_rollups"}, []string{
		"DELETE FROM x_utxo_addresses", "DELETE FROM x_dag_txs",
		"DELETE FROM metric_rollups WHERE chain_key = 'X'",
		"UPDATE x_utxos SET consumed_tx_id = NULL, consumed_height = NULL, amount = 1",
		"UPDATE address_utxos SET spent = 0 WHERE origin = 'X' OR chain = 'X'",
	})
}

func TestRederiveCChain(t *testing.T) {
	rederiveChain(t, internal.CChain, []string{"c_atomic_txs", "c_atomic_utxos", "c_imported_utxos"}, []string{
		"DELETE FROM c_atomic_utxo_addresses",
		"UPDATE c_atomic_utxos SET amount = 1",
		"DELETE FROM c_imported_utxos",
		"UPDATE address_utxos SET spent = 0 WHERE origin = 'C' OR chain = 'C'",
	})
}

// rederiveChain indexes the network, runs wipes, and rederives chain with
// a cancel after the first batch (of 1) and a resume; need are tables the
// indexed store must have rows in for the comparison to mean anything.
func rederiveChain(t *testing.T, chain internal.Chain, need, wipes []string) {
	n, _ := issuedNetwork(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, want := indexedStore(t, n, dsn)
		for _, table := range need {
			if len(want[table]) == 0 {
				t.Fatalf("the indexed store has no %s rows: the comparison would prove nothing", table)
			}
		}
		for _, q := range wipes {
			if _, err := db.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if diff := diffDumps(want, dumpTables(t, db, derivedTables)); len(diff) == 0 {
			t.Fatal("the wiped store equals the indexed one: the test would prove nothing")
		}
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		if err := st.RequestRederive(ctx, chain); err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		var first store.Rederive
		err = derive.Rederive(cctx, st, chain, log, derive.RederiveOptions{BatchSize: 1, OnBatch: func(r store.Rederive) {
			first = r
			cancel()
		}})
		cancel()
		if first.Done {
			t.Fatalf("the first batch of 1 finished the %s-chain's rederive: the crash proves nothing", chain)
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled rederive returned %v, want context.Canceled", err)
		}
		pending, err := st.PendingRederives(ctx)
		if err != nil || len(pending) != 1 || pending[0].Chain != chain || !pending[0].Started || pending[0].Next != first.Next {
			t.Fatalf("after the crash the pending rederives are %+v (%v), want the %s-chain's at %d", pending, err, chain, first.Next)
		}
		if err := derive.RunPendingRederives(ctx, st, log, derive.RederiveOptions{BatchSize: 3}); err != nil {
			t.Fatal(err)
		}
		if pending, err := st.PendingRederives(ctx); err != nil || len(pending) != 0 {
			t.Fatalf("after the resume the pending rederives are %+v (%v), want none", pending, err)
		}
		if diff := diffDumps(want, dumpTables(t, db, derivedTables)); len(diff) > 0 {
			t.Fatalf("the rederived store differs from the one indexed from scratch:\n%s", strings.Join(diff, "\n"))
		}
	})
}
