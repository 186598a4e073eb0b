package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	ptxs "github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/cchain"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/xchain"
)

var (
	aPChain = ids.Empty
	aXChain = uXID
	aCChain = ids.ID{'c'}
)

// cTx builds an atomic tx as C-chain blocks carry it, decoded by cchain.
func cTx(t testing.TB, u atomic.UnsignedAtomicTx) (*cchain.AtomicTx, ids.ID) {
	t.Helper()
	tx := &atomic.Tx{UnsignedAtomicTx: u}
	if err := tx.Sign(atomic.Codec, nil); err != nil {
		t.Fatal(err)
	}
	a, err := cchain.NewAtomicTx(tx)
	if err != nil {
		t.Fatal(err)
	}
	return a, tx.ID()
}

// atomicScenario has every atomic movement between P, X and C: each chain
// exports to each other chain it can, and each export is imported.
type atomicScenario struct {
	p []*pchain.Block
	x []*xchain.Block
	c []*cchain.Block
	// imported maps each export's UTXO id to its import and the import's
	// height on the destination chain.
	imported map[ids.ID]struct {
		by     ids.ID
		height uint64
	}
	// pending is an export nobody imports.
	pending ids.ID
	// The imports whose exported UTXOs' owners appear nowhere else in them.
	cFromP, cFromX, xFromC ids.ID
}

