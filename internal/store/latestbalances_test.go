package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// latestScenario is six blocks (block h at 1_700_000_000 + 10h) of native
// balances and ERC-20 transfers of tokA, worked by hand:
//
//	native   b0   b1   b2   b3   b4   b5
//	alice   100        50        100        (down and up again)
//	bob          100                        (exactly a minimum of 100)
//	carol   200             0               (reaches zero)
//	dave          99                  150   (rises at the end)
//	erin                  +100              (a delta from zero)
//
//	tokA: b1 mint 100 to alice; b2 alice→bob 100; b3 mint 50 to alice;
//	b4 bob burns 40: alice 0, 0, 50; bob 100, 60.
func latestScenario() []*internal.EVMBlockData {
	erin := evmAddr("erin")
	bal := func(a common.Address, v int64) internal.EVMBalanceChange {
		return internal.EVMBalanceChange{Address: a, Balance: big.NewInt(v)}
	}
	natives := [][]internal.EVMBalanceChange{
		{bal(alice, 100), bal(carol, 200)},
		{bal(bob, 100), bal(dave, 99)},
		{bal(alice, 50)},
		{bal(carol, 0), {Address: erin, Delta: big.NewInt(100)}},
		{bal(alice, 100)},
		{bal(dave, 150)},
	}
	moves := map[int][][3]any{
		1: {{zero, alice, 100}}, 2: {{alice, bob, 100}}, 3: {{zero, alice, 50}}, 4: {{bob, zero, 40}},
	}
	var out []*internal.EVMBlockData
	parent := common.Hash{}
	for h := range uint64(6) {
		b := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: h, Hash: evmHash("latest", "block", h), ParentHash: parent,
			Timestamp: time.Unix(1_700_000_000+10*int64(h), 0).UTC(), GasLimit: 8_000_000}, Traced: true}
		parent = b.Hash
		b.Balances = natives[h]
		for i, m := range moves[int(h)] {
			b.Transfers = append(b.Transfers, internal.EVMTransfer{BlockNumber: h, TxHash: evmHash("latest", "tx", h, i),
				LogIndex: uint32(i), Token: tokA, Type: internal.ERC20, From: m[0].(common.Address),
				To: m[1].(common.Address), Value: big.NewInt(int64(m[2].(int)))})
		}
		out = append(out, b)
	}
	return out
}

// holdersString is a BalanceHolders answer with names for the scenario's
// addresses: "alice=100 bob=60".
func holdersString(list []AddressAmount) string {
	names := map[common.Address]string{alice: "alice", bob: "bob", carol: "carol", dave: "dave", evmAddr("erin"): "erin"}
	var parts []string
	for _, x := range list {
		parts = append(parts, fmt.Sprintf("%s=%s", names[x.Address], x.Amount))
	}
	return strings.Join(parts, " ")
}

