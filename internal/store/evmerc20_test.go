package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"math/big"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derive/erc20"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// erc20Blocks are blocks 0..4 of a chain named by salt with the ERC-20
// transfers of moves (block, token, from, to, value), in order.
func erc20Blocks(salt string, moves [][5]any) []*internal.EVMBlockData {
	var out []*internal.EVMBlockData
	parent := common.Hash{}
	for h := range uint64(5) {
		b := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: h, Hash: evmHash(salt, "block", h), ParentHash: parent,
			Timestamp: time.Unix(1_700_000_000+int64(h), 0).UTC(), GasLimit: 8_000_000}}
		parent = b.Hash
		for i, m := range moves {
			if m[0].(int) != int(h) {
				continue
			}
			b.Transfers = append(b.Transfers, internal.EVMTransfer{BlockNumber: h, TxHash: evmHash(salt, "tx", i),
				LogIndex: uint32(i), Token: m[1].(common.Address), Type: internal.ERC20, From: m[2].(common.Address),
				To: m[3].(common.Address), Value: big.NewInt(int64(m[4].(int)))})
		}
		out = append(out, b)
	}
	return out
}

var (
	tokA, tokB, tokC = evmAddr("token A"), evmAddr("token B"), evmAddr("token C")
	dave             = evmAddr("dave")
	zero             = common.Address{}
	erc20Moves       = [][5]any{
		{1, tokA, zero, alice, 100}, {1, tokB, zero, bob, 50},
		{2, tokA, alice, bob, 30}, {2, tokA, bob, carol, 10},
		{3, tokB, bob, alice, 20}, {3, tokA, alice, zero, 5}, {3, tokC, dave, alice, 5},
		{4, tokA, carol, alice, 10},
	}
)

