package store

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// benchBatch is the batch size the ingester applies.
const benchBatch = 256

// benchBlocks returns n synthetic blocks from height from: ~300 bytes and
// one tx each, random ids, like P-chain standard blocks.
func benchBlocks(rng *rand.ChaCha8, from uint64, n int) []*internal.PBlock {
	bs := make([]*internal.PBlock, n)
	for i := range bs {
		b := &internal.PBlock{
			Height:    from + uint64(i),
			Type:      "BanffStandardBlock",
			Timestamp: time.Unix(1_700_000_000+int64(from)+int64(i), 0),
			Bytes:     make([]byte, 300),
		}
		rng.Read(b.ID[:])
		rng.Read(b.ParentID[:])
		rng.Read(b.Bytes)
		var txID ids.ID
		rng.Read(txID[:])
		b.Txs = []internal.PTx{{ID: txID, Type: "AddPermissionlessDelegatorTx", Bytes: b.Bytes[50:]}}
		bs[i] = b
	}
	return bs
}

// BenchmarkApplyPBlocks applies batches of 256 blocks (one batch per
// iteration) to a database that grows as it runs, and reports blocks/s.
func BenchmarkApplyPBlocks(b *testing.B) {
	dbtest.Run(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		s := openStore(b, dsn)
		rng := rand.NewChaCha8([32]byte{1})
		var next uint64
		blocks := 0
		for b.Loop() {
			b.StopTimer()
			bs := benchBlocks(rng, next, benchBatch)
			b.StartTimer()
			if err := s.ApplyPBlocks(ctx, bs); err != nil {
				b.Fatal(err)
			}
			next += benchBatch
			blocks += benchBatch
		}
		b.ReportMetric(float64(blocks)/b.Elapsed().Seconds(), "blocks/s")
	})
}
