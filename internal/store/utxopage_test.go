package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// setOrder returns the ids of addr's UTXOs in pg's set in the node's order,
// read from the UTXO rows alone (not page_key) and sorted here: the height
// that put it in the set, its tx's index in the block, its tx id and
// output index, all descending.
func setOrder(t *testing.T, s *sqlStore, pg utxoPage, addr ids.ShortID) []ids.ID {
	t.Helper()
	type row struct {
		id, txID   []byte
		h, idx, oi int64
	}
	var rows []row
	err := s.db.RunQuery(context.Background(), `SELECT u.id, `+pg.height+`, u.created_idx, u.tx_id, u.output_index
		FROM `+pg.addresses+` a JOIN `+pg.utxos+` u ON u.id = a.utxo_id WHERE a.address = ? AND `+pg.live,
		func(r *sql.Rows) error {
			var w row
			if err := r.Scan(&w.id, &w.h, &w.idx, &w.txID, &w.oi); err != nil {
				return err
			}
			rows = append(rows, w)
			return nil
		}, addr[:])
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(rows, func(a, b row) int {
		switch {
		case a.h != b.h:
			return int(b.h - a.h)
		case a.idx != b.idx:
			return int(b.idx - a.idx)
		case !bytes.Equal(a.txID, b.txID):
			return bytes.Compare(b.txID, a.txID)
		}
		return int(b.oi - a.oi)
	})
	out := make([]ids.ID, len(rows))
	for i, w := range rows {
		out[i] = ids.ID(w.id)
	}
	return out
}

// walkPages pages through addr's UTXOs with page, size at a time, from the
// start, and returns their ids.
func walkPages(t *testing.T, page func(context.Context, ids.ShortID, ids.ID, int) ([]*PagedUTXO, error),
	addr ids.ShortID, size int) []ids.ID {
	t.Helper()
	var (
		out   []ids.ID
		after ids.ID
	)
	for {
		got, err := page(context.Background(), addr, after, size)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > size {
			t.Fatalf("a page of %d holds %d", size, len(got))
		}
		for _, u := range got {
			out = append(out, u.ID)
		}
		if len(got) < size {
			return out
		}
		after = got[len(got)-1].ID
		if len(out) > 10_000 {
			t.Fatal("the pages do not end")
		}
	}
}

// checkPages checks that the pages of each of addrs, walked a few UTXOs
// at a time, list the address's set in setOrder's order, and that a
// cursor out of the set starts from the first.
func checkPages(t *testing.T, s *sqlStore, pg utxoPage, addrs ...ids.ShortID) {
	t.Helper()
	page := s.PUTXOPageOf
	if pg.utxos == xUTXOPage.utxos {
		page = s.XUTXOPageOf
	}
	for _, addr := range addrs {
		want := setOrder(t, s, pg, addr)
		for _, size := range []int{1, 2, 3, 1024} {
			if got := walkPages(t, page, addr, size); !slices.Equal(got, want) {
				t.Errorf("%s pages of %d of %s: %v, want %v", pg.utxos, size, addr, got, want)
			}
		}
		got, err := page(context.Background(), addr, ids.ID{0xee}, 2)
		if err != nil {
			t.Fatal(err)
		}
		var first []ids.ID
		for _, u := range got {
			first = append(first, u.ID)
		}
		if !slices.Equal(first, want[:min(2, len(want))]) {
			t.Errorf("%s page of %s after an unknown UTXO: %v, want the first %v", pg.utxos, addr, first, want[:min(2, len(want))])
		}
	}
}

