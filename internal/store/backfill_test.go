package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/metrics"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/xchain"
)

// runBackfills runs the backfills asked for through BackfillStore, as
// derive.RunBackfills does (which the store's tests cannot import), a
// few positions per chunk so that every part is cut in several.
func runBackfills(ctx context.Context, s *sqlStore) error { return runBackfillsChunked(ctx, s, 3, 0) }

// errStopped is what runBackfillsChunked returns when it stops early.
var errStopped = errors.New("stopped after the chunks asked for")

// runBackfillsChunked runs them chunk positions at a time and, when
// stopAfter > 0, stops after that many chunks (a crash: what it knew is
// lost; the store keeps what was committed).
func runBackfillsChunked(ctx context.Context, s *sqlStore, chunk int64, stopAfter int) error {
	pending, err := s.PendingBackfills(ctx)
	if err != nil {
		return err
	}
	fills := 0
	for _, b := range pending {
		parts, err := s.BackfillParts(ctx, b.Name, backfillDerivations)
		if err != nil {
			return err
		}
		for ; b.Part < len(parts); b.Part, b.Next = b.Part+1, 0 {
			p := parts[b.Part]
			for b.Next = max(b.Next, p.Lo); b.Next < p.Hi; {
				if stopAfter > 0 && fills == stopAfter {
					return errStopped
				}
				if b, err = s.FillBackfill(ctx, b, p, b.Next+chunk); err != nil {
					return err
				}
				fills++
			}
		}
		if err := s.FinishBackfill(ctx, b.Name); err != nil {
			return err
		}
	}
	return nil
}

// TestBackfillResumes stops the ERC-20 balances' and the burned sums'
// backfills (whose chunks build on what the ones before wrote) after each
// possible chunk, and checks that the backfill resumed writes what an
// uninterrupted one writes: chunks of 1 and 2 blocks, and chunks bounded
// by the ERC-20 backfill's reads (12,000 transfers, more than one read).
func TestBackfillResumes(t *testing.T) {
	large := slices.Clone(erc20Moves)
	for i := range 12_000 {
		large = append(large, [5]any{2 + i/6_000, tokA, zero, evmAddr(fmt.Sprint("holder", i%700)), i + 1})
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		for _, sc := range []struct {
			moves  [][5]any
			chunks []int64
		}{{erc20Moves, []int64{1, 2}}, {large, []int64{1 << 40}}} {
			testBackfillResumes(t, openStore(t, dbtestFresh(t, dsn)), sc.moves, sc.chunks)
		}
	})
}

func testBackfillResumes(t *testing.T, s *sqlStore, moves [][5]any, chunks []int64) {
	t.Helper()
	ctx := context.Background()
	if err := s.ApplyEVMBlocks(ctx, testEVMChain, erc20Blocks("resume", moves), deriveEVM); err != nil {
		t.Fatal(err)
	}
	tables := []string{"evm_erc20_balances", "evm_erc20_holdings", "evm_erc20_tokens", "burned"}
	dump := func() string {
		var b strings.Builder
		for _, tbl := range tables {
			fmt.Fprintf(&b, "%s:\n%s\n", tbl, dumpRows(t, s, tbl))
		}
		return b.String()
	}
	want := dump()
	reset := func() {
		for _, tbl := range tables {
			if _, err := s.db.Exec(ctx, "DELETE FROM "+tbl); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range []string{"evm_erc20_balances", "burned"} {
			if err := s.PutSettingIfAbsent(ctx, BackfillKey(name), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, chunk := range chunks {
		for stopAfter := 1; ; stopAfter++ {
			reset()
			err := runBackfillsChunked(ctx, s, chunk, stopAfter)
			if err == nil {
				break // fewer chunks than stopAfter: every stop point was tried
			}
			if !errors.Is(err, errStopped) {
				t.Fatal(err)
			}
			if err := runBackfillsChunked(ctx, s, chunk, 0); err != nil {
				t.Fatal(err)
			}
			if got := dump(); got != want {
				t.Fatalf("chunks of %d, stopped after %d: the resumed backfill wrote\n%s\nan uninterrupted one\n%s", chunk, stopAfter, got, want)
			}
			if pending, err := s.PendingBackfills(ctx); err != nil || len(pending) != 0 {
				t.Fatalf("left pending: %v (%v)", pending, err)
			}
		}
	}
}

// testMetricDecoders are derive.MetricDecoders (which imports the store).
var testMetricDecoders = map[internal.Chain]MetricDecoder{
	internal.PChain: pchain.DecodeUTXOBlock,
	internal.XChain: xchain.DecodeUTXOBlock,
}

// catchUpMetrics rolls up what the metrics lack, as derive.RunBackfills
// does, two heights per transaction.
func catchUpMetrics(t testing.TB, s *sqlStore) {
	t.Helper()
	ctx := context.Background()
	for _, c := range MetricsCatchUpChains {
		from, to, ok, err := s.MetricsLeft(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		for h := from; ok && h <= to; h += 2 {
			if err := s.CatchUpMetrics(ctx, c, h, min(to, h+1), testMetricDecoders[c], metrics.UTXOBlocks[*MetricsTx]); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestPendingBackfills: the backfills asked for come in the order of
// Backfills, with their cursors, and one this release does not know last
// (BackfillParts refuses it).
func TestPendingBackfills(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		// A fresh store: every migration asked for its backfill.
		if err := runBackfills(ctx, s); err != nil {
			t.Fatal(err)
		}
		for key, value := range map[string]string{"backfill:zz_newer": "", "backfill:burned": "2:17", "backfill:address_txs": ""} {
			if err := s.PutSettingIfAbsent(ctx, key, []byte(value)); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.PendingBackfills(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []Backfill{{Name: "address_txs"}, {Name: "burned", Part: 2, Next: 17}, {Name: "zz_newer"}}
		if !slices.Equal(got, want) {
			t.Errorf("pending %+v, want %+v", got, want)
		}
		if _, err := s.BackfillParts(ctx, "zz_newer", backfillDerivations); err == nil {
			t.Error("the parts of an unknown backfill")
		}
		for _, name := range []string{"evm_erc20_balances", "nft_spans"} {
			if _, err := s.BackfillParts(ctx, name, BackfillDerivations{}); !errors.Is(err, derrors.InvalidArgument) {
				t.Errorf("the parts of %s without its derivation: %v, want InvalidArgument", name, err)
			}
		}
	})
}

// resumeBackfillEverywhere runs the backfill name on s after reset, in
// chunks of 1 and 2, stopped after every chunk in turn and resumed, and
// requires dump to give want (what the appliers wrote) each time.
func resumeBackfillEverywhere(t *testing.T, s *sqlStore, name string, reset func(), dump func() string, want string) {
	t.Helper()
	ctx := context.Background()
	for _, chunk := range []int64{1, 2} {
		for stopAfter := 0; ; stopAfter++ {
			reset()
			if err := s.PutSettingIfAbsent(ctx, BackfillKey(name), nil); err != nil {
				t.Fatal(err)
			}
			if stopAfter > 0 {
				err := runBackfillsChunked(ctx, s, chunk, stopAfter)
				if err == nil {
					break // fewer chunks than stopAfter: every stop was tried
				}
				if !errors.Is(err, errStopped) {
					t.Fatal(err)
				}
			}
			if err := runBackfillsChunked(ctx, s, chunk, 0); err != nil {
				t.Fatal(err)
			}
			if got := dump(); got != want {
				t.Fatalf("%s in chunks of %d, stopped after %d: the backfill wrote\n%s\nthe appliers\n%s", name, chunk, stopAfter, got, want)
			}
		}
	}
}
