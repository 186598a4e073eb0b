package tests

import (
	"bytes"
	"context"
	"testing"

	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/client"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/xchain"
)

// utxoPageLimit is the page size asked of the node; the scenario's
// addresses hold far fewer UTXOs.
const utxoPageLimit = 1024

// TestAtomicAndXUTXOsConformance checks avaindex's X-chain UTXO set and the
// atomic UTXOs moving between P, X and C against the node: the unspent X
// UTXOs of the scenario's addresses are avm.getUTXOs' (ids and bytes),
// every export of the scenario is marked consumed by its import, and what
// is left in shared memory is what the chains' getUTXOs with sourceChain
// list.
func TestAtomicAndXUTXOsConformance(t *testing.T) {
	n, issued := issuedNetwork(t)
	ctx := context.Background()
	nc := node.New(n.URL)
	pTip, err := nc.PHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	xTip, err := nc.XHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cTip, err := nc.CHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pc := platformvm.NewClient(n.URL)
	xc := avm.NewClient(n.URL, "X")
	cc := client.NewCChainClient(n.URL)
	addrs := []ids.ShortID{n.Addr, issued.Recipient}

	// The UTXO ids each export of the scenario put into shared memory,
	// from the txs as the node serves them, with the import that takes
	// them.
	type export struct {
		name string
		ids  []ids.ID
		imp  ids.ID
	}
	var exports []export
	for _, e := range []struct {
		name    string
		tx, imp ids.ID
		p       bool
	}{
		{"P→X", issued.PExportToX, issued.XImportFromP, true},
		{"P→C", issued.PExportToC, issued.CImportFromP, true},
		{"X→P", issued.XExportToP, issued.PImportFromX, false},
	} {
		var produced []ids.ID
		if e.p {
			b, err := pc.GetTx(ctx, e.tx)
			if err != nil {
				t.Fatal(err)
			}
			tx, err := pchain.ParseTx(b)
			if err != nil {
				t.Fatal(err)
			}
			eff, err := pchain.UTXOsOfTx(tx)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range eff.Produced {
				if u.Kind == pchain.KindExported {
					produced = append(produced, u.ID())
				}
			}
		} else {
			b, err := xc.GetTx(ctx, e.tx)
			if err != nil {
				t.Fatal(err)
			}
			tx, err := xchain.ParseTx(b)
			if err != nil {
				t.Fatal(err)
			}
			eff, err := xchain.UTXOsOfTx(tx)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range eff.Produced {
				if u.Kind == xchain.KindExported {
					produced = append(produced, u.ID())
				}
			}
		}
		exports = append(exports, export{e.name, produced, e.imp})
	}
	cb, err := cc.GetAtomicTx(ctx, issued.CExportToP)
	if err != nil {
		t.Fatal(err)
	}
	ctx2, err := atomic.ExtractAtomicTx(cb, atomic.Codec)
	if err != nil {
		t.Fatal(err)
	}
	cExport, ok := ctx2.UnsignedAtomicTx.(*atomic.UnsignedExportTx)
	if !ok {
		t.Fatalf("C-chain tx %s is a %T", issued.CExportToP, ctx2.UnsignedAtomicTx)
	}
	var cIDs []ids.ID
	for i := range cExport.ExportedOutputs {
		cIDs = append(cIDs, (&avax.UTXOID{TxID: issued.CExportToP, OutputIndex: uint32(i)}).InputID())
	}
	exports = append(exports, export{"C→P", cIDs, issued.PImportFromC})

	// The node's UTXOs, per (destination, source): source "" is the
	// destination's own set.
	nodeUTXOs := func(t *testing.T, dest internal.Chain, source string) map[ids.ID][]byte {
		t.Helper()
		var (
			raw [][]byte
			err error
		)
		switch dest {
		case internal.PChain:
			raw, _, _, err = pc.GetAtomicUTXOs(ctx, addrs, source, utxoPageLimit, ids.ShortEmpty, ids.Empty)
		case internal.XChain:
			raw, _, _, err = xc.GetAtomicUTXOs(ctx, addrs, source, utxoPageLimit, ids.ShortEmpty, ids.Empty)
		case internal.CChain:
			raw, _, _, err = cc.GetAtomicUTXOs(ctx, addrs, source, utxoPageLimit, ids.ShortEmpty, ids.Empty)
		}
		if err != nil {
			t.Fatalf("%s-chain getUTXOs(sourceChain %q): %v", dest, source, err)
		}
		if len(raw) >= utxoPageLimit {
			t.Fatalf("%s-chain getUTXOs(sourceChain %q) filled a page", dest, source)
		}
		out := map[ids.ID][]byte{}
		for _, b := range raw {
			var (
				id  ids.ID
				err error
			)
			switch dest {
			case internal.PChain:
				var u *pchain.UTXO
				if u, err = pchain.ParseUTXO(b); err == nil {
					id = u.ID()
				}
			case internal.XChain:
				var u *xchain.UTXO
				if u, err = xchain.ParseUTXO(b); err == nil {
					id = u.ID()
				}
			default:
				u := &avax.UTXO{}
				if _, err = atomic.Codec.Unmarshal(b, u); err == nil {
					id = u.InputID()
				}
			}
			if err != nil {
				t.Fatalf("decoding a UTXO of %s-chain getUTXOs: %v", dest, err)
			}
			out[id] = b
		}
		return out
	}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		startService(t, n.URL, dsn)
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		waitCursor(t, st, internal.PChain, pTip)
		waitCursor(t, st, internal.XChain, xTip)
		waitCursor(t, st, internal.CChain, cTip)

		// The X-chain's UTXO set.
		want := nodeUTXOs(t, internal.XChain, "")
		got, err := readsOf(t, st).XUTXOsOf(ctx, addrs)
		if err != nil {
			t.Fatal(err)
		}
		gotMap := map[ids.ID][]byte{}
		for _, u := range got {
			gotMap[u.ID] = u.Bytes
		}
		compareUTXOs(t, "X-chain UTXO set", gotMap, want)
		if len(want) == 0 {
			t.Error("the node lists no X-chain UTXOs for the scenario's addresses")
		}

		// Every input of every X-chain tx spends a stored UTXO (the genesis
		// allocations included), and is recorded as spent by that tx.
		for h := uint64(0); h <= xTip; h++ {
			b, err := st.XBlockByHeight(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			for _, stx := range b.Txs {
				tx, err := xchain.ParseTx(stx.Bytes)
				if err != nil {
					t.Fatal(err)
				}
				eff, err := xchain.UTXOsOfTx(tx)
				if err != nil {
					t.Fatal(err)
				}
				for _, in := range eff.Consumed {
					u, err := readsOf(t, st).XUTXO(ctx, in.ID)
					if err != nil {
						t.Errorf("X-chain tx %s spends %s: %v", stx.ID, in.ID, err)
						continue
					}
					if u.ConsumedTxID != stx.ID || u.ConsumedHeight != h {
						t.Errorf("X-chain UTXO %s consumed by %s at %d, want %s at %d", in.ID, u.ConsumedTxID, u.ConsumedHeight, stx.ID, h)
					}
				}
				for _, in := range eff.Imported {
					u, err := readsOf(t, st).ExportedUTXO(ctx, in.ID)
					if err != nil {
						t.Errorf("X-chain import %s takes %s: %v", stx.ID, in.ID, err)
						continue
					}
					if u.ConsumedTxID != stx.ID || u.ConsumedHeight != h || u.PeerChain != n.XChainID {
						t.Errorf("export %s consumed by %s at %d (to %s), want %s at %d", in.ID, u.ConsumedTxID, u.ConsumedHeight, u.PeerChain, stx.ID, h)
					}
				}
			}
		}

		// Every export consumed by its import.
		for _, e := range exports {
			if len(e.ids) == 0 {
				t.Errorf("%s export exported nothing", e.name)
			}
			for _, id := range e.ids {
				u, err := readsOf(t, st).ExportedUTXO(ctx, id)
				if err != nil {
					t.Errorf("%s export UTXO %s: %v", e.name, id, err)
					continue
				}
				if u.ConsumedTxID != e.imp {
					t.Errorf("%s export UTXO %s consumed by %s, want the import %s", e.name, id, u.ConsumedTxID, e.imp)
				}
			}
		}

		// What is left in shared memory.
		chainIDs := map[internal.Chain]ids.ID{internal.PChain: n.PChainID, internal.XChain: n.XChainID, internal.CChain: n.CChainID}
		for _, pair := range []struct{ dest, source internal.Chain }{
			{internal.PChain, internal.XChain}, {internal.PChain, internal.CChain},
			{internal.XChain, internal.PChain}, {internal.XChain, internal.CChain},
			{internal.CChain, internal.PChain}, {internal.CChain, internal.XChain},
		} {
			left, err := readsOf(t, st).AtomicUTXOs(ctx, chainIDs[pair.dest], addrs)
			if err != nil {
				t.Fatal(err)
			}
			gotLeft := map[ids.ID][]byte{}
			for _, u := range left {
				if u.Origin == pair.source {
					gotLeft[u.ID] = u.Bytes
				}
			}
			compareUTXOs(t, string(pair.source)+"→"+string(pair.dest)+" shared memory", gotLeft,
				nodeUTXOs(t, pair.dest, chainIDs[pair.source].String()))
		}
	})
}

func compareUTXOs(t *testing.T, what string, got, want map[ids.ID][]byte) {
	t.Helper()
	for id, b := range want {
		g, ok := got[id]
		switch {
		case !ok:
			t.Errorf("%s: avaindex lacks the node's UTXO %s", what, id)
		case !bytes.Equal(g, b):
			t.Errorf("%s: UTXO %s bytes %x, the node's %x", what, id, g, b)
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("%s: avaindex has UTXO %s the node does not list", what, id)
		}
	}
}