// dumpPageKeys renders every owner row of pg's chain with its page key.
func dumpPageKeys(t *testing.T, s *sqlStore, pg utxoPage) string {
	t.Helper()
	var lines []string
	err := s.db.RunQuery(context.Background(), "SELECT address, utxo_id, page_key FROM "+pg.addresses,
		func(r *sql.Rows) error {
			var a, id, k []byte
			if err := r.Scan(&a, &id, &k); err != nil {
				return err
			}
			lines = append(lines, fmt.Sprintf("%x %x %s", a, id, hex.EncodeToString(k)))
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestPUTXOPages follows the P scenario (stake locked and released, an
// export spending the released stake, an aborted pre-Banff stake): at
// each step the pages list each address's set as the node orders it
// (PUTXOsOf's order, which TestPUTXOLife checks by hand), and re-applying
// blocks after the stake was spent does not put it back.
func TestPUTXOPages(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		sc := newUTXOScenario(t)
		s := openStore(t, dsn)
		check := func(stage string) {
			t.Helper()
			checkPages(t, s, pUTXOPage, uAddrA, uAddrB, uAddrC, ids.ShortID{0xdd})
			for _, a := range []ids.ShortID{uAddrA, uAddrB, uAddrC} {
				us, err := s.PUTXOsOf(context.Background(), []ids.ShortID{a})
				if err != nil {
					t.Fatal(err)
				}
				var want []ids.ID
				for _, u := range us {
					want = append(want, u.ID)
				}
				if got := walkPages(t, s.PUTXOPageOf, a, 2); !slices.Equal(got, want) {
					t.Errorf("%s: pages of %s %v, PUTXOsOf %v", stage, a, got, want)
				}
			}
		}
		mustApply(t, s, sc.blocks[:3])
		check("staked")
		mustApply(t, s, sc.blocks[3:5])
		check("rewarded")
		mustApply(t, s, sc.blocks[5:])
		check("exported")
		if got := walkPages(t, s.PUTXOPageOf, uAddrB, 1024); len(got) != 3 {
			t.Errorf("B holds %d UTXOs after the export, want 3", len(got))
		}
		before := dumpPageKeys(t, s, pUTXOPage)
		mustApply(t, s, sc.blocks[2:4])
		mustApply(t, s, sc.blocks)
		if after := dumpPageKeys(t, s, pUTXOPage); after != before {
			t.Errorf("re-applying changed the page keys:\n%s\nwas\n%s", after, before)
		}
		check("re-applied")

		// One batch writes the same keys.
		s2 := openStore(t, dbtestFresh(t, dsn))
		mustApply(t, s2, sc.blocks)
		if got := dumpPageKeys(t, s2, pUTXOPage); got != before {
			t.Errorf("one batch wrote the page keys\n%s\nbatches\n%s", got, before)
		}
	})
}

// TestXUTXOPages: the X-chain's pages over a DAG history and the blocks
// after it, applied in either order (spends stored before their UTXOs
// among them), list the sets TestXDAGScenario checks.
func TestXUTXOPages(t *testing.T) {
	sc := newDAGScenario(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		for _, blocksFirst := range []bool{false, true} {
			ctx := context.Background()
			s := openStore(t, dbtestFresh(t, dsn))
			nb, _ := json.Marshal(sc.network)
			if err := s.PutSettingIfAbsent(ctx, NetworkSetting, nb); err != nil {
				t.Fatal(err)
			}
			if blocksFirst {
				sc.applyBlocks(t, s)
				sc.applyDAG(t, s, 0, len(sc.containers), 2)
			} else {
				sc.applyDAG(t, s, 0, len(sc.containers), 2)
				sc.applyBlocks(t, s)
			}
			// The sets by hand (as TestXDAGScenario's check): A holds
			// spend2's output (height 2); C four DAG outputs and spend's
			// two (height 1).
			want := map[ids.ShortID][]ids.ID{
				uAddrA: {utxoKey(sc.spend2.ID, 0)},
				uAddrB: {utxoKey(sc.op.ID, 0)},
				uAddrC: {utxoKey(sc.spend.ID, 1), utxoKey(sc.spend.ID, 0), utxoKey(sc.op.ID, 1),
					utxoKey(sc.export.ID, 0), utxoKey(sc.base.ID, 2)},
			}
			for a, w := range want {
				if got := walkPages(t, s.XUTXOPageOf, a, 2); !slices.Equal(got, w) {
					t.Errorf("blocks first %t: pages of %s %v, want %v", blocksFirst, a, got, w)
				}
			}
			checkPages(t, s, xUTXOPage, uAddrA, uAddrB, uAddrC, sc.gen.Owners.Addrs[0], sc.genOther.Owners.Addrs[0])
		}
	})
}

// TestUTXOPageKeysBackfill clears the page keys of stored UTXOs (a store
// migrated to 0041) and runs the backfill, stopped after each possible
// chunk and resumed: it writes the keys the appliers write.
func TestUTXOPageKeysBackfill(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		p := newUTXOScenario(t)
		sp := openStore(t, dbtestFresh(t, dsn))
		mustApply(t, sp, p.blocks)

		x := newDAGScenario(t)
		sx := openStore(t, dbtestFresh(t, dsn))
		nb, _ := json.Marshal(x.network)
		if err := sx.PutSettingIfAbsent(ctx, NetworkSetting, nb); err != nil {
			t.Fatal(err)
		}
		x.applyDAG(t, sx, 0, len(x.containers), 1024)
		x.applyBlocks(t, sx)

		for _, s := range []*sqlStore{sp, sx} {
			dump := func() string {
				return dumpPageKeys(t, s, pUTXOPage) + "\n--\n" + dumpPageKeys(t, s, xUTXOPage)
			}
			// The appliers' keys; the fresh store's own backfills (every
			// migration's) leave them.
			want := dump()
			if err := runBackfills(ctx, s); err != nil {
				t.Fatal(err)
			}
			if got := dump(); got != want {
				t.Fatalf("the backfills of a fresh store changed the keys:\n%s\nwas\n%s", got, want)
			}
			keyed := 0
			for _, l := range strings.Split(want, "\n") {
				if f := strings.Fields(l); len(f) == 3 && len(f[2]) == 2*pageKeyLen {
					keyed++
				}
			}
			if keyed < 5 {
				t.Fatalf("%d owner rows with a key, too few to test:\n%s", keyed, want)
			}
			resumeBackfillEverywhere(t, s, "utxo_page_keys", func() {
				for _, pg := range []utxoPage{pUTXOPage, xUTXOPage} {
					if _, err := s.db.Exec(ctx, "UPDATE "+pg.addresses+" SET page_key = NULL"); err != nil {
						t.Fatal(err)
					}
				}
			}, dump, want)
		}
		checkPages(t, sp, pUTXOPage, uAddrA, uAddrB, uAddrC)
		checkPages(t, sx, xUTXOPage, uAddrA, uAddrB, uAddrC)
	})
}

