package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/chainmetrics"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// metricChain builds a P-chain whose block 0 is an Apricot block (the
// genesis slot) and whose block i (i >= 1) is a Banff standard block at
// times[i-1] with counts[i-1] plain txs.
func metricPChain(t testing.TB, salt string, times []time.Time, counts []int) []*pchain.Block {
	t.Helper()
	specs := []pSpec{{typ: "ApricotStandardBlock"}}
	for i, ts := range times {
		sp := pSpec{typ: "BanffStandardBlock", time: ts}
		for j := range counts[i] {
			sp.txs = append(sp.txs, plainTx(t, fmt.Sprintf("%s %d/%d", salt, i, j)))
		}
		specs = append(specs, sp)
	}
	return pChain(t, 0, testID(salt, "genesis"), specs...)
}

// utc is a time of 2024-03, UTC.
func utc(day, hour, minute, sec int) time.Time {
	return time.Date(2024, 3, day, hour, minute, sec, 0, time.UTC)
}

// dumpMetrics renders every rollup and the chain states, for comparisons.
func dumpMetrics(t *testing.T, s *sqlStore) string {
	t.Helper()
	ctx := context.Background()
	var out string
	chains, err := s.MetricChains(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chains {
		c.UpdatedAt = 0
		out += fmt.Sprintf("%+v\n", c)
		for _, p := range chainmetrics.Periods {
			rs, err := s.MetricRollups(ctx, c.Key, p, 0, 1<<40)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				out += fmt.Sprintf("%s %+v\n", p, r)
			}
		}
	}
	var n int64
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM metric_addresses").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return out + fmt.Sprint("address rows ", n)
}

