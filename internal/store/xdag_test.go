package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	ptxs "github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/xstate"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
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
	for i, x := range []*xchain.Tx{base, create} {
		containers = append(containers, Container{Index: uint64(i), ID: x.ID, Bytes: x.Bytes,
			Timestamp: time.Unix(1_600_000_000+int64(i), 0).UTC().Format(time.RFC3339Nano)})
	}
	// Block 0 is the linearization; block 1 spends both DAG txs' outputs
	// to A's first output and the new asset.
	spend := xTx(t, &txs.BaseTx{BaseTx: xBase("blk", []*avax.TransferableInput{
		xIn(base.ID, 0, avaxID, 5), xIn(create.ID, 1, create.ID, 1000),
	}, xOut(avaxID, 4, uAddrB), xOut(create.ID, 1000, uAddrB)).BaseTx})
	blocks := xBlocks(t, "dag", g, nil, []*xchain.Tx{spend})

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
						if n := applyXDAG(t, s, g, 1); n != want {
							t.Fatalf("DAG batch %d applied %d, want %d", i, n, want)
						}
					}
				}
				blks := func() {
					if err := s.ApplyXBlocks(ctx, xchain.BlocksData(blocks), deriveX); err != nil {
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

// dagScenario is a pre-Cortina X-chain history over mainnet's genesis (DAG
// txs served as X/tx containers), the post-linearization blocks that spend
// its outputs, and P-chain blocks that export to it and import from it.
type dagScenario struct {
	network    internal.Network
	genesis    *xchain.Genesis
	containers []Container
	dagTxs     []*xchain.Tx
	x          []*xchain.Block
	p          []*pchain.Block

	gen, gen2, genOther                          *xchain.UTXO
	create, base, export, op, imp, spend, spend2 *xchain.Tx
	pToX, pFromX                                 *ptxs.Tx
}

const dagTime = 1_600_000_000

func newDAGScenario(t testing.TB) *dagScenario {
	t.Helper()
	gb, avaxID, err := genesis.FromConfig(genesis.GetConfig(constants.MainnetID))
	if err != nil {
		t.Fatal(err)
	}
	xChain, err := genesis.VMGenesis(gb, constants.AVMID)
	if err != nil {
		t.Fatal(err)
	}
	g, ok, err := xchain.GenesisFor(xChain.ID())
	if err != nil || !ok || !g.DAG || len(g.UTXOs) < 3 {
		t.Fatalf("mainnet X genesis: %t, %v", ok, err)
	}
	sc := &dagScenario{network: internal.Network{ID: constants.MainnetID, XChainID: xChain.ID()}, genesis: g,
		gen: g.UTXOs[0], gen2: g.UTXOs[1], genOther: g.UTXOs[2]}
	in := func(u *xchain.UTXO) *avax.TransferableInput {
		return xIn(u.UTXO.TxID, u.UTXO.OutputIndex, avaxID, u.Amount)
	}

	// DAG tx 0: a new asset, paid with a genesis UTXO. Outputs: 0 AVAX to
	// A, 1 the asset's 1000 to A, 2 its mint right to B.
	sc.create = xTx(t, &txs.CreateAssetTx{
		BaseTx: xBase("c", []*avax.TransferableInput{in(sc.gen)}, xOut(avaxID, sc.gen.Amount-10, uAddrA)),
		Name:   "Dag", Symbol: "DAG",
		States: []*txs.InitialState{{FxIndex: 0, Outs: []verify.State{
			&secp256k1fx.TransferOutput{Amt: 1000, OutputOwners: uOwners(uAddrA)},
			&secp256k1fx.MintOutput{OutputOwners: uOwners(uAddrB)},
		}}},
	})
	asset := sc.create.ID
	// DAG tx 1 spends DAG outputs and another genesis UTXO. Outputs: 0 AVAX
	// 100 to A, 1 AVAX to A, 2 asset 400 to C, 3 asset 600 to A.
	sc.base = xTx(t, &txs.BaseTx{BaseTx: xBase("b",
		[]*avax.TransferableInput{xIn(asset, 0, avaxID, sc.gen.Amount-10), xIn(asset, 1, asset, 1000), in(sc.gen2)},
		xOut(avaxID, 100, uAddrA), xOut(avaxID, sc.gen.Amount-110+sc.gen2.Amount, uAddrA),
		xOut(asset, 400, uAddrC), xOut(asset, 600, uAddrA)).BaseTx})
	// DAG tx 2 exports to P: 0 AVAX change to C, 1 (exported) 50 to A.
	sc.export = xTx(t, &txs.ExportTx{
		BaseTx:           xBase("e", []*avax.TransferableInput{xIn(sc.base.ID, 1, avaxID, 1_000_000)}, xOut(avaxID, 999_000, uAddrC)),
		DestinationChain: aPChain,
		ExportedOuts:     []*avax.TransferableOutput{xOut(avaxID, 50, uAddrA)},
	})
	// DAG tx 3 mints with the mint right: 0 the mint right again to B, 1
	// 77 of the asset to C.
	sc.op = xTx(t, &txs.OperationTx{
		BaseTx: xBase("o", nil),
		Ops: []*txs.Operation{{
			Asset:   avax.Asset{ID: asset},
			UTXOIDs: []*avax.UTXOID{{TxID: asset, OutputIndex: 2}},
			Op: &secp256k1fx.MintOperation{
				MintInput:      secp256k1fx.Input{SigIndices: []uint32{0}},
				MintOutput:     secp256k1fx.MintOutput{OutputOwners: uOwners(uAddrB)},
				TransferOutput: secp256k1fx.TransferOutput{Amt: 77, OutputOwners: uOwners(uAddrC)},
			},
		}},
	})
	// P block 1 exports 40 to X (P output 1); DAG tx 4 imports it: 0 AVAX
	// 39 to A.
	sc.pToX = uTx(t, &ptxs.ExportTx{BaseTx: uBase([]*avax.TransferableInput{uIn(ids.ID{1}, 0, 100)}, uOut(50, uAddrA)),
		DestinationChain: aXChain, ExportedOutputs: []*avax.TransferableOutput{uOut(40, uAddrA)}})
	sc.imp = xTx(t, &txs.ImportTx{BaseTx: xBase("i", nil, xOut(avaxID, 39, uAddrA)), SourceChain: aPChain,
		ImportedIns: []*avax.TransferableInput{uIn(sc.pToX.ID(), 1, 40)}})
	// P block 2 imports the DAG export.
	sc.pFromX = uTx(t, &ptxs.ImportTx{BaseTx: uBase(nil, uOut(49, uAddrA)), SourceChain: aXChain,
		ImportedInputs: []*avax.TransferableInput{uIn(sc.export.ID, 1, 50)}})

	sc.dagTxs = []*xchain.Tx{sc.create, sc.base, sc.export, sc.op, sc.imp}
	for i, tx := range sc.dagTxs {
		sc.containers = append(sc.containers, Container{Index: uint64(i), ID: tx.ID, Bytes: tx.Bytes,
			Timestamp: time.Unix(dagTime+int64(i), 250_000_000).UTC().Format(time.RFC3339Nano)})
	}

	// Blocks after the linearization (block 0, empty) spend DAG outputs.
	sc.spend = xTx(t, &txs.BaseTx{BaseTx: xBase("s",
		[]*avax.TransferableInput{xIn(sc.base.ID, 0, avaxID, 100), xIn(sc.base.ID, 3, asset, 600)},
		xOut(avaxID, 90, uAddrC), xOut(asset, 600, uAddrC)).BaseTx})
	sc.spend2 = xTx(t, &txs.BaseTx{BaseTx: xBase("t",
		[]*avax.TransferableInput{xIn(sc.imp.ID, 0, avaxID, 39)}, xOut(avaxID, 38, uAddrA)).BaseTx})
	sc.x = xBlocks(t, "dag", g, nil, []*xchain.Tx{sc.spend}, []*xchain.Tx{sc.spend2})

	pb := func(h uint64, tt ...*ptxs.Tx) pSpec {
		return pSpec{typ: "BanffStandardBlock", time: time.Unix(1_700_000_000+int64(h), 0), txs: tt}
	}
	sc.p = pChain(t, 0, testID("dp"), pb(0), pb(1, sc.pToX), pb(2, sc.pFromX))
	return sc
}

// applyDAG mirrors the X/tx containers from..to-1 and decodes what is
// mirrored, max containers per call.
func (sc *dagScenario) applyDAG(t *testing.T, s Store, from, to, max int) {
	t.Helper()
	ctx := context.Background()
	if err := s.ApplyContainers(ctx, XTxIndex, sc.containers[from:to]); err != nil {
		t.Fatal(err)
	}
	for applyXDAG(t, s, sc.genesis, max) > 0 {
	}
}

// applyXDAG decodes and applies the next max mirrored X/tx containers, as
// the ingester does, with the X-chain's genesis g; it returns how many.
func applyXDAG(t *testing.T, s Store, g *xchain.Genesis, max int) int {
	t.Helper()
	ctx := context.Background()
	cs, err := s.XDAGContainers(ctx, max)
	if err != nil {
		t.Fatal(err)
	}
	var dtxs []*xchain.DAGTx
	for _, c := range cs {
		d, err := xchain.DecodeDAGTx(c.Index, c.ID, c.Bytes, c.Timestamp, g)
		if err != nil {
			t.Fatal(err)
		}
		dtxs = append(dtxs, d)
	}
	if err := s.ApplyXDAGTxs(ctx, xchain.DAGTxsData(dtxs), xstate.ApplyDAG[*DAGTx]); err != nil {
		t.Fatal(err)
	}
	return len(cs)
}

func (sc *dagScenario) applyBlocks(t *testing.T, s Store) {
	t.Helper()
	ctx := context.Background()
	if err := s.ApplyXBlocks(ctx, xchain.BlocksData(sc.x), deriveX); err != nil {
		t.Fatal(err)
	}
	if err := applyPBlocks(ctx, s, sc.p); err != nil {
		t.Fatal(err)
	}
}

// TestXDAGScenario applies a DAG history and the blocks after it in either order,
// or interleaved, and again: the UTXO set is the same, every spend found
// its UTXO, and the atomic movements with P are matched.
func TestXDAGScenario(t *testing.T) {
	sc := newDAGScenario(t)
	n := len(sc.containers)
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
				nb, _ := json.Marshal(sc.network)
				if err := s.PutSettingIfAbsent(ctx, NetworkSetting, nb); err != nil {
					t.Fatal(err)
				}
				apply(t, s)
				sc.check(t, s)

				// Re-applying everything, the DAG txs from a cursor moved
				// back (as after a crash), changes nothing.
				if _, err := s.db.Exec(ctx, "DELETE FROM cursors WHERE chain = ?", string(XDAGCursor)); err != nil {
					t.Fatal(err)
				}
				sc.applyDAG(t, s, 0, n, 3)
				sc.applyBlocks(t, s)
				sc.check(t, s)
			})
		}
	})
}

