package store

import (
	"context"
	"database/sql"
	"math/big"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/xchain"
)

// planSmallTables are the tables a per-batch statement may scan whole on
// SQLite: ones that do not grow with the chains.
var planSmallTables = map[string]bool{
	"settings": true, "cursors": true, "evm_chains": true, "metric_chains": true,
	"webhooks": true, "api_keys": true, "avaindex_leases": true, "schema_migrations": true,
}

// planScanRE matches a plan step that reads a whole table (SCAN t, SCAN t
// AS a, SCAN t USING [COVERING] INDEX i: each reads every row) or builds
// a temporary index of one (AUTOMATIC [PARTIAL] COVERING INDEX): as the
// table grows, a statement run per batch with such a step makes a sync
// from empty quadratic.
var planScanRE = regexp.MustCompile(`^(SCAN|SEARCH) (\w+)(?: AS (\w+))?(.*)$`)

// emptinessRE matches the statements that ask whether a table has any row,
// whose scan stops at the first.
var emptinessRE = regexp.MustCompile(`^SELECT COUNT\(\*\) FROM \(SELECT 1 FROM [^()]* LIMIT 1\)( AS)? \w+$`)

// chainOnlyRE matches a search by a chain id alone (and an ERC type):
// every row of a chain's, as much a scan as SCAN is.
var chainOnlyRE = regexp.MustCompile(`\((chain_id=\?)( AND erc_type=\?)?\)$`)

// boundsRE matches a statement reading a least and a greatest value, one
// subquery each, which SQLite reads with one seek each.
var boundsRE = regexp.MustCompile(`^SELECT \(SELECT MIN\(\w+\) FROM [^()]*\), \(SELECT MAX\(\w+\) FROM [^()]*\)$`)

// limitRE matches a statement ending with a LIMIT.
var limitRE = regexp.MustCompile(`(?i)\bLIMIT\s+(\?|\d+)\s*$`)

