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
	"github.com/avaindex/avaindex/internal/derive/burned"
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
			if err := s.db.Transact(ctx, func(tx *database.DB) error { return burned.C(ctx, &CTx{newBatchTx(tx, false)}, bs) }); err != nil {
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
		if err := s.db.Transact(ctx, func(tx *database.DB) error { return burned.EVM(ctx, &EVMTx{db: tx, cid: 43112}, evm) }); err != nil {
			t.Fatal(err)
		}
		check(EVMBurnedKey(43112), new(big.Int).Mul(huge, big.NewInt(3)), 1)
		check(EVMBurnedKey(43114), big.NewInt(0), 0)
	})
}

// TestXDAGBurnedByHand checks the X-chain's burned sums that
// getAvaxSupply's totalXBurned adds up (BurnedXDAG for the pre-Cortina DAG
// txs, BurnedX for the blocks after the linearization) over the DAG
// scenario of xdag_test.go, applied in each order and again, against the
// AVAX each tx's inputs hold beyond its outputs, worked out by hand:
//   - DAG tx 0 (CreateAssetTx) spends a genesis UTXO of g AVAX for g − 10
//     AVAX out: 10;
//   - DAG tx 1 spends g − 10 and g2 AVAX for 100 and g − 110 + g2: 0;
//   - DAG tx 2 (ExportTx) spends 1,000,000 for 999,000 and 50 exported:
//     950;
//   - DAG tx 3 (OperationTx) moves only the new asset: 0;
//   - DAG tx 4 (ImportTx) imports another asset and outputs 39 AVAX: no
//     AVAX in, nothing burned (never negative);
//   - block 1 spends 100 AVAX for 90: 10; block 2 spends 39 for 38: 1.
func TestXDAGBurnedByHand(t *testing.T) {
	sc := newDAGScenario(t)
	n := len(sc.containers)
	network := sc.network
	network.AVAXAssetID = sc.gen.AssetID
	orders := map[string]func(t *testing.T, s Store){
		"dag-first": func(t *testing.T, s Store) {
			sc.applyDAG(t, s, 0, n, 1024)
			sc.applyBlocks(t, s)
		},
		"blocks-first": func(t *testing.T, s Store) {
			sc.applyBlocks(t, s)
			sc.applyDAG(t, s, 0, n, 1024)
		},
		"interleaved": func(t *testing.T, s Store) {
			sc.applyDAG(t, s, 0, 2, 1)
			sc.applyBlocks(t, s)
			sc.applyDAG(t, s, 2, n, 2)
		},
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		for name, apply := range orders {
			t.Run(name, func(t *testing.T) {
				ctx := context.Background()
				s := openStore(t, dbtestFresh(t, dsn))
				nb, err := json.Marshal(network)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.PutSettingIfAbsent(ctx, NetworkSetting, nb); err != nil {
					t.Fatal(err)
				}
				check := func(key string, want int64, wantNext uint64) {
					t.Helper()
					got, next, err := s.Burned(ctx, key)
					if err != nil {
						t.Fatal(err)
					}
					if got.Cmp(big.NewInt(want)) != 0 || next != wantNext {
						t.Errorf("Burned(%s) = %s, next %d; want %d, next %d", key, got, next, want, wantNext)
					}
				}
				apply(t, s)
				check(BurnedXDAG, 10+950, uint64(n))
				check(BurnedX, 10+1, 3)
				// Applied again from a cursor moved back (as after a
				// crash): counted once.
				if _, err := s.db.Exec(ctx, "DELETE FROM cursors WHERE chain = ?", string(XDAGCursor)); err != nil {
					t.Fatal(err)
				}
				sc.applyDAG(t, s, 0, n, 3)
				sc.applyBlocks(t, s)
				check(BurnedXDAG, 10+950, uint64(n))
				check(BurnedX, 10+1, 3)
			})
		}
	})
}
