package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/engine/avalanche/vertex"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/xstate"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/xchain"
)

// TestDAGTxVertices stores a DAG-era X-chain (X/tx and X/vtx containers, as
// the node's indexes serve them) on both stores, decodes it as the indexer
// does, and serves each DAG tx with the vertices that carried it: by
// height, then X/vtx index, with the vertex's acceptance time, in A14
// (getTxByHash) and A15 (listAssetTransactions).
func TestDAGTxVertices(t *testing.T) {
	gb, avaxID, err := genesis.FromConfig(genesis.GetConfig(constants.LocalID))
	if err != nil {
		t.Fatal(err)
	}
	xChain, err := genesis.VMGenesis(gb, constants.AVMID)
	if err != nil {
		t.Fatal(err)
	}
	owners := secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{{7}}}
	// Three DAG txs moving AVAX: a and b carried by vertices, c by none.
	var dagTxs []*txs.Tx
	for i, memo := range []string{"a", "b", "c"} {
		tx := &txs.Tx{Unsigned: &txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.LocalID, BlockchainID: xChain.ID(),
			Ins: []*avax.TransferableInput{{UTXOID: avax.UTXOID{TxID: ids.ID{1}, OutputIndex: uint32(i)}, Asset: avax.Asset{ID: avaxID},
				In: &secp256k1fx.TransferInput{Amt: 100, Input: secp256k1fx.Input{SigIndices: []uint32{0}}}}},
			Outs: []*avax.TransferableOutput{{Asset: avax.Asset{ID: avaxID}, Out: &secp256k1fx.TransferOutput{Amt: 90, OutputOwners: owners}}},
			Memo: []byte(memo),
		}}}
		if err := tx.Initialize(builder.Parser.Codec()); err != nil {
			t.Fatal(err)
		}
		dagTxs = append(dagTxs, tx)
	}
	a, b, c := dagTxs[0], dagTxs[1], dagTxs[2]

	// X/vtx container 0 is at height 8 and carries a; container 1, at
	// height 6, carries a and b; container 2 is the stop vertex. So a's
	// vertices in height order are 1 then 0.
	v0, err := vertex.Build(xChain.ID(), 8, []ids.ID{{3}}, [][]byte{a.Bytes()})
	if err != nil {
		t.Fatal(err)
	}
	v1, err := vertex.Build(xChain.ID(), 6, []ids.ID{{4}}, [][]byte{a.Bytes(), b.Bytes()})
	if err != nil {
		t.Fatal(err)
	}
	stop, err := vertex.BuildStopVertex(xChain.ID(), 9, []ids.ID{v0.ID(), v1.ID()})
	if err != nil {
		t.Fatal(err)
	}
	accepted := func(i int) time.Time { return time.Unix(1_600_000_100+int64(10*i), 250_000_000).UTC() }
	var txContainers, vtxContainers []store.Container
	for i, tx := range dagTxs {
		txContainers = append(txContainers, store.Container{Index: uint64(i), ID: tx.ID(), Bytes: tx.Bytes(),
			Timestamp: time.Unix(1_600_000_000+int64(i), 0).UTC().Format(time.RFC3339Nano)})
	}
	for i, v := range []vertex.StatelessVertex{v0, v1, stop} {
		vtxContainers = append(vtxContainers, store.Container{Index: uint64(i), ID: v.ID(), Bytes: v.Bytes(),
			Timestamp: accepted(i).Format(time.RFC3339Nano)})
	}
	want := map[ids.ID][]TransactionVertex{
		a.ID(): {{Hash: v1.ID().String(), Height: 6, Timestamp: 1_600_000_110}, {Hash: v0.ID().String(), Height: 8, Timestamp: 1_600_000_100}},
		b.ID(): {{Hash: v1.ID().String(), Height: 6, Timestamp: 1_600_000_110}},
		c.ID(): {},
	}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.ApplyContainers(ctx, store.XTxIndex, txContainers); err != nil {
			t.Fatal(err)
		}
		if err := st.ApplyContainers(ctx, store.XVtxIndex, vtxContainers); err != nil {
			t.Fatal(err)
		}
		cs, err := st.XDAGContainers(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		var dtxs []*xchain.DAGTx
		for _, c := range cs {
			d, err := xchain.DecodeDAGTx(c.Index, c.ID, c.Bytes, c.Timestamp, nil)
			if err != nil {
				t.Fatal(err)
			}
			dtxs = append(dtxs, d)
		}
		if err := st.ApplyXDAGTxs(ctx, xchain.DAGTxsData(dtxs), xstate.ApplyDAG[*store.DAGTx]); err != nil {
			t.Fatal(err)
		}
		if cs, err = st.XVertexContainers(ctx, 10); err != nil || len(cs) != 3 {
			t.Fatalf("XVertexContainers = %d, %v", len(cs), err)
		}
		var vs []*xchain.Vertex
		for _, c := range cs {
			v, err := xchain.DecodeVertex(c.Index, c.ID, c.Bytes, c.Timestamp)
			if err != nil {
				t.Fatal(err)
			}
			vs = append(vs, v)
		}
		if err := st.ApplyXVertices(ctx, vs); err != nil {
			t.Fatal(err)
		}

		counted := &vertexReads{DataSource: st}
		api, err := New(Deps{Store: counted, TokenKey: bytes.Repeat([]byte{1}, param.MinTokenKeyLen), Aliases: []string{Testnet},
			Network: &internal.Network{Name: "local", HRP: "local", XChainID: xChain.ID(), AVAXAssetID: avaxID}})
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		for _, r := range api.Routes() {
			mux.Handle(r.Pattern, r.Handler)
		}
		doc := openapitest.Default(t)
		check := func(where string, tx XChainTransaction) {
			t.Helper()
			w, ok := want[ids.FromStringOrPanic(tx.TxHash)]
			if !ok {
				t.Fatalf("%s: tx %s not built", where, tx.TxHash)
			}
			if tx.ChainFormat != "non-linear" || tx.Vertices == nil || !slices.Equal(*tx.Vertices, w) {
				t.Errorf("%s: tx %s (%s) vertices %+v, want %+v", where, tx.TxHash, tx.ChainFormat, tx.Vertices, w)
			}
		}

		// A14: each tx, one at a time.
		for _, tx := range dagTxs {
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/networks/testnet/blockchains/x-chain/transactions/"+tx.ID().String(), nil))
			if rec.Code != http.StatusOK {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			doc.ValidateRecorder(t, "GET", "/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}", rec)
			doc.ValidateSchema(t, "XChainNonLinearTransaction", rec.Body.Bytes())
			var got XChainTransaction
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			check("getTxByHash", got)
		}

		// A15: the three on one page, newest first, then two pages of two
		// and one.
		var seen []string
		for _, q := range []string{"", "?pageSize=2"} {
			seen = seen[:0]
			target := "/v1/networks/testnet/blockchains/x-chain/assets/" + avaxID.String() + "/transactions" + q
			for pages := 0; target != ""; pages++ {
				var page ListXChainTransactionsResponse
				counted.n = 0
				getOK(t, mux, target, &page)
				if counted.n != 1 {
					t.Errorf("%s: %d TxVertices reads, want one per page", target, counted.n)
				}
				for _, tx := range page.Transactions {
					check("listAssetTransactions"+q, tx)
					seen = append(seen, tx.TxHash)
				}
				target = ""
				if page.NextPageToken != "" {
					target = "/v1/networks/testnet/blockchains/x-chain/assets/" + avaxID.String() + "/transactions?pageSize=2&pageToken=" + page.NextPageToken
				}
				if pages > 3 {
					t.Fatal("too many pages")
				}
			}
			if len(seen) != 3 || seen[0] != c.ID().String() || seen[1] != b.ID().String() || seen[2] != a.ID().String() {
				t.Errorf("listAssetTransactions%s listed %v, want c, b, a", q, seen)
			}
		}
	})
}

// vertexReads counts the store's TxVertices reads.
type vertexReads struct {
	DataSource
	n int
}

func (r *vertexReads) TxVertices(ctx context.Context, txIDs []ids.ID) (map[ids.ID][]store.Vertex, error) {
	r.n++
	return r.DataSource.TxVertices(ctx, txIDs)
}
