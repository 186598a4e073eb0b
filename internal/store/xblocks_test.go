package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/cchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/xchain"
)

// makeXBlocks returns blocks from..to-1 of an X-chain named by salt: block
// h holds h%4 BaseTxs that move nothing.
func makeXBlocks(t testing.TB, salt string, from, to uint64) []*xchain.Block {
	t.Helper()
	perBlock := make([][]*xchain.Tx, to)
	for h := range to {
		for i := range h % 4 {
			perBlock[h] = append(perBlock[h], xTx(t, &txs.BaseTx{BaseTx: xBase(fmt.Sprintf("%s tx %d/%d", salt, h, i), nil).BaseTx}))
		}
	}
	return xBlocks(t, salt, nil, perBlock...)[from:]
}

func TestApplyXBlocks(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		bs := makeXBlocks(t, "x", 0, 10)
		for _, batch := range [][]*xchain.Block{bs[:6], bs[:6], bs[4:]} {
			if err := s.ApplyXBlocks(ctx, xchain.BlocksData(batch), deriveX); err != nil {
				t.Fatal(err)
			}
		}
		if h, ok, err := s.Cursor(ctx, ChainCursor(internal.XChain)); err != nil || !ok || h != 9 {
			t.Fatalf("X cursor = %d, %t, %v; want 9", h, ok, err)
		}
		if h, ok, _ := s.Cursor(ctx, ChainCursor(internal.PChain)); ok {
			t.Errorf("the P-chain cursor moved to %d", h)
		}
		got, err := s.XBlockByHeight(ctx, 7)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != bs[7].ID || len(got.Txs) != len(bs[7].Txs) || got.Txs[2].ID != bs[7].Txs[2].ID || !got.Timestamp.Equal(bs[7].Timestamp) {
			t.Errorf("XBlockByHeight(7) = %+v, want %+v", got, bs[7])
		}
		// Another chain's block at a stored height is refused.
		if err := s.ApplyXBlocks(ctx, xchain.BlocksData(makeXBlocks(t, "other", 9, 10)), deriveX); err == nil {
			t.Error("a different block at a stored height was accepted")
		}
		if err := s.ApplyXBlocks(ctx, xchain.BlocksData(makeXBlocks(t, "x", 12, 13)), deriveX); err == nil {
			t.Error("a batch leaving a gap after the cursor was accepted")
		}
	})
}

func TestApplyCBlocks(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		var bs []*cchain.Block
		for h := uint64(0); h < 6; h++ {
			b := &cchain.Block{Height: h, Hash: testID("c", h), Parent: testID("c", h-1), Timestamp: time.Unix(1_700_000_000+int64(h), 0)}
			if h%2 == 1 {
				// Real atomic txs that move nothing, told apart by h.
				imp, _ := cTx(t, &atomic.UnsignedImportTx{NetworkID: 12345, BlockchainID: aCChain, SourceChain: aPChain,
					Outs: []atomic.EVMOutput{{Address: common.Address{byte(h)}, Amount: h, AssetID: uAsset}}})
				exp, _ := cTx(t, &atomic.UnsignedExportTx{NetworkID: 12345, BlockchainID: aCChain, DestinationChain: aPChain,
					Ins: []atomic.EVMInput{{Address: common.Address{byte(h)}, Amount: h, AssetID: uAsset, Nonce: h}}})
				b.AtomicTxs = []*cchain.AtomicTx{imp, exp}
			}
			bs = append(bs, b)
		}
		for _, batch := range [][]*cchain.Block{bs[:4], bs[2:4], bs[3:]} {
			if err := s.ApplyCBlocks(ctx, batch, deriveC); err != nil {
				t.Fatal(err)
			}
		}
		txs, heights, err := s.CAtomicTxs(ctx, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(txs) != 6 || heights[0] != 1 || heights[5] != 5 || txs[1].Type != "ExportTx" || txs[1].ID != bs[1].AtomicTxs[1].ID {
			t.Errorf("CAtomicTxs = %v at %v", txs, heights)
		}
		if h, _, _ := s.Cursor(ctx, ChainCursor(internal.CChain)); h != 5 {
			t.Errorf("C cursor = %d, want 5", h)
		}
		if hash, err := s.CLastHash(ctx); err != nil || hash != bs[5].Hash {
			t.Errorf("CLastHash = %s, %v; want %s", hash, err, bs[5].Hash)
		}
		// An atomic tx re-applied in another block is refused.
		moved := &cchain.Block{Height: 6, Hash: testID("c", 6), Parent: bs[5].Hash, AtomicTxs: bs[3].AtomicTxs}
		if err := s.ApplyCBlocks(ctx, []*cchain.Block{moved}, deriveC); err == nil {
			t.Error("an atomic tx stored at block 3 was accepted again at block 6")
		}
	})
}