// balancesText is holdings as "token:balance[!]" (! unexplained), in
// order, with the tokens named.
func balancesText(hs []ERC20Holding) string {
	names := map[common.Address]string{tokA: "A", tokB: "B", tokC: "C"}
	var parts []string
	for _, h := range hs {
		s := names[h.Token] + ":" + h.Balance.String()
		if h.Unexplained {
			s += "!"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// sortedText is the holdings' text in token address order (the list's).
func sortedText(pairs map[common.Address]string) string {
	keys := make([]common.Address, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b common.Address) int { return strings.Compare(string(a[:]), string(b[:])) })
	var parts []string
	for _, k := range keys {
		parts = append(parts, pairs[k])
	}
	return strings.Join(parts, " ")
}

// TestERC20Balances follows hand-computed balances through mints, transfers,
// a burn, a token whose logs send more than they gave (unexplained), a
// balance back to zero, at every block; applying again changes nothing,
// and the backfill writes the same rows from the stored transfers.
func TestERC20Balances(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		blocks := erc20Blocks("erc20", erc20Moves)
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, blocks, deriveEVM); err != nil {
			t.Fatal(err)
		}
		want := map[common.Address][]string{
			alice: {"", sortedText(map[common.Address]string{tokA: "A:100"}), sortedText(map[common.Address]string{tokA: "A:70"}),
				sortedText(map[common.Address]string{tokA: "A:65", tokB: "B:20", tokC: "C:5!"}),
				sortedText(map[common.Address]string{tokA: "A:75", tokB: "B:20", tokC: "C:5!"})},
			bob: {"", "B:50", sortedText(map[common.Address]string{tokA: "A:20", tokB: "B:50"}),
				sortedText(map[common.Address]string{tokA: "A:20", tokB: "B:30"}), sortedText(map[common.Address]string{tokA: "A:20", tokB: "B:30"})},
			carol: {"", "", "A:10", "A:10", ""},
			// dave's debit was clamped at zero: nothing listed but the flag.
			dave: {"", "", "", "C:0!", "C:0!"},
		}
		check := func(when string) {
			t.Helper()
			for addr, byBlock := range want {
				for n, w := range byBlock {
					hs, err := s.EVMERC20Balances(ctx, testEVMChain, addr, uint64(n), nil, nil, 10)
					if err != nil {
						t.Fatal(err)
					}
					if got := balancesText(hs); got != w {
						t.Errorf("%s: %s at block %d: %q, want %q", when, addr, n, got, w)
					}
				}
			}
		}
		check("applied")
		// Pages of one, and a filter by token.
		var pages []string
		var after *common.Address
		for {
			hs, err := s.EVMERC20Balances(ctx, testEVMChain, alice, 4, nil, after, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(hs) == 0 {
				break
			}
			pages = append(pages, balancesText(hs))
			after = &hs[0].Token
		}
		if got := strings.Join(pages, " "); got != want[alice][4] {
			t.Errorf("alice's pages of one: %q, want %q", got, want[alice][4])
		}
		hs, err := s.EVMERC20Balances(ctx, testEVMChain, alice, 3, []common.Address{tokB, evmAddr("other")}, nil, 10)
		if err != nil {
			t.Fatal(err)
		}
		if got := balancesText(hs); got != "B:20" {
			t.Errorf("alice's token B at 3: %q", got)
		}
		toks, err := s.EVMERC20Tokens(ctx, testEVMChain, []common.Address{tokA, tokB, tokC, dave})
		if err != nil {
			t.Fatal(err)
		}
		if len(toks) != 3 || toks[tokA].Supply.Int64() != 95 || toks[tokB].Supply.Int64() != 50 || toks[tokA].Block != 4 ||
			toks[tokA].Unexplained || !toks[tokC].Unexplained || toks[tokC].Reason == "" {
			t.Errorf("tokens: %+v", toks)
		}
		all := dumpERC20(t, s)
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, blocks[2:], deriveEVM); err != nil {
			t.Fatal(err)
		}
		if got := dumpERC20(t, s); got != all {
			t.Errorf("re-applying changed the rows:\n%s\nwant\n%s", got, all)
		}
		// The node flags token A: it stays flagged.
		if err := s.FlagERC20Token(ctx, testEVMChain, tokA, "balanceOf disagrees"); err != nil {
			t.Fatal(err)
		}
		if toks, err := s.EVMERC20Tokens(ctx, testEVMChain, []common.Address{tokA}); err != nil || !toks[tokA].Unexplained {
			t.Errorf("token A after FlagERC20Token: %+v, %v", toks, err)
		}
		if _, err := s.db.Exec(ctx, "UPDATE evm_erc20_tokens SET unexplained = 0, reason = '' WHERE token = ?", tokA[:]); err != nil {
			t.Fatal(err)
		}
		// A store indexed before: the backfill writes the same rows.
		for _, tbl := range []string{"evm_erc20_balances", "evm_erc20_holdings", "evm_erc20_tokens"} {
			if _, err := s.db.Exec(ctx, "DELETE FROM "+tbl); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.PutSettingIfAbsent(ctx, "backfill:evm_erc20_balances", nil); err != nil {
			t.Fatal(err)
		}
		if err := runBackfills(ctx, s); err != nil {
			t.Fatal(err)
		}
		if got := dumpERC20(t, s); got != all {
			t.Errorf("the backfill wrote\n%s\nthe appliers\n%s", got, all)
		}
		check("backfilled")
		// Applied a block a transaction, each batch after the first moves
		// pairs that have a row: the same rows.
		for _, tbl := range []string{"evm_erc20_balances", "evm_erc20_holdings", "evm_erc20_tokens"} {
			if _, err := s.db.Exec(ctx, "DELETE FROM "+tbl); err != nil {
				t.Fatal(err)
			}
		}
		cid, err := evmChainID(testEVMChain)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			if err := s.db.Transact(ctx, func(tx *database.DB) error {
				return erc20.Apply(ctx, &EVMTx{db: tx, cid: cid}, []*internal.EVMBlockData{b})
			}); err != nil {
				t.Fatal(err)
			}
		}
		if got := dumpERC20(t, s); got != all {
			t.Errorf("a block a transaction wrote\n%s\none batch\n%s", got, all)
		}
		check("a block a transaction")
	})
}

