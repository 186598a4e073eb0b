package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/xchain"
)

func TestXChainKindOther(t *testing.T) {
	if xchainKindOther != xchain.KindOther {
		t.Fatalf("xchainKindOther %q, xchain.KindOther %q", xchainKindOther, xchain.KindOther)
	}
}

// TestBalanceColumnsBackfill clears the balance columns of the UTXO list
// rows (kind, locktime, stakeable_locktime: a store migrated to 0046) and
// runs the backfill, stopped after each possible chunk and resumed: it
// writes what the appliers write. EachUTXO reads the same UTXOs, with the
// same balance fields, from the rows as from the UTXO tables (columns
// cleared).
func TestBalanceColumnsBackfill(t *testing.T) {
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

		clear := func(s *sqlStore) {
			t.Helper()
			if _, err := s.db.Exec(ctx, "UPDATE address_utxos SET kind = NULL, locktime = NULL, stakeable_locktime = NULL"); err != nil {
				t.Fatal(err)
			}
		}
		for i, s := range []*sqlStore{sp, sx} {
			dump := func() string { return dumpRows(t, s, "address_utxos") }
			// The appliers' rows; the fresh store's own backfills (every
			// migration's) leave them.
			want := dump()
			if err := runBackfills(ctx, s); err != nil {
				t.Fatal(err)
			}
			if got := dump(); got != want {
				t.Fatalf("the backfills of a fresh store changed the rows:\n%s\nwas\n%s", got, want)
			}
			// What the scenarios hold, by hand: the P one a stakeable
			// LockOut (locktime 4,000,000,000) and stake outputs, both an
			// export; no row without its columns.
			wantIn := [][]string{{"stakeable_locktime=4000000000", "kind=stake ", "kind=exported "}, {"kind=exported ", "kind=regular "}}[i]
			for _, w := range wantIn {
				if !strings.Contains(want, w) {
					t.Errorf("store %d: no row with %q:\n%s", i, w, want)
				}
			}
			if strings.Contains(want, "kind=<nil>") || strings.Contains(want, "locktime=<nil>") {
				t.Fatalf("store %d: the appliers left a column NULL:\n%s", i, want)
			}

			// EachUTXO from the rows, then from the UTXO tables.
			fast := eachUTXODump(t, s)
			clear(s)
			if slow := eachUTXODump(t, s); slow != fast {
				t.Fatalf("store %d: EachUTXO from the list rows\n%s\nfrom the UTXO tables\n%s", i, fast, slow)
			}
			if strings.Count(fast, "\n") < 4 {
				t.Fatalf("store %d: too few UTXOs to test:\n%s", i, fast)
			}

			resumeBackfillEverywhere(t, s, "address_utxo_balances", func() { clear(s) }, dump, want)
		}
	})
}

// eachUTXODump is what EachUTXO gives a balance of every address of the
// lists, now and with the consumed ones, on the P- and X-chain: the
// fields getBalances reads.
func eachUTXODump(t *testing.T, s *sqlStore) string {
	t.Helper()
	ctx := context.Background()
	var lines []string
	for _, chain := range []internal.Chain{internal.PChain, internal.XChain} {
		q := UTXOQuery{Chain: chain, AnyOwner: true, NoOwners: true}
		err := s.db.RunQuery(ctx, "SELECT DISTINCT address FROM address_utxos WHERE chain = ?", func(r *sql.Rows) error {
			var a []byte
			if err := r.Scan(&a); err != nil {
				return err
			}
			id, err := ids.ToShortID(a)
			q.Addresses = append(q.Addresses, id)
			return err
		}, string(chain))
		if err != nil {
			t.Fatal(err)
		}
		if len(q.Addresses) == 0 {
			continue
		}
		for _, spent := range []bool{false, true} {
			q.IncludeSpent = spent
			err := s.EachUTXO(ctx, q, func(u *ListedUTXO) error {
				lines = append(lines, fmt.Sprintf("%s spent=%t %s origin=%s kind=%s asset=%s amount=%d locktime=%d stakeable=%d created=%d spent=%t consumed=%d staked=%t stake=%d-%d",
					chain, spent, u.ID, u.Origin, u.Kind, u.AssetID, u.Amount, u.Locktime, u.StakeableLocktime, u.CreatedTime,
					u.Spent(), u.ConsumedTime, u.Staked, u.StakeStart, u.StakeEnd))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}
