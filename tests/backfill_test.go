package tests

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal/derive"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// stoppingStore cancels its context after stopAfter chunks of a backfill:
// a crash between two chunks.
type stoppingStore struct {
	store.Store
	stopAfter, fills int
	cancel           context.CancelFunc
}

func (s *stoppingStore) FillBackfill(ctx context.Context, b store.Backfill, p store.BackfillPart, hi int64) (store.Backfill, error) {
	if s.fills == s.stopAfter {
		s.cancel()
	}
	s.fills++
	return s.Store.FillBackfill(ctx, b, p, hi)
}

// TestBackfillsResume takes a store indexed from the local network back
// to what an avaindex before the backfilled tables left (their rows gone,
// the P- and X-chains' metrics and UTXO page keys too, every backfill
// asked for but the burned sums', which TestBurnedBackfill covers), runs
// the backfills and the metrics' catch-up as the service does, stopped
// after a few chunks, checks that the cursors kept what was done, runs
// them again to the end and the rederive they ask for, and compares every
// derived table with the store indexed from scratch. On both stores.
func TestBackfillsResume(t *testing.T) {
	n, _ := issuedNetwork(t)
	backfilled := []string{"address_utxos", "p_staker_addresses", "address_txs", "block_proposers", "evm_erc20_balances", "evm_erc20_holdings", "evm_erc20_tokens",
		"nft_holders", "nft_holder_totals", "nft_spans", "address_balances"}
	tables := append([]string(nil), derivedTables...)
	for _, table := range backfilled {
		if !slices.Contains(tables, table) {
			tables = append(tables, table)
		}
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, _ := indexedStore(t, n, dsn)
		want := dumpTables(t, db, tables)
		for _, table := range []string{"address_utxos", "p_staker_addresses", "address_txs", "metric_chains"} {
			if len(want[table]) == 0 {
				t.Fatalf("the indexed store has no %s rows: the comparison would prove nothing", table)
			}
		}
		reset := []string{"DELETE FROM metric_chains WHERE chain_key IN ('P', 'X')", "DELETE FROM metric_rollups WHERE chain_key IN ('P', 'X')",
			"DELETE FROM metric_addresses WHERE chain_key IN ('P', 'X')",
			// The getUTXOs page keys (0041) of the UTXOs stored before them.
			"UPDATE p_utxo_addresses SET page_key = NULL", "UPDATE x_utxo_addresses SET page_key = NULL"}
		for _, table := range backfilled {
			reset = append(reset, "DELETE FROM "+table)
		}
		for _, name := range store.Backfills {
			if name != "burned" {
				reset = append(reset, fmt.Sprintf("INSERT INTO settings (key, value) VALUES ('%s', '')", store.BackfillKey(name)))
			}
		}
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		opts := derive.BackfillOptions{Chunk: 2, MetricsChunk: 3}
		for _, stopAfter := range []int{1, 9, 40} {
			for _, q := range reset {
				if _, err := db.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			sctx, cancel := context.WithCancel(ctx)
			err := derive.RunBackfills(sctx, &stoppingStore{Store: st, stopAfter: stopAfter, cancel: cancel}, log, opts)
			cancel()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("stopped after %d chunks: %v, want the cancellation", stopAfter, err)
			}
			// What was done is kept: the first backfill left is past its
			// start, or one finished.
			pending, err := st.PendingBackfills(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(pending) == 5 && pending[0].Part == 0 && pending[0].Next == 0 {
				t.Fatalf("stopped after %d chunks: no cursor moved (%+v)", stopAfter, pending)
			}
			if left, err := derive.PendingWork(ctx, st); err != nil || len(left) == 0 {
				t.Fatalf("stopped after %d chunks: no work left (%v, %v)", stopAfter, left, err)
			}
			if err := derive.RunBackfills(ctx, st, log, opts); err != nil {
				t.Fatal(err)
			}
			if left, err := derive.PendingWork(ctx, st); err != nil || len(left) != 0 {
				t.Fatalf("work left after the backfills: %v (%v)", left, err)
			}
			if err := derive.RunPendingRederives(ctx, st, log, derive.RederiveOptions{}); err != nil {
				t.Fatal(err)
			}
			got := dumpTables(t, db, tables)
			var diff []string
			for _, table := range tables {
				if strings.Join(got[table], "\n") != strings.Join(want[table], "\n") {
					diff = append(diff, fmt.Sprintf("%s: %d rows, want %d", table, len(got[table]), len(want[table])))
				}
			}
			if len(diff) > 0 {
				t.Fatalf("stopped after %d chunks, resumed: the store differs from the one indexed from scratch:\n%s", stopAfter, strings.Join(diff, "\n"))
			}
		}
	})
}