// TestERC20BackfillLargeBlocks backfills more transfers than one read
// (a block alone, and blocks cut across reads) and compares with the
// appliers.
func TestERC20BackfillLargeBlocks(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		var moves [][5]any
		for i := range 12_000 {
			moves = append(moves, [5]any{1 + i/9000, tokA, zero, evmAddr(fmt.Sprint("holder", i%500)), i + 1})
		}
		for i := range 6_000 {
			moves = append(moves, [5]any{3 + i%2, tokA, evmAddr(fmt.Sprint("holder", i%500)), bob, 1})
		}
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, erc20Blocks("big", moves), deriveEVM); err != nil {
			t.Fatal(err)
		}
		all := dumpERC20(t, s)
		for _, tbl := range []string{"evm_erc20_balances", "evm_erc20_holdings", "evm_erc20_tokens"} {
			if _, err := s.db.Exec(ctx, "DELETE FROM "+tbl); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.PutSettingIfAbsent(ctx, "backfill:evm_erc20_balances", nil); err != nil {
			t.Fatal(err)
		}
		// Chunks of many blocks: the reads bound the work.
		if err := runBackfillsChunked(ctx, s, 1<<40, 0); err != nil {
			t.Fatal(err)
		}
		if got := dumpERC20(t, s); got != all {
			t.Errorf("the backfill differs from the appliers (%d vs %d bytes)", len(got), len(all))
		}
	})
}

