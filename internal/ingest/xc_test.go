package ingest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/engine/avalanche/vertex"
	"github.com/ava-labs/avalanchego/utils/hashing"
	avmtxs "github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestStepXDAG mirrors a node's X/tx index of avm txs, then decodes it
// into DAG txs in batches, reporting progress as a height and tip.
func TestStepXDAG(t *testing.T) {
	var cs []store.Container
	for i := range 3 {
		tx := &avmtxs.Tx{Unsigned: &avmtxs.BaseTx{BaseTx: avax.BaseTx{NetworkID: 1, BlockchainID: ids.ID{1}, Memo: []byte{byte(i)}}}}
		if err := tx.Initialize(builder.Parser.Codec()); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, store.Container{Index: uint64(i), ID: tx.ID(), Bytes: tx.Bytes(),
			Timestamp: time.Unix(1_600_000_000+int64(i), 0).UTC().Format(time.RFC3339Nano)})
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := stepMirroredIndex(t, dsn, store.XTxIndex, cs, store.XDAGCursor, (*Indexer).stepXDAG)
		for _, c := range cs {
			got, err := st.(interface {
				XDAGTx(context.Context, ids.ID) (*store.XDAGTx, error)
			}).XDAGTx(ctx, c.ID)
			if err != nil || got.Index != c.Index || got.Type != "BaseTx" {
				t.Errorf("XDAGTx(%s) = %+v, %v", c.ID, got, err)
			}
		}
	})
}

// TestStepXVertices mirrors a node's X/vtx index of DAG vertices, then
// decodes it in batches into the txs each carried, reporting progress as a
// height and tip.
func TestStepXVertices(t *testing.T) {
	var (
		cs    []store.Container
		txIDs []ids.ID
	)
	parent := ids.ID{9}
	for i := range 3 {
		tx := []byte{'t', byte(i)}
		txIDs = append(txIDs, hashing.ComputeHash256Array(tx))
		v, err := vertex.Build(ids.ID{1}, uint64(10+i), []ids.ID{parent}, [][]byte{tx})
		if err != nil {
			t.Fatal(err)
		}
		parent = v.ID()
		cs = append(cs, store.Container{Index: uint64(i), ID: v.ID(), Bytes: v.Bytes(),
			Timestamp: time.Unix(1_600_000_000+int64(i), 0).UTC().Format(time.RFC3339Nano)})
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := stepMirroredIndex(t, dsn, store.XVtxIndex, cs, store.XVtxCursor, (*Indexer).stepXVertices)
		got, err := st.TxVertices(ctx, txIDs)
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range txIDs {
			if vs := got[id]; len(vs) != 1 || vs[0].ID != cs[i].ID || vs[0].Index != uint64(i) || vs[0].Height != uint64(10+i) ||
				vs[0].Timestamp.Unix() != 1_600_000_000+int64(i) {
				t.Errorf("tx %d: vertices %+v", i, vs)
			}
		}
	})
}

// stepMirroredIndex serves cs (3 containers) as a fake node's index, then
// runs step (which decodes that index's mirror under cursor, in batches of
// two): caught up before the mirror, not after it, caught up on the second
// step, with the cursor reported at 2 of 2. It returns the store, open
// until the test ends.
func stepMirroredIndex(t *testing.T, dsn, index string, cs []store.Container, cursor store.CursorKey,
	step func(*Indexer, context.Context) (bool, error)) store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	fake := &fakeIndexNode{indexes: map[string][]store.Container{}}
	fake.add(index, cs...)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	ix := New(node.New(srv.URL), &internal.Network{}, st, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{BatchSize: 2})

	if caughtUp, err := step(ix, ctx); err != nil || !caughtUp {
		t.Fatalf("before the mirror: caught up %v, %v; want true", caughtUp, err)
	}
	src := store.SourceUnknown
	if _, err := ix.stepIndex(ctx, index, &src); err != nil {
		t.Fatal(err)
	}
	if caughtUp, err := step(ix, ctx); err != nil || caughtUp {
		t.Fatalf("after the mirror: caught up %v, %v; want false", caughtUp, err)
	}
	if caughtUp, err := step(ix, ctx); err != nil || !caughtUp {
		t.Fatalf("second step: caught up %v, %v; want true", caughtUp, err)
	}
	if s := ix.Status(); s.Heights[string(cursor)] != 2 || s.Tips[string(cursor)] != 2 {
		t.Errorf("status heights %v tips %v; want %s at 2 of 2", s.Heights, s.Tips, cursor)
	}
	return st
}