func (sc *dagScenario) check(t *testing.T, s *sqlStore) {
	t.Helper()
	ctx := context.Background()
	type spent struct {
		by     ids.ID
		height uint64
	}
	// Every UTXO the txs consume, with the consumer and its height (0 for
	// a DAG tx).
	consumed := map[ids.ID]spent{
		sc.gen.ID():              {sc.create.ID, 0},
		sc.gen2.ID():             {sc.base.ID, 0},
		utxoKey(sc.create.ID, 0): {sc.base.ID, 0},
		utxoKey(sc.create.ID, 1): {sc.base.ID, 0},
		utxoKey(sc.create.ID, 2): {sc.op.ID, 0},
		utxoKey(sc.base.ID, 0):   {sc.spend.ID, 1},
		utxoKey(sc.base.ID, 1):   {sc.export.ID, 0},
		utxoKey(sc.base.ID, 3):   {sc.spend.ID, 1},
		utxoKey(sc.imp.ID, 0):    {sc.spend2.ID, 2},
		utxoKey(sc.export.ID, 1): {sc.pFromX.ID(), 2}, // imported on P
		utxoKey(sc.pToX.ID(), 1): {sc.imp.ID, 0},      // imported by a DAG tx
		sc.genOther.ID():         {},                  // unspent
		utxoKey(sc.base.ID, 2):   {},
		utxoKey(sc.export.ID, 0): {},
		utxoKey(sc.op.ID, 0):     {},
		utxoKey(sc.op.ID, 1):     {},
		utxoKey(sc.spend.ID, 0):  {},
		utxoKey(sc.spend.ID, 1):  {},
		utxoKey(sc.spend2.ID, 0): {},
	}
	for id, want := range consumed {
		var gotBy ids.ID
		var gotHeight uint64
		if id == utxoKey(sc.pToX.ID(), 1) {
			u, err := s.ExportedUTXO(ctx, id)
			if err != nil {
				t.Fatalf("P export %s: %v", id, err)
			}
			gotBy, gotHeight = u.ConsumedTxID, u.ConsumedHeight
		} else {
			u, err := s.XUTXO(ctx, id)
			if err != nil {
				t.Fatalf("X UTXO %s: %v", id, err)
			}
			gotBy, gotHeight = u.ConsumedTxID, u.ConsumedHeight
		}
		if gotBy != want.by || gotHeight != want.height {
			t.Errorf("UTXO %s consumed by %s at %d, want %s at %d", id, gotBy, gotHeight, want.by, want.height)
		}
	}
	if u, err := s.XUTXO(ctx, utxoKey(sc.create.ID, 1)); err != nil || u.CreatedHeight != 0 || u.CreatedTxID != sc.create.ID {
		t.Errorf("DAG-created UTXO = %+v, %v", u, err)
	}
	if u, err := s.XUTXO(ctx, sc.gen.ID()); err != nil || u.CreatedTxID != sc.gen.UTXO.TxID {
		t.Errorf("genesis UTXO = %+v, %v", u, err)
	}

	// The unspent sets, by owner: id -> amount.
	asset := sc.create.ID
	want := map[ids.ShortID]map[ids.ID]uint64{
		uAddrA: {utxoKey(sc.spend2.ID, 0): 38},
		uAddrB: {utxoKey(sc.op.ID, 0): 0},
		uAddrC: {utxoKey(sc.base.ID, 2): 400, utxoKey(sc.export.ID, 0): 999_000, utxoKey(sc.op.ID, 1): 77,
			utxoKey(sc.spend.ID, 0): 90, utxoKey(sc.spend.ID, 1): 600},
	}
	for addr, w := range want {
		us, err := s.XUTXOsOf(ctx, []ids.ShortID{addr})
		if err != nil {
			t.Fatal(err)
		}
		got := map[ids.ID]uint64{}
		for _, u := range us {
			got[u.ID] = u.Amount
		}
		if len(got) != len(w) {
			t.Errorf("UTXOs of %s: %v, want %v", addr, got, w)
		}
		for id, amt := range w {
			if a, ok := got[id]; !ok || a != amt {
				t.Errorf("UTXO %s of %s: %d (held %t), want %d", id, addr, a, ok, amt)
			}
		}
	}
	if us, err := s.XUTXOsOf(ctx, []ids.ShortID{uAddrC}); err == nil {
		for _, u := range us {
			if u.ID == utxoKey(sc.op.ID, 1) && u.AssetID != asset {
				t.Errorf("minted UTXO of asset %s, want %s", u.AssetID, asset)
			}
		}
	}
	// The genesis holder no longer holds the spent genesis UTXO.
	if us, err := s.XUTXOsOf(ctx, sc.gen.Owners.Addrs); err != nil ||
		slices.ContainsFunc(us, func(u *ListedUTXO) bool { return u.ID == sc.gen.ID() }) {
		t.Errorf("genesis holder's UTXOs include the spent genesis UTXO (%v)", err)
	}

	// The avm.getUTXOs pages list the same sets.
	checkPages(t, s, xUTXOPage, uAddrA, uAddrB, uAddrC)

	// Every spend found its UTXO.
	var early int
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM x_early_spends").Scan(&early); err != nil || early != 0 {
		t.Errorf("%d early spends left (%v)", early, err)
	}

	// The DAG txs, by id.
	for i, tx := range sc.dagTxs {
		got, err := s.XDAGTx(ctx, tx.ID)
		if err != nil {
			t.Fatalf("DAG tx %d: %v", i, err)
		}
		if got.Index != uint64(i) || got.Type != tx.Type || !bytes.Equal(got.Bytes, tx.Bytes) ||
			!got.Timestamp.Equal(time.Unix(dagTime+int64(i), 0)) {
			t.Errorf("DAG tx %d = index %d, type %s, time %s", i, got.Index, got.Type, got.Timestamp)
		}
	}
	if _, err := s.XDAGTx(ctx, sc.spend.ID); err == nil {
		t.Error("a block tx is a DAG tx")
	}
	if cur, ok, err := s.Cursor(ctx, XDAGCursor); err != nil || !ok || cur != uint64(len(sc.dagTxs)-1) {
		t.Errorf("DAG cursor %d, %t, %v", cur, ok, err)
	}
}