func dumpERC20(t *testing.T, s *sqlStore) string {
	t.Helper()
	var lines []string
	for _, q := range []string{
		"SELECT address, token, block_number, balance FROM evm_erc20_balances",
		"SELECT address, token, first_block, block_number, balance FROM evm_erc20_holdings",
		"SELECT token, block_number, supply, unexplained, reason FROM evm_erc20_tokens",
	} {
		lines = append(lines, queryLines(t, s.db, q)...)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// migratedBefore opens dsn's database, closed when t ends, with the
// store's migrations whose file names sort before prefix ("0043": up to
// 0042) applied.
func migratedBefore(t *testing.T, dsn, prefix string) *database.DB {
	t.Helper()
	db, err := database.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	names, err := fs.Glob(Migrations(), "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	before := fstest.MapFS{}
	for _, n := range names {
		if n < prefix {
			text, err := fs.ReadFile(Migrations(), n)
			if err != nil {
				t.Fatal(err)
			}
			before[n] = &fstest.MapFile{Data: text}
		}
	}
	if _, err := db.Migrate(context.Background(), before); err != nil {
		t.Fatal(err)
	}
	return db
}

// queryLines runs q and returns its rows, a line each: the columns
// separated by spaces, bytes in hex.
func queryLines(t *testing.T, db *database.DB, q string, args ...any) []string {
	t.Helper()
	var lines []string
	err := db.RunQuery(context.Background(), q, func(r *sql.Rows) error {
		cols, err := r.Columns()
		if err != nil {
			return err
		}
		vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := r.Scan(ptrs...); err != nil {
			return err
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = fmt.Sprintf("%x", b)
			}
			parts[i] = fmt.Sprint(v)
		}
		lines = append(lines, strings.Join(parts, " "))
		return nil
	}, args...)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestERC20HoldingsLayoutMigration migrates a store up to 0042, writes a
// holding, and migrates on: 0043 keeps the row, and lays the table out
// (SQLite: WITHOUT ROWID; PostgreSQL: fillfactor 70); 0052 prefixes the
// balance with its length.
func TestERC20HoldingsLayoutMigration(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := migratedBefore(t, dsn, "0043")
		a, tok := evmAddr("holder"), evmAddr("token")
		if _, err := db.Exec(ctx, "INSERT INTO evm_erc20_holdings (chain_id, address, token, first_block, block_number, balance) VALUES (?, ?, ?, 3, 7, ?)",
			int64(testEVMChain), a[:], tok[:], []byte{0x12, 0x34}); err != nil {
			t.Fatal(err)
		}
		applied, err := db.Migrate(ctx, Migrations())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(applied, 43) {
			t.Fatalf("applied %v, want 43 among them", applied)
		}
		var first, block int64
		var bal []byte
		if err := db.QueryRow(ctx, "SELECT first_block, block_number, balance FROM evm_erc20_holdings WHERE chain_id = ? AND address = ? AND token = ?",
			int64(testEVMChain), a[:], tok[:]).Scan(&first, &block, &bal); err != nil || first != 3 || block != 7 || fmt.Sprintf("%x", bal) != "021234" {
			t.Errorf("the holding after 0043: %d %d %x, %v", first, block, bal, err)
		}
		var layout string
		q := "SELECT sql FROM sqlite_master WHERE name = 'evm_erc20_holdings'"
		want := "WITHOUT ROWID"
		if db.Dialect() == database.Postgres {
			q = "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE oid = 'evm_erc20_holdings'::regclass"
			want = "fillfactor=70"
		}
		if err := db.QueryRow(ctx, q).Scan(&layout); err != nil || !strings.Contains(layout, want) {
			t.Errorf("evm_erc20_holdings after 0043: %q, %v; want %s", layout, err, want)
		}
	})
}

// TestERC20BalancesSkipZeros checks that zero balances, at the last block
// and at a past one (read from the history), are left out of a page
// without shortening it: a page of one is the first non-zero balance after
// the zeros.
func TestERC20BalancesSkipZeros(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		erin, sink := evmAddr("erin"), evmAddr("sink")
		toks := []common.Address{tokA, tokB, tokC}
		slices.SortFunc(toks, func(a, b common.Address) int { return a.Cmp(b) })
		first, second, last := toks[0], toks[1], toks[2]
		// Block 1: 10, 20, 30 in token order; block 2: the first two
		// sent away (zero); block 3: 5 of the first back.
		moves := [][5]any{
			{1, first, zero, erin, 10}, {1, second, zero, erin, 20}, {1, last, zero, erin, 30},
			{2, first, erin, sink, 10}, {2, second, erin, sink, 20},
			{3, first, sink, erin, 5},
		}
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, erc20Blocks("zeros", moves), deriveEVM); err != nil {
			t.Fatal(err)
		}
		page := func(n uint64, after *common.Address, limit int) []string {
			t.Helper()
			hs, err := s.EVMERC20Balances(ctx, testEVMChain, erin, n, nil, after, limit)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, h := range hs {
				out = append(out, fmt.Sprintf("%s:%s", h.Token.Hex()[:8], h.Balance))
			}
			return out
		}
		bal := func(tok common.Address, v string) string { return tok.Hex()[:8] + ":" + v }
		for _, c := range []struct {
			n     uint64
			after *common.Address
			limit int
			want  []string
		}{
			{1, nil, 10, []string{bal(first, "10"), bal(second, "20"), bal(last, "30")}},
			{2, nil, 1, []string{bal(last, "30")}},
			{2, nil, 10, []string{bal(last, "30")}},
			{4, nil, 1, []string{bal(first, "5")}},
			{4, &first, 1, []string{bal(last, "30")}},
			{4, &last, 1, nil},
		} {
			if got := page(c.n, c.after, c.limit); !slices.Equal(got, c.want) {
				t.Errorf("block %d after %v, limit %d: %v, want %v", c.n, c.after, c.limit, got, c.want)
			}
		}
	})
}

