package store

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestBurnedSums applies the C-chain's burned-sum applier to batches of
// atomic txs, again and overlapping, and an EVM chain's to blocks whose
// fees outgrow int64, and checks the sums by hand.
func TestBurnedSums(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		avax, other := ids.GenerateTestID(), ids.GenerateTestID()
		nb, err := json.Marshal(internal.Network{ID: constants.LocalID, AVAXAssetID: avax})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.PutSettingIfAbsent(ctx, NetworkSetting, nb); err != nil {
			t.Fatal(err)
		}
		// An import of 10 AVAX crediting 9.999 (fee 1e6 nAVAX), with
		// another asset passed through; an export debiting 5 AVAX and
		// exporting 4.99 (fee 1e7).
		imp := &internal.CAtomicTxData{
			Imported: []internal.UTXOInput{{AssetID: avax, Amount: 10e9}, {AssetID: other, Amount: 7}},
			EVM:      []internal.CAtomicEVMChange{{AssetID: avax, Amount: 10e9 - 1e6}, {AssetID: other, Amount: 7}},
		}
		exp := &internal.CAtomicTxData{
			Exported: []*internal.UTXOOutput{{AssetID: avax, Amount: 5e9 - 1e7}},
			EVM:      []internal.CAtomicEVMChange{{AssetID: avax, Amount: 5e9, Debit: true}},
		}
		blocks := []*internal.CBlockData{{Height: 3, AtomicTxs: []*internal.CAtomicTxData{imp}}, {Height: 9, AtomicTxs: []*internal.CAtomicTxData{exp}}}
		apply := func(bs []*internal.CBlockData) {
			t.Helper()
			if err := s.db.Transact(ctx, func(tx *database.DB) error { return applyCBurned(ctx, tx, bs) }); err != nil {
				t.Fatal(err)
			}
		}
		check := func(key string, want *big.Int, wantNext uint64) {
			t.Helper()
			got, next, err := s.Burned(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if got.Cmp(want) != 0 || next != wantNext {
				t.Errorf("Burned(%s) = %s, next %d; want %s, next %d", key, got, next, want, wantNext)
			}
		}
		check(BurnedC, big.NewInt(0), 0)
		apply(blocks[:1])
		check(BurnedC, big.NewInt(1e6), 4)
		apply(blocks[:1]) // applied again: counted once
		check(BurnedC, big.NewInt(1e6), 4)
		apply(blocks) // overlapping: only height 9 is new
		check(BurnedC, big.NewInt(1e6+1e7), 10)

		// 3 txs of 2^62 wei: beyond int64 together.
		huge := new(big.Int).Lsh(big.NewInt(1), 62)
		evm := []*internal.EVMBlockData{{EVMBlock: internal.EVMBlock{Number: 0}, Txs: []internal.EVMTx{{GasUsed: 1, GasPrice: huge}, {GasUsed: 2, GasPrice: huge}}}}
		if err := s.db.Transact(ctx, func(tx *database.DB) error { return applyEVMBurned(ctx, tx, 43112, evm) }); err != nil {
			t.Fatal(err)
		}
		check(EVMBurnedKey(43112), new(big.Int).Mul(huge, big.NewInt(3)), 1)
		check(EVMBurnedKey(43114), big.NewInt(0), 0)
	})
}
