package store

import (
	"context"
	"testing"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/xchain"
)

// runBackfills runs the backfills asked for through BackfillStore, as
// derive.RunBackfills does (which the store's tests cannot import), a
// few positions per chunk so that every part is cut in several.
func runBackfills(ctx context.Context, s *sqlStore) error { return runBackfillsChunked(ctx, s, 3) }

func runBackfillsChunked(ctx context.Context, s *sqlStore, chunk int64) error {
	pending, err := s.PendingBackfills(ctx)
	if err != nil {
		return err
	}
	for _, b := range pending {
		parts, err := s.BackfillParts(ctx, b.Name)
		if err != nil {
			return err
		}
		for ; b.Part < len(parts); b.Part, b.Next = b.Part+1, 0 {
			p := parts[b.Part]
			for b.Next = max(b.Next, p.Lo); b.Next < p.Hi; {
				if b, err = s.FillBackfill(ctx, b, p, b.Next+chunk); err != nil {
					return err
				}
			}
		}
		if err := s.FinishBackfill(ctx, b.Name); err != nil {
			return err
		}
	}
	return nil
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
			if err := s.CatchUpMetrics(ctx, c, h, min(to, h+1), testMetricDecoders[c]); err != nil {
				t.Fatal(err)
			}
		}
	}
}