// The rollups of blocks whose values are worked out by hand: the first day
// after the genesis, a day boundary crossed by a second, a day without
// blocks, UTC days (not the machine's zone).
func TestMetricsRollup(t *testing.T) {
	times := []time.Time{
		utc(9, 22, 0, 0),    // 1: first after the genesis, 2 txs
		utc(9, 23, 59, 50),  // 2: 1 tx
		utc(10, 0, 0, 10),   // 3: the next day, 20 s later, 3 txs
		utc(10, 12, 0, 0),   // 4: no tx
		utc(12, 6, 0, 0),    // 5: after a day without blocks, 4 txs
		utc(12, 6, 0, 0),    // 6: the same second, 1 tx
		utc(12, 6, 59, 59),  // 7: 0 txs
		utc(31, 23, 59, 59), // 8: a Sunday, the end of the month, 2 txs
	}
	counts := []int{2, 1, 3, 0, 4, 1, 0, 2}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		blocks := metricPChain(t, "rollup", times, counts)
		s := openStore(t, dsn)
		mustApply(t, s, blocks[:3])
		mustApply(t, s, blocks[3:])

		day := func(d int) chainmetrics.Rollup {
			rs, err := s.MetricRollups(ctx, PMetricKey, chainmetrics.Day, utc(d, 0, 0, 0).Unix(), utc(d, 0, 0, 0).Unix())
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 1 {
				t.Fatalf("day %d: %d rollups, want 1", d, len(rs))
			}
			return rs[0]
		}
		type want struct {
			d                     int
			txs, blocks, cumTxs   int64
			avgTPS, maxTPS        float64
			firstTS, lastTS, prev int64
		}
		for _, w := range []want{
			// 3 txs over 22:00:00..23:59:50 (the first day: from its first
			// block), 7190 s; the first block has 2 txs over 1 s.
			{9, 3, 2, 3, 3.0 / 7190, 2, utc(9, 22, 0, 0).Unix(), utc(9, 23, 59, 50).Unix(), 0},
			// 3 txs from the last block of the 9th to 12:00, 43210 s; 3
			// txs over 20 s.
			{10, 3, 2, 6, 3.0 / 43210, 3.0 / 20, utc(10, 0, 0, 10).Unix(), utc(10, 12, 0, 0).Unix(), utc(9, 23, 59, 50).Unix()},
			// 5 txs from 12:00 on the 10th to 06:59:59 on the 12th:
			// 154799 s; 4 txs over 151200 s, then 1 tx in the same second
			// (counted over 1 s).
			{12, 5, 3, 11, 5.0 / 154799, 1, utc(12, 6, 0, 0).Unix(), utc(12, 6, 59, 59).Unix(), utc(10, 12, 0, 0).Unix()},
			{31, 2, 1, 13, 2.0 / float64(utc(31, 23, 59, 59).Unix()-utc(12, 6, 59, 59).Unix()), 2.0 / float64(utc(31, 23, 59, 59).Unix()-utc(12, 6, 59, 59).Unix()),
				utc(31, 23, 59, 59).Unix(), utc(31, 23, 59, 59).Unix(), utc(12, 6, 59, 59).Unix()},
		} {
			r := day(w.d)
			if r.Txs != w.txs || r.Blocks != w.blocks || r.CumTxs != w.cumTxs || r.FirstTS != w.firstTS || r.LastTS != w.lastTS || r.PrevTS != w.prev {
				t.Errorf("day %d: %+v, want txs %d blocks %d cum %d first %d last %d prev %d", w.d, r, w.txs, w.blocks, w.cumTxs, w.firstTS, w.lastTS, w.prev)
			}
			if got := chainmetrics.Value(chainmetrics.AvgTps, &r, nil); got != w.avgTPS {
				t.Errorf("day %d: avgTps %v, want %v", w.d, got, w.avgTPS)
			}
			if got := chainmetrics.Value(chainmetrics.MaxTps, &r, nil); got != w.maxTPS {
				t.Errorf("day %d: maxTps %v, want %v", w.d, got, w.maxTPS)
			}
		}
		// No row for the 11th, and none for block 0.
		if rs, err := s.MetricRollups(ctx, PMetricKey, chainmetrics.Day, 0, utc(11, 23, 0, 0).Unix()); err != nil || len(rs) != 2 {
			t.Errorf("rollups up to the 11th: %d, %v; want 2 (the 9th and 10th)", len(rs), err)
		}
		// Weeks from Monday: the 4th (the 9th and 10th, a Saturday and a
		// Sunday), the 11th (the 12th), the 25th (the 31st, a Sunday).
		weeks, err := s.MetricRollups(ctx, PMetricKey, chainmetrics.Week, 0, 1<<40)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range weeks {
			got = append(got, fmt.Sprintf("%s:%d", time.Unix(w.Start, 0).UTC().Format("Jan 2"), w.Txs))
		}
		if want := []string{"Mar 4:6", "Mar 11:5", "Mar 25:2"}; !reflect.DeepEqual(got, want) {
			t.Errorf("weeks %v, want %v", got, want)
		}
		months, err := s.MetricRollups(ctx, PMetricKey, chainmetrics.Month, 0, 1<<40)
		if err != nil || len(months) != 1 || months[0].Txs != 13 || months[0].Start != utc(1, 0, 0, 0).Unix() {
			t.Errorf("months %+v, %v; want one of 13 txs from March 1st", months, err)
		}
		hours, err := s.MetricRollups(ctx, PMetricKey, chainmetrics.Hour, 0, 1<<40)
		if err != nil || len(hours) != 6 {
			t.Errorf("%d hours, %v; want 6", len(hours), err)
		}
		chains, err := s.MetricChains(ctx)
		if err != nil || len(chains) != 1 || chains[0].Key != PMetricKey || chains[0].NextHeight != 9 || chains[0].Txs != 13 ||
			chains[0].FirstTS != utc(9, 22, 0, 0).Unix() || chains[0].LastTS != utc(31, 23, 59, 59).Unix() {
			t.Errorf("chains %+v, %v", chains, err)
		}

		// Re-applying changes nothing; one batch, or one block at a time,
		// rolls up the same; so does the catch-up of a store indexed
		// before the metrics.
		before := dumpMetrics(t, s)
		mustApply(t, s, blocks[2:6])
		if after := dumpMetrics(t, s); after != before {
			t.Errorf("re-applying changed the metrics:\n%s\nwant\n%s", after, before)
		}
		fresh := dbtestFresh(t, dsn)
		one := openStore(t, fresh)
		for i := range blocks {
			mustApply(t, one, blocks[i:i+1])
		}
		if got := dumpMetrics(t, one); got != before {
			t.Errorf("block by block:\n%s\nwant\n%s", got, before)
		}
		for _, table := range []string{"metric_chains", "metric_rollups", "metric_addresses"} {
			if _, err := one.db.Exec(ctx, "DELETE FROM "+table); err != nil {
				t.Fatal(err)
			}
		}
		one.Close()
		re := openStore(t, fresh)
		catchUpMetrics(t, re)
		if got := dumpMetrics(t, re); got != before {
			t.Errorf("caught up:\n%s\nwant\n%s", got, before)
		}
	})
}