// TestLookingGlassLatestBalances: the latest balances the appliers keep
// (evm_latest_balances) are the scenario's, BalanceHolders answers from
// them what the hand-worked scenario says, and, for every range of its
// blocks, minimum and mode, the same as the replay of the history (what
// it answers while the table's backfill is pending).
func TestLookingGlassLatestBalances(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dbtestFresh(t, dsn))
		if err := runBackfills(ctx, s); err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, latestScenario(), deriveEVM); err != nil {
			t.Fatal(err)
		}
		// The table, by hand: token (empty: native), address, block, and
		// the sortable balance (length byte, magnitude).
		var rows []string
		names := map[string]string{string(alice[:]): "alice", string(bob[:]): "bob", string(carol[:]): "carol",
			string(dave[:]): "dave", string(evmAddr("erin").Bytes()): "erin", "": "native", string(tokA[:]): "tokA"}
		// The native coin's rows are evm_latest_balances', the tokens'
		// evm_erc20_holdings' (0052): a token's row in both would show
		// twice.
		err := s.db.RunQuery(ctx, `SELECT token, address, block_number, balance FROM evm_latest_balances WHERE chain_id = ?
			UNION ALL SELECT token, address, block_number, balance FROM evm_erc20_holdings WHERE chain_id = ?`, func(r *sql.Rows) error {
			var (
				tok, addr, bal []byte
				block          int64
			)
			if err := r.Scan(&tok, &addr, &block, &bal); err != nil {
				return err
			}
			rows = append(rows, fmt.Sprintf("%s %s %d %x", names[string(tok)], names[string(addr)], block, bal))
			return nil
		}, int64(testEVMChain), int64(testEVMChain))
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(rows)
		want := []string{
			"native alice 4 0164", "native bob 1 0164", "native carol 3 00", "native dave 5 0196", "native erin 3 0164",
			"tokA alice 3 0132", "tokA bob 4 013c",
		}
		if got, w := strings.Join(rows, "\n"), strings.Join(want, "\n"); got != w {
			t.Fatalf("the latest balances:\n%s\nwant\n%s", got, w)
		}

		ts := func(h int64) int64 { return 1_700_000_000 + 10*h }
		native := BalanceQuery{ChainID: testEVMChain, Max: 100}
		a := tokA
		erc20 := BalanceQuery{ChainID: testEVMChain, Token: &a, Max: 100}
		ask := func(q BalanceQuery, mode BalanceMode, from, to, min int64) BalanceQuery {
			q.Mode, q.From, q.To, q.Min = mode, ts(from), ts(to), big.NewInt(min)
			return q
		}
		for _, c := range []struct {
			q    BalanceQuery
			want string
		}{
			{ask(native, Latest, 5, 5, 100), "alice=100 bob=100 dave=150 erin=100"},
			{ask(native, Latest, 5, 5, 0), "alice=100 bob=100 carol=0 dave=150 erin=100"},
			{ask(native, Latest, 5, 5, 101), "dave=150"},
			{ask(native, Latest, 3, 3, 100), "bob=100 erin=100"}, // ends before the last block: the replay
			{ask(native, AllTime, 1, 5, 100), "bob=100"},
			{ask(native, AllTime, 4, 5, 100), "alice=100 bob=100 erin=100"},
			{ask(native, AnyTime, 1, 3, 100), "alice=50 bob=100 carol=0 erin=100"},
			{ask(erc20, Latest, 5, 5, 60), "bob=60"},
			{ask(erc20, Latest, 5, 5, 50), "alice=50 bob=60"},
			{ask(erc20, AllTime, 2, 5, 50), "bob=60"},
			{ask(erc20, AllTime, 2, 5, 61), ""},
		} {
			got, err := s.BalanceHolders(ctx, c.q)
			if err != nil {
				t.Fatal(err)
			}
			// By address ascending; compared here by name.
			if !slices.IsSortedFunc(got, func(x, y AddressAmount) int { return bytes.Compare(x.Address[:], y.Address[:]) }) {
				t.Errorf("%+v: not by address: %s", c.q, holdersString(got))
			}
			names := strings.Fields(holdersString(got))
			slices.Sort(names)
			if strings.Join(names, " ") != c.want {
				t.Errorf("%+v: %q, want %q", c.q, strings.Join(names, " "), c.want)
			}
		}
		// NoAmounts: the same addresses from the latest balances, with
		// no amount.
		for _, q := range []BalanceQuery{ask(native, Latest, 5, 5, 100), ask(erc20, Latest, 5, 5, 50), ask(native, Latest, 5, 5, 0)} {
			want, err := s.BalanceHolders(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			q.NoAmounts = true
			got, err := s.BalanceHolders(ctx, q)
			if err != nil || len(got) != len(want) || len(got) == 0 {
				t.Fatalf("%+v: %d holders, %v; want %d", q, len(got), err, len(want))
			}
			for i := range got {
				if got[i].Address != want[i].Address || got[i].Amount != nil {
					t.Errorf("%+v: holder %d: %s %v, want %s and no amount", q, i, got[i].Address, got[i].Amount, want[i].Address)
				}
			}
		}
		// More than Max: refused on the fast path as by the replay.
		q := ask(native, Latest, 5, 5, 100)
		q.Max = 3
		if _, err := s.BalanceHolders(ctx, q); !errors.Is(err, derrors.InvalidArgument) {
			t.Errorf("4 holders, Max 3: %v", err)
		}
		q.Max = 4
		if got, err := s.BalanceHolders(ctx, q); err != nil || len(got) != 4 {
			t.Errorf("4 holders, Max 4: %s, %v", holdersString(got), err)
		}

		// Every range, minimum and mode: the table's answer, then the
		// replay's (the backfill pending: the table is not trusted).
		answers := func() string {
			var b strings.Builder
			for _, base := range []BalanceQuery{native, erc20} {
				for from := int64(0); from <= 5; from++ {
					for to := from; to <= 6; to++ {
						for _, min := range []int64{0, 1, 49, 50, 60, 99, 100, 101, 150, 200} {
							for _, mode := range []BalanceMode{AnyTime, AllTime, Latest} {
								q := ask(base, mode, from, to, min)
								got, err := s.BalanceHolders(ctx, q)
								fmt.Fprintf(&b, "%v %d %d %d %d: %s %v\n", base.Token != nil, mode, from, to, min, holdersString(got), err)
							}
						}
					}
				}
			}
			return b.String()
		}
		fast := answers()
		if err := s.PutSettingIfAbsent(ctx, BackfillKey("evm_latest_balances"), nil); err != nil {
			t.Fatal(err)
		}
		if slow := answers(); slow != fast {
			t.Errorf("from evm_latest_balances:\n%s\nreplayed:\n%s", fast, slow)
		}
	})
}

