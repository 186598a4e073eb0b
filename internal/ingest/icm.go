package ingest

import (
	"context"
	"fmt"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/evm"
)

// icmBackfillSpan is how many stored blocks one backfill batch reads.
const icmBackfillSpan = 20_000

// backfillICM decodes the messenger's logs of the blocks stored before
// the store kept ICM events (migration 0031) into them, from the stored
// logs: the follower knows what the store does not, the chain's blockchain
// id and its messenger. A backfill cut short starts over (its rows are
// kept once).
func (e *evmFollower) backfillICM(ctx context.Context) error {
	upTo, ok, err := e.ix.store.ICMBackfill(ctx, e.chain.ChainID)
	if err != nil || !ok {
		return err
	}
	messenger := e.cfg.Teleporter
	if messenger == ([20]byte{}) {
		messenger = evm.DefaultTeleporter
	}
	n := 0
	for from := uint64(0); ; from += icmBackfillSpan {
		to := min(from+icmBackfillSpan-1, upTo)
		logs, err := e.ix.store.EVMStoredLogs(ctx, e.chain.ChainID, messenger, from, to)
		if err != nil {
			return err
		}
		var events []internal.ICMEvent
		for i := range logs {
			l := &logs[i]
			if ev, ok := evm.DecodeICMEvent(&l.Log, l.TxHash, l.BlockNumber, messenger, e.chain.BlockchainID); ok {
				ev.BlockTime = l.BlockTime
				events = append(events, ev)
			}
		}
		done := to >= upTo
		if err := e.ix.store.ApplyICMBackfill(ctx, e.chain.ChainID, events, done); err != nil {
			return fmt.Errorf("%s: the ICM backfill: %w", e.name, err)
		}
		n += len(events)
		if done {
			e.ix.log.Info("ICM events of the blocks stored before them backfilled", "chain", e.name, "upTo", upTo, "events", n)
			return nil
		}
	}
}