// TestUTXOPagePlan checks the plans the engines make of a page: the
// address's range of the page index walked down from the cursor, no sort
// of the address's set, even with PostgreSQL's generic plan of a prepared
// statement; and that the appliers find a UTXO's owner rows by utxo_id.
func TestUTXOPagePlan(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		pg := s.db.Dialect() == database.Postgres
		fillPageRows(t, s, 30_000)
		explain := func(q string, args ...any) string {
			t.Helper()
			var plan []string
			collect := func(r *sql.Rows) error {
				cols, err := r.Columns()
				if err != nil {
					return err
				}
				vals := make([]any, len(cols))
				for i := range vals {
					vals[i] = new(sql.NullString)
				}
				if err := r.Scan(vals...); err != nil {
					return err
				}
				for _, v := range vals {
					plan = append(plan, v.(*sql.NullString).String)
				}
				return nil
			}
			err := s.db.Transact(ctx, func(tx *database.DB) error {
				if !pg {
					return tx.RunQuery(ctx, "EXPLAIN QUERY PLAN "+q, collect, args...)
				}
				if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
					return err
				}
				return tx.RunQuery(ctx, "EXPLAIN "+q, collect, args...)
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, l := range plan {
				if len(l) > 300 {
					plan[i] = l[:300] + "..."
				}
			}
			return strings.Join(plan, "\n")
		}
		has := func(what, plan string, want, not []string) {
			t.Helper()
			for _, w := range want {
				if !strings.Contains(plan, w) {
					t.Errorf("%s: the plan lacks %q:\n%s", what, w, plan)
				}
			}
			for _, n := range not {
				if strings.Contains(plan, n) {
					t.Errorf("%s: the plan has %q:\n%s", what, n, plan)
				}
			}
		}
		for _, p := range []utxoPage{pUTXOPage, xUTXOPage} {
			for _, after := range [][]byte{nil, make([]byte, pageKeyLen)} {
				q, args := p.pageQuery(uAddrA, after, 1024)
				plan := explain(q, args...)
				t.Logf("%s page (cursor %t):\n%s", p.utxos, after != nil, plan)
				if pg {
					has(p.utxos+" page", plan, []string{"Limit", "Index Only Scan Backward using " + p.addresses + "_page",
						"SubPlan", "Index Scan using " + p.utxos + "_pkey"}, []string{"Sort", "Seq Scan", "Hash"})
				} else {
					has(p.utxos+" page", plan, []string{"USING COVERING INDEX " + p.addresses + "_page",
						"CORRELATED SCALAR SUBQUERY", "sqlite_autoindex_" + p.utxos}, []string{"TEMP B-TREE", "SCAN"})
				}
			}
			plan := explain("UPDATE "+p.addresses+" SET page_key = NULL WHERE utxo_id IN (?, ?)",
				make([]byte, 32), make([]byte, 32))
			t.Logf("%s clear:\n%s", p.addresses, plan)
			if pg {
				has(p.addresses+" clear", plan, []string{p.addresses + "_utxo"}, []string{"Seq Scan"})
			} else {
				has(p.addresses+" clear", plan, []string{"USING INDEX " + p.addresses + "_utxo"}, nil)
			}
		}
	})
}