// TestLatestBalancesBackfill: the evm_latest_balances backfill, stopped
// after each chunk and resumed, writes what the appliers wrote.
func TestLatestBalancesBackfill(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dbtestFresh(t, dsn))
		if err := runBackfills(ctx, s); err != nil {
			t.Fatal(err)
		}
		blocks := latestScenario()
		// Addresses over the whole key space, so that every chunk (a
		// sixteenth of it) has some. Their tokB transfers write
		// evm_erc20_holdings, not this table (0052).
		for i := range 40 {
			a := evmAddr(fmt.Sprint("spread", i))
			blocks[i%6].Balances = append(blocks[i%6].Balances, internal.EVMBalanceChange{Address: a, Balance: big.NewInt(int64(i * 1000))})
			if i%3 == 0 {
				blocks[5].Balances = append(blocks[5].Balances, internal.EVMBalanceChange{Address: a, Balance: big.NewInt(int64(i))})
			}
			blocks[i%5+1].Transfers = append(blocks[i%5+1].Transfers, internal.EVMTransfer{BlockNumber: uint64(i%5 + 1),
				TxHash: evmHash("spread", i), LogIndex: uint32(100 + i), Token: tokB, Type: internal.ERC20, From: zero, To: a,
				Value: big.NewInt(int64(i + 1))})
		}
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, blocks, deriveEVM); err != nil {
			t.Fatal(err)
		}
		dump := func() string { return dumpRows(t, s, "evm_latest_balances") }
		want := dump()
		if strings.Count(want, "\n") < 40 || strings.Contains(want, fmt.Sprintf("%x", tokB[:])) {
			t.Fatalf("too few rows to test:\n%s", want)
		}
		resumeBackfillEverywhere(t, s, "evm_latest_balances", func() {
			if _, err := s.db.Exec(ctx, "DELETE FROM evm_latest_balances"); err != nil {
				t.Fatal(err)
			}
		}, dump, want)
	})
}

// TestLatestBalancesLayoutMigration migrates a store up to 0050, writes
// two latest balances, and migrates on: on SQLite 0051 lays the table out
// WITHOUT ROWID, and the rows and the balance index stay as they were.
func TestLatestBalancesLayoutMigration(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := migratedBefore(t, dsn, "0051")
		tok, a, b := nativeToken, evmAddr("a"), evmAddr("b")
		for _, r := range [][]any{
			{int64(testEVMChain), tok, a[:], int64(3), sortableAmount(big.NewInt(500))},
			{int64(testEVMChain), tok, b[:], int64(4), sortableAmount(big.NewInt(70))},
		} {
			if _, err := db.Exec(ctx, "INSERT INTO evm_latest_balances (chain_id, token, address, block_number, balance) VALUES (?, ?, ?, ?, ?)", r...); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Migrate(ctx, Migrations()); err != nil {
			t.Fatal(err)
		}
		got := queryLines(t, db, "SELECT address, block_number, balance FROM evm_latest_balances WHERE chain_id = ? AND token = ? AND balance >= ?",
			int64(testEVMChain), tok, sortableAmount(big.NewInt(100)))
		if want := fmt.Sprintf("%x 3 %x", a[:], sortableAmount(big.NewInt(500))); strings.Join(got, ";") != want {
			t.Errorf("balances of at least 100 after 0051: %q; want %q", got, want)
		}
		if db.Dialect() != database.SQLite {
			return
		}
		var layout string
		if err := db.QueryRow(ctx, "SELECT sql FROM sqlite_master WHERE name = 'evm_latest_balances'").Scan(&layout); err != nil ||
			!strings.Contains(layout, "WITHOUT ROWID") {
			t.Errorf("evm_latest_balances after 0051: %q, %v; want WITHOUT ROWID", layout, err)
		}
		plan := strings.Join(queryLines(t, db, "EXPLAIN QUERY PLAN SELECT address, balance FROM evm_latest_balances WHERE chain_id = 1 AND token = x'00' AND balance >= x'01'"), ";")
		if !strings.Contains(plan, "COVERING INDEX evm_latest_balances_by_balance") {
			t.Errorf("the balance read after 0051: %q; want the covering balance index", plan)
		}
	})
}