// TestSQLitePlans runs the appliers of every chain, their rederives, the
// backfills and the address history's reads on a SQLite store, records
// each statement they run (database.DB.Trace), and checks that SQLite
// (the bundled library, as the store runs it: no statistics, since
// avaindex never runs ANALYZE on SQLite) plans none of them as a scan of
// a table that grows with the chain. The store's data is small, but
// without statistics SQLite's plan does not depend on it.
func TestSQLitePlans(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	type stmt struct {
		args []any
		// once: run once per rederive or backfill, not per batch or
		// chunk, so a scan there costs one read of the table.
		once bool
	}
	stmts := map[string]*stmt{}
	var order []string
	once := false
	trace := func(s *sqlStore) {
		s.db.Trace(func(q string, args []any) {
			mu.Lock()
			defer mu.Unlock()
			if st, ok := stmts[q]; ok {
				st.once = st.once && once
				return
			}
			order = append(order, q)
			stmts[q] = &stmt{args: slices.Clone(args), once: once}
		})
	}
	setOnce := func(v bool) { mu.Lock(); once = v; mu.Unlock() }

	// The three chains' atomic movements, then EVM blocks, a rederive
	// of each chain and every backfill, on one store.
	s := openStore(t, dbtest.SQLite(t))
	trace(s)
	sc := newAtomicScenario(t)
	for _, c := range []byte{'P', 'X', 'C'} {
		sc.apply(t, s, c, false)
	}
	// A webhook, so that the EVM webhook applier matches the batch's
	// addresses.
	if err := s.CreateWebhook(ctx, testWebhook("w", "k", testEVMChain, time.Unix(1_700_000_000, 0)),
		[]string{lower(alice), lower(bob)}, testLimits); err != nil {
		t.Fatal(err)
	}
	bs := makeEVMBlocks("plans", 10)
	if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs, deriveEVM); err != nil {
		t.Fatal(err)
	}
	batch, err := pchain.Batch(sc.p)
	if err != nil {
		t.Fatal(err)
	}
	rederive := func(c internal.Chain, run func() (Rederive, error)) {
		t.Helper()
		setOnce(true)
		if err := s.RequestRederive(ctx, c); err != nil {
			t.Fatal(err)
		}
		if _, err := s.StartRederive(ctx, c); err != nil {
			t.Fatal(err)
		}
		setOnce(false)
		if _, err := run(); err != nil {
			t.Fatalf("rederive of the %s-chain: %v", c, err)
		}
	}
	rederive(internal.PChain, func() (Rederive, error) { return s.RederivePBlocks(ctx, batch, deriveP) })
	rederive(internal.XChain, func() (Rederive, error) { return s.RederiveXBlocks(ctx, xchain.BlocksData(sc.x), deriveX) })
	rederive(internal.CChain, func() (Rederive, error) { return s.RederiveCBlocks(ctx, 0, uint64(len(sc.c)-1), sc.c, deriveC) })
	// Hot reads: the address histories' pages.
	for _, c := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
		for _, desc := range []bool{false, true} {
			q := AddressTxQuery{Chain: c, Addresses: []ids.ShortID{uAddrA, uAddrB}, Desc: desc, Limit: 2}
			page, err := s.AddressTxs(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > 0 {
				q.After = &page[len(page)-1].Key
				if _, err := s.AddressTxs(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if _, err := s.PUTXOsOf(ctx, []ids.ShortID{uAddrA, uAddrB}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []common.Address{alice, bob} {
		if _, err := s.EVMAddressTxs(ctx, testEVMChain, a, false, BlockRange{}, false, nil, 5); err != nil {
			t.Fatal(err)
		}
		if _, err := s.EVMAddressHistory(ctx, testEVMChain, a, BlockRange{}, false, nil, 5); err != nil {
			t.Fatal(err)
		}
		if _, err := s.EVMAddressInternalTxs(ctx, testEVMChain, a, BlockRange{}, nil, 5); err != nil {
			t.Fatal(err)
		}
		if _, err := s.EVMAddressTransfers(ctx, testEVMChain, a, internal.ERC20, BlockRange{}, nil, 5); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.EVMTokenTransfers(ctx, testEVMChain, token20, BlockRange{}, nil, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EVMLatestTxs(ctx, testEVMChain, nil, nil, 5); err != nil {
		t.Fatal(err)
	}
	for _, c := range []internal.Chain{internal.PChain, internal.XChain} {
		if _, err := s.ListUTXOs(ctx, UTXOQuery{Chain: c, Addresses: []ids.ShortID{uAddrA, uAddrB}}, nil, 5); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range []common.Address{alice, bob} {
		if _, err := s.EVMERC20Balances(ctx, testEVMChain, a, 9, nil, nil, 5); err != nil {
			t.Fatal(err)
		}
		if _, err := s.NFTsOwned(ctx, testEVMChain, a, nil, nil, 5); err != nil {
			t.Fatal(err)
		}
		if _, err := s.NFTHoldings(ctx, testEVMChain, a, nil, nil, 5); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.NFTTokens(ctx, testEVMChain, nft721, nil, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ICMMessages(ctx, internal.ICMFilter{}, nil, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimNFTWork(ctx, time.Unix(1_700_000_100, 0), time.Minute, 5); err != nil {
		t.Fatal(err)
	}
	start, end := int64(1_700_000_001), int64(1_700_000_002)
	for _, q := range []BlockQuery{{Chain: internal.PChain, Desc: true}, {Chain: internal.PChain, Start: &start, End: &end},
		{Chain: internal.XChain, Start: &start, End: &end}, {Chain: internal.CChain, EVMChainID: testEVMChain, Start: &start, End: &end}} {
		if _, err := s.BlockSummaries(ctx, q, nil, 10); err != nil {
			t.Fatal(err)
		}
	}

	// The backfills, as runBackfills runs them: their parts' bounds are
	// read once, a part of one position (a step) is filled once, and the
	// others a chunk at a time.
	for _, name := range Backfills {
		if err := s.PutSettingIfAbsent(ctx, BackfillKey(name), nil); err != nil {
			t.Fatal(err)
		}
	}
	setOnce(true)
	pending, err := s.PendingBackfills(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range pending {
		setOnce(true)
		parts, err := s.BackfillParts(ctx, b.Name, backfillDerivations)
		if err != nil {
			t.Fatal(err)
		}
		for ; b.Part < len(parts); b.Part, b.Next = b.Part+1, 0 {
			p := parts[b.Part]
			setOnce(p.Hi-p.Lo == 1)
			for b.Next = max(b.Next, p.Lo); b.Next < p.Hi; {
				if b, err = s.FillBackfill(ctx, b, p, b.Next+2); err != nil {
					t.Fatal(err)
				}
			}
		}
		setOnce(true)
		if err := s.FinishBackfill(ctx, b.Name); err != nil {
			t.Fatal(err)
		}
	}
	setOnce(false)
	// The Looking Glass's NFT holders over a range: the spans that
	// overlap it (their backfill is done).
	if _, err := s.NFTHoldersOver(ctx, BalanceQuery{ChainID: testEVMChain, Token: &nft721, From: 1_700_000_000, To: 1 << 40,
		Min: big.NewInt(1), Mode: AnyTime, Max: 100}); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(order, func(q string) bool { return strings.Contains(q, "FROM nft_spans") && strings.Contains(q, "to_block >") }) {
		t.Error("NFTHoldersOver read no spans")
	}

	// Staking txs, on a P-chain of their own.
	s2 := openStore(t, dbtest.SQLite(t))
	trace(s2)
	rng := rand.NewChaCha8([32]byte{1})
	if err := applyPBlocks(ctx, s2, benchBlocks(t, rng, 0, 8)); err != nil {
		t.Fatal(err)
	}

	// UTXOs spent batches after they were made, staking and rewards, on a
	// third P-chain.
	s3 := openStore(t, dbtest.SQLite(t))
	trace(s3)
	usc := newUTXOScenario(t)
	mustApply(t, s3, usc.blocks[:3])
	mustApply(t, s3, usc.blocks[3:])

	s.db.Trace(nil)
	s2.db.Trace(nil)
	s3.db.Trace(nil)
	tables := map[string]bool{}
	if err := s.db.RunQuery(ctx, "SELECT name FROM sqlite_master WHERE type = 'table'", func(r *sql.Rows) error {
		var n string
		err := r.Scan(&n)
		tables[n] = true
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, q := range order {
		if !planned(q) {
			continue
		}
		var steps []string
		err := s.db.RunQuery(ctx, "EXPLAIN QUERY PLAN "+q, func(r *sql.Rows) error {
			var id, parent, unused int
			var detail string
			if err := r.Scan(&id, &parent, &unused, &detail); err != nil {
				return err
			}
			steps = append(steps, detail)
			return nil
		}, stmts[q].args...)
		if err != nil {
			t.Errorf("EXPLAIN QUERY PLAN: %v", err)
			continue
		}
		// A statement with a LIMIT whose plan sorts nothing reads its
		// index in order and stops at the limit.
		walk := limitRE.MatchString(q) && !slices.ContainsFunc(steps, func(s string) bool { return strings.Contains(s, "TEMP B-TREE") })
		for _, step := range steps {
			if bad := badStep(tables, aliases(tables, q), walk, step); bad != "" {
				switch {
				case emptinessRE.MatchString(q), boundsRE.MatchString(q):
					// Reads one row, or two, at most.
				case stmts[q].once:
					t.Logf("once per rederive or backfill: "+bad+" in\n  %s", oneLine(q))
				default:
					t.Errorf("%s in the plan of\n  %s\nplan:\n  %s", bad, oneLine(q), strings.Join(steps, "\n  "))
				}
				break
			}
		}
	}
	t.Logf("%d statements planned", len(order))
}

// planned reports whether q is a statement SQLite plans: not a PRAGMA,
// transaction control or schema change.
func planned(q string) bool {
	f := strings.Fields(strings.TrimLeft(q, "( \t\n"))
	if len(f) == 0 {
		return false
	}
	switch strings.ToUpper(f[0]) {
	case "SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "REPLACE":
		return true
	}
	return false
}

// badStep returns what is wrong with a plan step, or "" (walk: the
// statement reads in order up to a LIMIT). SQLite names a
// table by its alias when it has one, so as names maps an alias to the
// tables it stands for (an alias may stand for several in a UNION).
func badStep(tables map[string]bool, as map[string][]string, walk bool, step string) string {
	m := planScanRE.FindStringSubmatch(step)
	if m == nil {
		return ""
	}
	names := as[m[2]]
	if tables[m[2]] {
		names = append(names, m[2])
	}
	for _, name := range names {
		switch {
		case planSmallTables[name]:
		case strings.Contains(step, "AUTOMATIC"):
			return "a temporary index of " + name
		case m[1] == "SCAN" && walk && strings.Contains(step, " USING "):
			// An index read in order up to a LIMIT: a page.
		case m[1] == "SCAN":
			return "a scan of " + name
		case chainOnlyRE.MatchString(step) && !walk:
			return "a search of " + name + " by chain alone"
		}
	}
	return ""
}

// aliasRE matches a name and what may follow it in a FROM clause: an
// alias, AS and an alias, or a keyword.
var aliasRE = regexp.MustCompile(`\b(\w+)\s+(?:AS\s+)?(\w+)\b`)

// aliases maps each alias q gives a table of tables to the tables it
// stands for.
func aliases(tables map[string]bool, q string) map[string][]string {
	as := map[string][]string{}
	for i := 0; i < len(q); {
		loc := aliasRE.FindStringSubmatchIndex(q[i:])
		if loc == nil {
			break
		}
		name, alias := q[i+loc[2]:i+loc[3]], q[i+loc[4]:i+loc[5]]
		if tables[name] && !sqlKeywords[strings.ToUpper(alias)] && !slices.Contains(as[alias], name) {
			as[alias] = append(as[alias], name)
		}
		i += loc[3] // the alias may be a table name too
	}
	return as
}

// sqlKeywords are the words that can follow a table's name in a FROM
// clause or an INSERT, UPDATE or DELETE.
var sqlKeywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`ON USING WHERE JOIN CROSS INNER LEFT RIGHT FULL OUTER NATURAL GROUP
		ORDER LIMIT SET VALUES SELECT UNION EXCEPT INTERSECT HAVING WINDOW INDEXED NOT DEFAULT RETURNING
		DO FROM AS AND OR`) {
		sqlKeywords[k] = true
	}
}

func oneLine(q string) string { return strings.Join(strings.Fields(q), " ") }