// fillPageRows writes n UTXOs of each chain straight into the tables,
// half of them uAddrA's, the others each of its own address, with their
// page keys, and has PostgreSQL take the tables' statistics: enough that
// a page's 1,025 ids are few of the table's, as in any store worth a
// page.
func fillPageRows(t *testing.T, s *sqlStore, n int) {
	t.Helper()
	ctx := context.Background()
	var pRows, xRows, owners [][]any
	for i := range n {
		id, txID := testID(fmt.Sprint("page utxo ", i)), testID(fmt.Sprint("page tx ", i))
		pRows = append(pRows, []any{id[:], txID[:], int64(0), "regular", nil, uAsset[:], int64(1), int64(0), int64(1), nil,
			[]byte{0}, txID[:], int64(i), 0, int64(0), false, nil, int64(i), nil, nil, nil, nil})
		xRows = append(xRows, []any{id[:], txID[:], int64(0), "regular", nil, uAsset[:], int64(1), int64(0), int64(1),
			[]byte{0}, txID[:], int64(i), 0, int64(0), nil, nil, nil, nil})
		addr := uAddrA
		if i%2 == 1 {
			addr = ids.ShortID{1, byte(i), byte(i >> 8)}
		}
		owners = append(owners, []any{addr[:], id[:], pageKey(uint64(i), 0, txID, 0)})
	}
	for _, w := range []struct {
		table string
		cols  []string
		rows  [][]any
	}{
		{"p_utxos", pUTXOColumns, pRows}, {"p_utxo_addresses", ownerColumns, owners},
		{"x_utxos", xUTXOTables.columns, xRows}, {"x_utxo_addresses", ownerColumns, owners},
	} {
		if _, err := s.db.BulkInsert(ctx, w.table, w.cols, w.rows, ""); err != nil {
			t.Fatal(err)
		}
		if s.db.Dialect() == database.Postgres {
			if _, err := s.db.Exec(ctx, "VACUUM ANALYZE "+w.table); err != nil {
				t.Fatal(err)
			}
		}
	}
}