// Distinct addresses and senders of real txs: the owners of what they
// produce, and the owners of the UTXOs they spend.
func TestMetricsAddresses(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		sc := newUTXOScenario(t)
		s := openStore(t, dsn)
		mustApply(t, s, sc.blocks)
		hour := chainmetrics.Hour.Start(1_700_000_000)
		rs, err := s.MetricRollups(ctx, PMetricKey, chainmetrics.Hour, hour, hour)
		if err != nil || len(rs) != 1 {
			t.Fatalf("%d hours, %v", len(rs), err)
		}
		r := rs[0]
		// Txs of the Banff blocks 1..5 (the base tx, the delegator, the
		// reward, the export and the import); the Apricot blocks have no
		// time. A, B and C own outputs; A (the genesis UTXO, the base
		// tx's change) and B (the returned stake, the reward) spend.
		if r.Txs != 5 || r.Addresses != 3 || r.Senders != 2 || r.CumAddresses != 3 {
			t.Errorf("hour rollup %+v: want 5 txs, 3 addresses, 2 senders, 3 cumulative", r)
		}
		// The senders came from the owners the UTXO appliers' UPDATE
		// returned; the catch-up at open, from stored blocks with their
		// UTXOs spent already, reads them: the same rollups.
		before := dumpMetrics(t, s)
		for _, table := range []string{"metric_chains", "metric_rollups", "metric_addresses"} {
			if _, err := s.db.Exec(ctx, "DELETE FROM "+table); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		re := openStore(t, dsn)
		catchUpMetrics(t, re)
		if got := dumpMetrics(t, re); got != before {
			t.Errorf("caught up:\n%s\nwant\n%s", got, before)
		}
	})
}

// An EVM chain's rollup, worked out from makeEVMBlocks: blocks 1..6, 2 s
// apart from 1_700_000_002, in one hour; h%3+1 txs each of 50,000 gas at
// 26 gwei; block h uses 21,000h gas.
func TestMetricsEVM(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		bs := makeEVMBlocks("metrics", 7)
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[:4], deriveEVM); err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[2:], deriveEVM); err != nil {
			t.Fatal(err)
		}
		day := chainmetrics.Day.Start(1_700_000_000)
		rs, err := s.MetricRollups(ctx, EVMMetricKey(testEVMChain), chainmetrics.Day, day, day)
		if err != nil || len(rs) != 1 {
			t.Fatalf("%d days, %v", len(rs), err)
		}
		r := &rs[0]
		for _, c := range []struct {
			m    chainmetrics.Metric
			want float64
		}{
			{chainmetrics.TxCount, 12},          // 2+3+1+2+3+1
			{chainmetrics.GasUsed, 21_000 * 21}, // 1+..+6
			{chainmetrics.AvgGps, 21_000 * 21 / 10.0},
			{chainmetrics.MaxGps, 21_000 * 6 / 2.0},
			{chainmetrics.AvgTps, 12 / 10.0},
			{chainmetrics.MaxTps, 2}, // block 1, the first after the genesis: 2 txs over 1 s
			{chainmetrics.AvgGasPrice, 26e9},
			{chainmetrics.MaxGasPrice, 26e9},
			{chainmetrics.FeesPaid, 12 * 50_000 * 26e9},
			// alice sends (txs, ERC-20, ERC-1155), bob sends (ERC-721);
			// token20 and carol receive.
			{chainmetrics.ActiveSenders, 2},
			{chainmetrics.ActiveAddresses, 4},
			{chainmetrics.Contracts, 2},
			{chainmetrics.Deployers, 1},
			{chainmetrics.CumulativeContracts, 2},
			{chainmetrics.CumulativeDeployers, 1},
			{chainmetrics.CumulativeAddresses, 4},
			{chainmetrics.CumulativeTxCount, 12},
		} {
			if got := chainmetrics.Value(c.m, r, nil); got != c.want {
				t.Errorf("%s = %v, want %v", c.m, got, c.want)
			}
		}
	})
}

