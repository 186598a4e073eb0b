package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/xchain"
)

// TestXDAGHistory indexes a DAG-era X-chain (mainnet's genesis): DAG txs
// from the mirrored X/tx index spend genesis UTXOs, and a post-Cortina
// block spends their outputs. Whichever of the two is applied first, every
// UTXO ends consumed by the tx that spent it, the rest unspent.
func TestXDAGHistory(t *testing.T) {
	gb, avaxID, err := genesis.FromConfig(genesis.GetConfig(constants.MainnetID))
	if err != nil {
		t.Fatal(err)
	}
	xChain, err := genesis.VMGenesis(gb, constants.AVMID)
	if err != nil {
		t.Fatal(err)
	}
	g, ok, err := xchain.GenesisFor(xChain.ID())
	if err != nil || !ok || !g.DAG {
		t.Fatalf("mainnet X genesis: %v, %v (DAG %v)", ok, err, g != nil && g.DAG)
	}
	gen := g.UTXOs[0]
	holder := gen.Owners.Addrs[0]

	// DAG txs 0 and 1: a BaseTx spending a genesis UTXO, then a
	// CreateAssetTx spending its change.
	base := xTx(t, &txs.BaseTx{BaseTx: xBase("dag-b", []*avax.TransferableInput{xIn(gen.UTXO.TxID, gen.UTXO.OutputIndex, avaxID, gen.Amount)},
		xOut(avaxID, 5, uAddrA), xOut(avaxID, gen.Amount-6, holder)).BaseTx})
	create := xTx(t, &txs.CreateAssetTx{
		BaseTx: xBase("dag-c", []*avax.TransferableInput{xIn(base.ID, 1, avaxID, gen.Amount-6)}, xOut(avaxID, gen.Amount-7, holder)),
		Name:   "Dag", Symbol: "DAG",
		States: []*txs.InitialState{{FxIndex: 0, Outs: []verify.State{
			&secp256k1fx.TransferOutput{Amt: 1000, OutputOwners: uOwners(uAddrA)},
		}}},
	})
	containers := []Container{}
	for i, x := range []internal.XTx{base, create} {
		containers = append(containers, Container{Index: uint64(i), ID: x.ID, Bytes: x.Bytes,
			Timestamp: time.Unix(1_600_000_000+int64(i), 0).UTC().Format(time.RFC3339Nano)})
	}
	// Block 0 is the linearization; block 1 spends both DAG txs' outputs
	// to A's first output and the new asset.
	spend := xTx(t, &txs.BaseTx{BaseTx: xBase("blk", []*avax.TransferableInput{
		xIn(base.ID, 0, avaxID, 5), xIn(create.ID, 1, create.ID, 1000),
	}, xOut(avaxID, 4, uAddrB), xOut(create.ID, 1000, uAddrB)).BaseTx})
	blocks := xBlocks("dag", nil, []internal.XTx{spend})

	for _, order := range []string{"dag first", "blocks first"} {
		t.Run(order, func(t *testing.T) {
			dbtest.Run(t, func(t *testing.T, dsn string) {
				ctx := context.Background()
				s := openStore(t, dsn)
				nb, _ := json.Marshal(internal.Network{ID: constants.MainnetID, XChainID: xChain.ID()})
				if err := s.PutSettingIfAbsent(ctx, NetworkSetting, nb); err != nil {
					t.Fatal(err)
				}
				dag := func() {
					if err := s.ApplyContainers(ctx, XTxIndex, containers); err != nil {
						t.Fatal(err)
					}
					// One container per batch, then nothing left.
					for i, want := range []int{1, 1, 0} {
						n, err := s.ApplyXDAG(ctx, 1)
						if err != nil || n != want {
							t.Fatalf("ApplyXDAG call %d = %d, %v; want %d", i, n, err, want)
						}
					}
				}
				blks := func() {
					if err := s.ApplyXBlocks(ctx, blocks); err != nil {
						t.Fatal(err)
					}
				}
				if order == "dag first" {
					dag()
					blks()
				} else {
					blks()
					dag()
				}
				// Re-applying either changes nothing.
				blks()

				consumedBy := map[ids.ID]struct {
					tx     ids.ID
					height uint64
				}{
					gen.ID():               {base.ID, 0},
					utxoKey(base.ID, 1):    {create.ID, 0},
					utxoKey(base.ID, 0):    {spend.ID, 1},
					utxoKey(create.ID, 1):  {spend.ID, 1},
					utxoKey(create.ID, 0):  {},
					utxoKey(spend.ID, 0):   {},
					utxoKey(spend.ID, 1):   {},
					g.UTXOs[1].ID():        {},
					utxoKey(ids.ID{7}, 0):  {tx: ids.ID{1}}, // never stored
					utxoKey(create.ID, 99): {tx: ids.ID{1}},
				}
				for id, want := range consumedBy {
					got, err := s.XUTXO(ctx, id)
					if want.tx == (ids.ID{1}) {
						if !errors.Is(err, derrors.NotFound) {
							t.Errorf("XUTXO(%s) of no tx: %v, want NotFound", id, err)
						}
						continue
					}
					if err != nil {
						t.Fatalf("XUTXO(%s): %v", id, err)
					}
					if got.ConsumedTxID != want.tx || got.ConsumedHeight != want.height {
						t.Errorf("UTXO %s consumed by %s at %d, want %s at %d", id, got.ConsumedTxID, got.ConsumedHeight, want.tx, want.height)
					}
				}
				dtx, err := s.XDAGTx(ctx, create.ID)
				if err != nil || dtx.Index != 1 || dtx.Type != "CreateAssetTx" || string(dtx.Bytes) != string(create.Bytes) ||
					dtx.Timestamp.Unix() != 1_600_000_001 {
					t.Errorf("XDAGTx(create) = %+v, %v", dtx, err)
				}
				var waiting int
				if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM x_early_spends").Scan(&waiting); err != nil || waiting != 0 {
					t.Errorf("%d early spends left (%v), want 0", waiting, err)
				}
				us, err := s.XUTXOsOf(ctx, []ids.ShortID{uAddrB})
				if err != nil || len(us) != 2 {
					t.Errorf("B holds %d UTXOs (%v), want 2", len(us), err)
				}
			})
		})
	}
}
