package store

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derive/erc20"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// BenchmarkERC20Apply measures the ERC-20 balances' applier alone
// (derive/erc20's ApplyMoves over the store's EVMTx, what the indexer's
// derivation does with a batch's transfers), on the shape of BenchmarkIngestEVM's blocks (internal/ingest):
// b.N blocks of 100 transfers among 10,000 senders, 10,000 recipients and
// 50 tokens, 64 blocks a transaction. Each sender was minted its token
// first (not timed), so that no token is flagged: each transfer writes
// two history rows and moves two holdings, the recipient's new until it
// has received once.
func BenchmarkERC20Apply(b *testing.B) {
	const (
		perBlock = 100
		senders  = 10_000
		tokens   = 50
		batch    = 64
	)
	dbtest.Run(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		s := openStore(b, dsn)
		cid, err := evmChainID(testEVMChain)
		if err != nil {
			b.Fatal(err)
		}
		addr := func(kind string, i int) common.Address { return evmAddr(fmt.Sprintf("%s %d", kind, i)) }
		var sender, recipient []common.Address
		var token []common.Address
		for i := range senders {
			sender, recipient = append(sender, addr("sender", i)), append(recipient, addr("recipient", i))
		}
		for i := range tokens {
			token = append(token, addr("token", i))
		}
		apply := func(moves []internal.ERC20Move) {
			if err := s.db.Transact(ctx, func(tx *database.DB) error { return erc20.ApplyMoves(ctx, &EVMTx{db: tx, cid: cid}, moves) }); err != nil {
				b.Fatal(err)
			}
		}
		// Sender i only ever sends token i%50 (k%10000 == i gives k%50).
		var mints []internal.ERC20Move
		for i := range senders {
			mints = append(mints, internal.ERC20Move{Block: 0, Token: token[i%tokens], To: sender[i], Value: new(big.Int).Lsh(big.NewInt(1), 100)})
		}
		apply(mints)
		b.ResetTimer()
		for first := 1; first <= b.N; first += batch {
			var moves []internal.ERC20Move
			for n := first; n < first+batch && n <= b.N; n++ {
				for j := range perBlock {
					k := n*perBlock + j
					moves = append(moves, internal.ERC20Move{Block: uint64(n), Token: token[k%tokens], From: sender[k%senders],
						To: recipient[k*7%senders], Value: big.NewInt(int64(k + 1))})
				}
			}
			apply(moves)
		}
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "blocks/s")
	})
}