// TestMetricsDistinctAcrossBatches rolls up blocks whose addresses repeat
// within an hour, across hours, days, a week and a month, in every role,
// and checks the distinct and cumulative counts worked out by hand, for
// the blocks applied in one batch, block by block and in uneven batches
// (an address's earlier sightings then lie in rows of earlier batches).
func TestMetricsDistinctAcrossBatches(t *testing.T) {
	A, B, C := []byte("address A"), []byte("address B"), []byte("address C")
	at := func(month time.Month, day, hour, minute int) int64 {
		return time.Date(2024, month, day, hour, minute, 0, 0, time.UTC).Unix()
	}
	type addrs = [][]byte
	blocks := []chainmetrics.Block{
		{Height: 1, Time: at(3, 4, 10, 0), Txs: 1, Addresses: addrs{A, B}, Senders: addrs{A}},
		{Height: 2, Time: at(3, 4, 10, 30), Txs: 1, Addresses: addrs{A}, Senders: addrs{B}},
		{Height: 3, Time: at(3, 4, 11, 5), Txs: 1, Addresses: addrs{A, C}, Deployers: addrs{C}},
		{Height: 4, Time: at(3, 5, 9, 0), Txs: 1, Addresses: addrs{B}, Senders: addrs{A}},
		{Height: 5, Time: at(3, 11, 0, 10), Txs: 1, Addresses: addrs{A}, Deployers: addrs{A}},
		{Height: 6, Time: at(4, 1, 0, 0), Txs: 1, Addresses: addrs{C}},
	}
	// period start -> addresses, senders, deployers, cumulative addresses,
	// cumulative deployers. 2024-03-04 and 2024-04-01 are Mondays.
	want := map[chainmetrics.Period]map[int64][5]int64{
		chainmetrics.Hour: {
			at(3, 4, 10, 0): {2, 2, 0, 2, 0}, // A, B; both send
			at(3, 4, 11, 0): {2, 0, 1, 3, 1}, // A, C; C deploys
			at(3, 5, 9, 0):  {2, 1, 0, 3, 1}, // B, A; A sends
			at(3, 11, 0, 0): {1, 0, 1, 3, 2}, // A deploys
			at(4, 1, 0, 0):  {1, 0, 0, 3, 2}, // C
		},
		chainmetrics.Day: {
			at(3, 4, 0, 0):  {3, 2, 1, 3, 1},
			at(3, 5, 0, 0):  {2, 1, 0, 3, 1},
			at(3, 11, 0, 0): {1, 0, 1, 3, 2},
			at(4, 1, 0, 0):  {1, 0, 0, 3, 2},
		},
		chainmetrics.Week: {
			at(3, 4, 0, 0):  {3, 2, 1, 3, 1},
			at(3, 11, 0, 0): {1, 0, 1, 3, 2},
			at(4, 1, 0, 0):  {1, 0, 0, 3, 2},
		},
		chainmetrics.Month: {
			at(3, 1, 0, 0): {3, 2, 2, 3, 2}, // C and A deploy in March
			at(4, 1, 0, 0): {1, 0, 0, 3, 2},
		},
	}
	for _, split := range [][]int{{6}, {1, 1, 1, 1, 1, 1}, {2, 3, 1}, {3, 3}} {
		t.Run(fmt.Sprint(split), func(t *testing.T) {
			dbtest.Run(t, func(t *testing.T, dsn string) {
				ctx := context.Background()
				s := openStore(t, dsn)
				apply := func(bs []chainmetrics.Block) {
					t.Helper()
					err := s.db.Transact(ctx, func(tx *database.DB) error { return RollupMetrics(ctx, tx, "test", bs) })
					if err != nil {
						t.Fatal(err)
					}
				}
				rest := blocks
				for _, n := range split {
					apply(rest[:n])
					apply(rest[:n]) // re-applying changes nothing
					rest = rest[n:]
				}
				for p, starts := range want {
					rs, err := s.MetricRollups(ctx, "test", p, 0, 1<<40)
					if err != nil {
						t.Fatal(err)
					}
					got := map[int64][5]int64{}
					for _, r := range rs {
						got[r.Start] = [5]int64{r.Addresses, r.Senders, r.Deployers, r.CumAddresses, r.CumDeployers}
					}
					if !reflect.DeepEqual(got, starts) {
						t.Errorf("%s: got %v\nwant %v", p, got, starts)
					}
				}
				chains, err := s.MetricChains(ctx)
				if err != nil || len(chains) != 1 || chains[0].Addresses != 3 || chains[0].Txs != 6 {
					t.Errorf("chains %+v, %v; want 3 addresses and 6 txs", chains, err)
				}
			})
		})
	}
}