func newAtomicScenario(t testing.TB) *atomicScenario {
	sc := &atomicScenario{imported: map[ids.ID]struct {
		by     ids.ID
		height uint64
	}{}}
	imp := func(id, by ids.ID, h uint64) {
		sc.imported[id] = struct {
			by     ids.ID
			height uint64
		}{by, h}
	}

	// P exports to X and to C (output index after its one regular output).
	pToX := uTx(t, &ptxs.ExportTx{BaseTx: uBase([]*avax.TransferableInput{uIn(ids.ID{1}, 0, 100)}, uOut(50, uAddrA)),
		DestinationChain: aXChain, ExportedOutputs: []*avax.TransferableOutput{uOut(40, uAddrA)}})
	pToC := uTx(t, &ptxs.ExportTx{BaseTx: uBase([]*avax.TransferableInput{uIn(ids.ID{1}, 1, 100)}, uOut(50, uAddrA)),
		DestinationChain: aCChain, ExportedOutputs: []*avax.TransferableOutput{uOut(30, uAddrB), uOut(20, uAddrB)}})
	// X exports to P and to C; pending is an X export to C nobody imports.
	xToP := xTx(t, &txs.ExportTx{BaseTx: xBase("e", []*avax.TransferableInput{xIn(ids.ID{2}, 0, uAsset, 100)}),
		DestinationChain: aPChain, ExportedOuts: []*avax.TransferableOutput{xOut(uAsset, 25, uAddrA)}})
	xToC := xTx(t, &txs.ExportTx{BaseTx: xBase("f", []*avax.TransferableInput{xIn(ids.ID{2}, 1, uAsset, 100)}),
		DestinationChain: aCChain, ExportedOuts: []*avax.TransferableOutput{xOut(uAsset, 15, uAddrC), xOut(uAsset, 14, uAddrC)}})
	// C exports to P and to X.
	cToP, cToPID := cTx(t, &atomic.UnsignedExportTx{NetworkID: 12345, BlockchainID: aCChain, DestinationChain: aPChain,
		ExportedOutputs: []*avax.TransferableOutput{uOut(11, uAddrA)}})
	cToX, cToXID := cTx(t, &atomic.UnsignedExportTx{NetworkID: 12345, BlockchainID: aCChain, DestinationChain: aXChain,
		ExportedOutputs: []*avax.TransferableOutput{uOut(12, uAddrC)}})

	ein := func(txID ids.ID, idx uint32, amt uint64) *avax.TransferableInput { return uIn(txID, idx, amt) }
	// Imports.
	pFromX := uTx(t, &ptxs.ImportTx{BaseTx: uBase(nil, uOut(24, uAddrA)), SourceChain: aXChain,
		ImportedInputs: []*avax.TransferableInput{ein(xToP.ID, 0, 25)}})
	pFromC := uTx(t, &ptxs.ImportTx{BaseTx: uBase(nil, uOut(10, uAddrA)), SourceChain: aCChain,
		ImportedInputs: []*avax.TransferableInput{ein(cToPID, 0, 11)}})
	xFromP := xTx(t, &txs.ImportTx{BaseTx: xBase("i", nil, xOut(uAsset, 39, uAddrA)), SourceChain: aPChain,
		ImportedIns: []*avax.TransferableInput{ein(pToX.ID(), 1, 40)}})
	xFromC := xTx(t, &txs.ImportTx{BaseTx: xBase("j", nil, xOut(uAsset, 11, uAddrA)), SourceChain: aCChain,
		ImportedIns: []*avax.TransferableInput{ein(cToXID, 0, 12)}})
	evmOut := []atomic.EVMOutput{{Address: common.Address{1}, Amount: 1, AssetID: uAsset}}
	cFromP, cFromPID := cTx(t, &atomic.UnsignedImportTx{NetworkID: 12345, BlockchainID: aCChain, SourceChain: aPChain,
		ImportedInputs: []*avax.TransferableInput{ein(pToC.ID(), 1, 30), ein(pToC.ID(), 2, 20)}, Outs: evmOut})
	cFromX, cFromXID := cTx(t, &atomic.UnsignedImportTx{NetworkID: 12345, BlockchainID: aCChain, SourceChain: aXChain,
		ImportedInputs: []*avax.TransferableInput{ein(xToC.ID, 0, 15)}, Outs: evmOut})

	pb := func(h uint64, tt ...*ptxs.Tx) pSpec {
		return pSpec{typ: "BanffStandardBlock", time: time.Unix(1_700_000_000+int64(h), 0), txs: tt}
	}
	sc.p = pChain(t, 0, testID("ap"), pb(0), pb(1, pToX, pToC), pb(2, pFromX), pb(3, pFromC))
	sc.x = xBlocks(t, "ax", nil, nil, []*xchain.Tx{xToP, xToC}, []*xchain.Tx{xFromP}, []*xchain.Tx{xFromC})
	cb := func(h uint64, tt ...*cchain.AtomicTx) *cchain.Block {
		return &cchain.Block{Height: h, Hash: testID("ac", h), Parent: testID("ac", h-1),
			Timestamp: time.Unix(1_700_000_000+int64(h), 0), AtomicTxs: tt}
	}
	sc.c = []*cchain.Block{cb(0), cb(1, cToP, cToX), cb(2), cb(3, cFromX, cFromP)}

	imp(utxoKey(pToX.ID(), 1), xFromP.ID, 2)
	imp(utxoKey(pToC.ID(), 1), cFromPID, 3)
	imp(utxoKey(pToC.ID(), 2), cFromPID, 3)
	imp(utxoKey(xToP.ID, 0), pFromX.ID(), 2)
	imp(utxoKey(xToC.ID, 0), cFromXID, 3)
	imp(utxoKey(cToPID, 0), pFromC.ID(), 3)
	imp(utxoKey(cToXID, 0), xFromC.ID, 3)
	sc.pending = utxoKey(xToC.ID, 1)
	sc.cFromP, sc.cFromX, sc.xFromC = cFromPID, cFromXID, xFromC.ID
	return sc
}

// apply applies one chain's blocks in one batch or, when oneByOne, in
// batches of one block, so that a batch holds exports without imports or
// the reverse.
func (sc *atomicScenario) apply(t *testing.T, s Store, chain byte, oneByOne bool) {
	t.Helper()
	ctx := context.Background()
	n := map[byte]int{'P': len(sc.p), 'X': len(sc.x), 'C': len(sc.c)}[chain]
	step := n
	if oneByOne {
		step = 1
	}
	for lo := 0; lo < n; lo += step {
		hi := lo + step
		var err error
		switch chain {
		case 'P':
			err = applyPBlocks(ctx, s, sc.p[lo:hi])
		case 'X':
			err = s.ApplyXBlocks(ctx, xchain.BlocksData(sc.x[lo:hi]), deriveX)
		case 'C':
			err = s.ApplyCBlocks(ctx, sc.c[lo:hi], deriveC)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestAtomicMovement applies the three chains in every order, and again:
// each export ends marked consumed by its import, whichever came first.
func TestAtomicMovement(t *testing.T) {
	sc := newAtomicScenario(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		for _, order := range []string{"PXC", "PCX", "XPC", "XCP", "CPX", "CXP"} {
			for _, oneByOne := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/oneByOne=%v", order, oneByOne), func(t *testing.T) {
					s := openStore(t, dbtestFresh(t, dsn))
					for _, chain := range order {
						sc.apply(t, s, byte(chain), oneByOne)
					}
					sc.check(t, s)
					// Re-applying, in the order, changes nothing.
					for _, chain := range order {
						sc.apply(t, s, byte(chain), oneByOne)
					}
					sc.check(t, s)
				})
			}
		}
	})
}

