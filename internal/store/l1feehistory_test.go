package store

import (
	"context"
	"testing"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestL1FeeHistoryBackfill checks that migration 0038's backfill asks for
// a rederive of the P-chain on a store that holds P-chain blocks (which
// replays the fee state and writes its history), and for none on an
// empty store.
func TestL1FeeHistoryBackfill(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		if p, err := s.PendingRederives(ctx); err != nil || len(p) != 0 {
			t.Fatalf("a store migrated empty has rederives %+v (%v)", p, err)
		}
		sc := newUTXOScenario(t)
		mustApply(t, s, sc.blocks[:2])
		if err := s.PutSettingIfAbsent(ctx, "backfill:l1_fee_history", nil); err != nil {
			t.Fatal(err)
		}
		if err := runBackfills(ctx, s); err != nil {
			t.Fatal(err)
		}
		p, err := s.PendingRederives(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(p) != 1 || p[0].Chain != internal.PChain || p[0].Started {
			t.Errorf("pending rederives %+v, want the P-chain's, asked for", p)
		}
		if _, ok, err := s.Setting(ctx, "backfill:l1_fee_history"); ok || err != nil {
			t.Errorf("the backfill is still asked for (%v)", err)
		}
	})
}