// TestERC20LatestInHoldingsMigration migrates a store up to 0051 with
// holdings of a zero, a small and a full 32-byte balance (bytes 0x00 and
// 0xff within), and a token's and the native coin's latest balances, and
// migrates on: 0052 rewrites each holding's balance in the sortable
// encoding, which the balance index orders as the amounts, and leaves
// evm_latest_balances the native coin's row only.
func TestERC20LatestInHoldingsMigration(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := migratedBefore(t, dsn, "0052")
		full := new(big.Int).SetBytes(append([]byte{0xff, 0x00, 0x00}, bytes.Repeat([]byte{0x80, 0x00, 0xff}, 29/3+1)[:29]...))
		tok := evmAddr("token")
		amounts := map[string]*big.Int{"zero": new(big.Int), "small": big.NewInt(0x1234), "full": full}
		for name, v := range amounts {
			a := evmAddr(name)
			if _, err := db.Exec(ctx, "INSERT INTO evm_erc20_holdings (chain_id, address, token, first_block, block_number, balance) VALUES (?, ?, ?, 1, 2, ?)",
				int64(testEVMChain), a[:], tok[:], bigBytes(v)); err != nil {
				t.Fatal(err)
			}
			for _, token := range [][]byte{nativeToken, tok[:]} {
				if _, err := db.Exec(ctx, "INSERT INTO evm_latest_balances (chain_id, token, address, block_number, balance) VALUES (?, ?, ?, 2, ?)",
					int64(testEVMChain), token, a[:], sortableAmount(v)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := db.Migrate(ctx, Migrations()); err != nil {
			t.Fatal(err)
		}
		got := queryLines(t, db, "SELECT address, balance FROM evm_erc20_holdings WHERE chain_id = ? AND token = ? AND balance >= ? ORDER BY balance",
			int64(testEVMChain), tok[:], sortableAmount(new(big.Int)))
		var want []string
		for _, name := range []string{"zero", "small", "full"} {
			a := evmAddr(name)
			want = append(want, fmt.Sprintf("%x %x", a[:], sortableAmount(amounts[name])))
		}
		if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
			t.Errorf("the holdings by balance after 0052:\n%s\nwant\n%s", g, w)
		}
		if tokens := queryLines(t, db, "SELECT DISTINCT token FROM evm_latest_balances"); len(tokens) != 1 || tokens[0] != "" {
			t.Errorf("evm_latest_balances' tokens after 0052: %q; want the native coin's only", tokens)
		}
	})
}

// TestERC20HistoryByTokenMigration migrates a store up to 0053 with
// history rows of two tokens and two holders, and migrates on: 0054 keeps
// every row, with one key that leads with the token (and no index
// besides it), which a token's holders are read in order by.
func TestERC20HistoryByTokenMigration(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := migratedBefore(t, dsn, "0054")
		var want []string
		for _, tok := range []common.Address{evmAddr("token b"), evmAddr("token a")} {
			for _, a := range []common.Address{evmAddr("holder 2"), evmAddr("holder 1")} {
				for block := int64(3); block >= 1; block-- {
					bal := []byte{byte(block), 0x42}
					if _, err := db.Exec(ctx, "INSERT INTO evm_erc20_balances (chain_id, address, token, block_number, balance) VALUES (?, ?, ?, ?, ?)",
						int64(testEVMChain), a[:], tok[:], block, bal); err != nil {
						t.Fatal(err)
					}
					want = append(want, fmt.Sprintf("%x %x %d %x", tok[:], a[:], block, bal))
				}
			}
		}
		if _, err := db.Migrate(ctx, Migrations()); err != nil {
			t.Fatal(err)
		}
		slices.Sort(want)
		got := queryLines(t, db, "SELECT token, address, block_number, balance FROM evm_erc20_balances ORDER BY chain_id, token, address, block_number")
		if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
			t.Errorf("the history after 0054:\n%s\nwant\n%s", g, w)
		}
		q := "SELECT name || ' ' || sql FROM sqlite_master WHERE tbl_name = 'evm_erc20_balances' AND sql IS NOT NULL"
		if db.Dialect() == database.Postgres {
			q = "SELECT indexdef FROM pg_indexes WHERE tablename = 'evm_erc20_balances' AND schemaname = current_schema()"
		}
		defs := queryLines(t, db, q)
		if len(defs) != 1 || !strings.Contains(strings.ReplaceAll(defs[0], " ", ""), "(chain_id,token,address,block_number)") {
			t.Errorf("evm_erc20_balances' key and indexes after 0054: %q; want one, on (chain_id, token, address, block_number)", defs)
		}
	})
}