func (sc *atomicScenario) check(t *testing.T, s *sqlStore) {
	t.Helper()
	ctx := context.Background()
	for id, want := range sc.imported {
		u, err := s.ExportedUTXO(ctx, id)
		if err != nil {
			t.Fatalf("export %s: %v", id, err)
		}
		if u.ConsumedTxID != want.by || u.ConsumedHeight != want.height {
			t.Errorf("export %s (from %s) consumed by %s at %d, want %s at %d",
				id, u.Origin, u.ConsumedTxID, u.ConsumedHeight, want.by, want.height)
		}
	}
	left, err := s.AtomicUTXOs(ctx, aCChain, []ids.ShortID{uAddrC, uAddrA})
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].ID != sc.pending || left[0].Origin != internal.XChain || left[0].Amount != 14 || left[0].Spent() {
		t.Errorf("atomic UTXOs left for C: %+v, want only %s", left, sc.pending)
	}
	for _, dest := range []ids.ID{aPChain, aXChain} {
		if left, err := s.AtomicUTXOs(ctx, dest, []ids.ShortID{uAddrA, uAddrB, uAddrC}); err != nil || len(left) != 0 {
			t.Errorf("atomic UTXOs left for %s: %+v, %v", dest, left, err)
		}
	}
	// The X-chain's own set holds neither exports nor imports.
	xs, err := s.XUTXOsOf(ctx, []ids.ShortID{uAddrA, uAddrC})
	if err != nil {
		t.Fatal(err)
	}
	if len(xs) != 2 {
		t.Errorf("X UTXOs of A and C: %+v, want the two imports' outputs", xs)
	}
	if _, err := s.ExportedUTXO(ctx, ids.ID{7}); err == nil {
		t.Error("ExportedUTXO of an unknown id succeeded")
	}
	// An import is in the history of the exported UTXO's owners on the
	// importing chain, whichever chain was indexed first: these owners
	// own nothing else the import touches.
	for _, w := range []struct {
		chain internal.Chain
		owner ids.ShortID
		tx    ids.ID
	}{
		{internal.CChain, uAddrB, sc.cFromP},
		{internal.CChain, uAddrC, sc.cFromX},
		{internal.XChain, uAddrC, sc.xFromC},
	} {
		txs, err := s.AddressTxs(ctx, AddressTxQuery{Chain: w.chain, Addresses: []ids.ShortID{w.owner}, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(txs, func(a *AddressTx) bool { return a.ID == w.tx }) {
			t.Errorf("the %s-chain history of %s lacks import %s: %d txs", w.chain, w.owner, w.tx, len(txs))
		}
	}
}

// TestAtomicConcurrent applies the three chains at the same time, as the
// service's followers do: the matching must not deadlock nor miss a pair.
func TestAtomicConcurrent(t *testing.T) {
	sc := newAtomicScenario(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		for range 4 {
			s := openStore(t, dbtestFresh(t, dsn))
			errs := make(chan error, 3)
			go func() { errs <- applyPBlocks(context.Background(), s, sc.p) }()
			go func() { errs <- s.ApplyXBlocks(context.Background(), xchain.BlocksData(sc.x), deriveX) }()
			go func() { errs <- s.ApplyCBlocks(context.Background(), sc.c, deriveC) }()
			for range 3 {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			sc.check(t, s)
		}
	})
}
