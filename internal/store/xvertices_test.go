package store

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/engine/avalanche/vertex"
	"github.com/ava-labs/avalanchego/utils/hashing"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/xchain"
)

// applyXVertices decodes and applies the next max mirrored X/vtx
// containers, as the ingester does; it returns how many.
func applyXVertices(t *testing.T, s Store, max int) int {
	t.Helper()
	ctx := context.Background()
	cs, err := s.XVertexContainers(ctx, max)
	if err != nil {
		t.Fatal(err)
	}
	var vs []*xchain.Vertex
	for _, c := range cs {
		v, err := xchain.DecodeVertex(c.Index, c.ID, c.Bytes, c.Timestamp)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	if err := s.ApplyXVertices(ctx, vs); err != nil {
		t.Fatal(err)
	}
	return len(cs)
}

func TestXVertices(t *testing.T) {
	// Txs are opaque bytes to a vertex; their ids are the bytes' hashes.
	txA, txB, txC := []byte("tx a"), []byte("tx b"), []byte("tx c")
	idA, idB, idC := hashing.ComputeHash256Array(txA), hashing.ComputeHash256Array(txB), hashing.ComputeHash256Array(txC)
	chainID := testID("x")
	// Container i's vertex: its height and txs. a is carried by 0, 1 and 3,
	// b by 1, c by 2; container 4 is the stop vertex.
	specs := []struct {
		height uint64
		txs    [][]byte
	}{{5, [][]byte{txA}}, {5, [][]byte{txA, txB}}, {4, [][]byte{txC}}, {3, [][]byte{txA}}, {6, nil}}
	var (
		containers []Container
		built      []vertex.StatelessVertex
	)
	at := func(i int) int64 { return 1_600_000_000 + 7*int64(i) }
	for i, sp := range specs {
		var (
			v   vertex.StatelessVertex
			err error
		)
		if sp.txs == nil {
			v, err = vertex.BuildStopVertex(chainID, sp.height, []ids.ID{testID("p", i)})
		} else {
			v, err = vertex.Build(chainID, sp.height, []ids.ID{testID("p", i)}, slices.Clone(sp.txs))
		}
		if err != nil {
			t.Fatal(err)
		}
		built = append(built, v)
		containers = append(containers, Container{Index: uint64(i), ID: v.ID(), Bytes: v.Bytes(),
			Timestamp: time.Unix(at(i), 999_000_000).UTC().Format(time.RFC3339Nano)})
	}
	stored := func(i int) Vertex {
		return Vertex{Index: uint64(i), ID: built[i].ID(), Height: specs[i].height, Timestamp: time.Unix(at(i), 0).UTC()}
	}
	// By height, then index.
	want := map[ids.ID][]Vertex{
		idA: {stored(3), stored(0), stored(1)},
		idB: {stored(1)},
		idC: {stored(2)},
	}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		if _, err := s.XVertexContainers(ctx, 0); !errors.Is(err, derrors.InvalidArgument) {
			t.Errorf("XVertexContainers(0): %v", err)
		}
		// Nothing mirrored: nothing to decode, nothing carried.
		if n := applyXVertices(t, s, 10); n != 0 {
			t.Fatalf("applied %d with nothing mirrored", n)
		}
		if got, err := s.TxVertices(ctx, []ids.ID{idA}); err != nil || len(got) != 0 {
			t.Fatalf("TxVertices before = %v, %v", got, err)
		}

		// Three mirrored, decoded two at a time; then the other two.
		if err := s.ApplyContainers(ctx, XVtxIndex, containers[:3]); err != nil {
			t.Fatal(err)
		}
		for i, n := range []int{2, 1, 0} {
			if got := applyXVertices(t, s, 2); got != n {
				t.Fatalf("batch %d applied %d, want %d", i, got, n)
			}
		}
		if cur, ok, err := s.Cursor(ctx, XVtxCursor); err != nil || !ok || cur != 2 {
			t.Fatalf("cursor %d, %v, %v; want 2", cur, ok, err)
		}
		if err := s.ApplyContainers(ctx, XVtxIndex, containers[3:]); err != nil {
			t.Fatal(err)
		}
		if n := applyXVertices(t, s, 10); n != 2 {
			t.Fatalf("applied %d, want 2", n)
		}

		// Each tx's vertices, in one read; a tx no vertex carried has none,
		// and so has the stop vertex's id.
		none := hashing.ComputeHash256Array([]byte("tx never carried"))
		got, err := s.TxVertices(ctx, []ids.ID{idA, idB, idC, none, built[4].ID()})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("TxVertices: %d txs, want %d: %v", len(got), len(want), got)
		}
		for id, w := range want {
			if !slices.Equal(got[id], w) {
				t.Errorf("TxVertices[%s] = %+v, want %+v", id, got[id], w)
			}
		}
		// More ids than one IN list holds.
		many := []ids.ID{idC}
		for i := range readInList + 10 {
			many = append(many, testID("absent", i))
		}
		many = append(many, idB)
		if got, err := s.TxVertices(ctx, many); err != nil || len(got) != 2 || !slices.Equal(got[idB], want[idB]) ||
			!slices.Equal(got[idC], want[idC]) {
			t.Errorf("TxVertices(%d ids) = %v, %v", len(many), got, err)
		}

		// Re-applying changes nothing, and the cursor stays.
		count := func() (n int64) {
			t.Helper()
			if err := s.db.QueryRow(ctx, "SELECT (SELECT COUNT(*) FROM x_vertices) + (SELECT COUNT(*) FROM x_vertex_txs)").Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := count()
		if before != 5+5 {
			t.Errorf("%d rows, want 5 vertices and 5 links", before)
		}
		var again []*xchain.Vertex
		for _, c := range containers[:2] {
			v, err := xchain.DecodeVertex(c.Index, c.ID, c.Bytes, c.Timestamp)
			if err != nil {
				t.Fatal(err)
			}
			again = append(again, v)
		}
		if err := s.ApplyXVertices(ctx, again); err != nil {
			t.Fatal(err)
		}
		if cur, _, _ := s.Cursor(ctx, XVtxCursor); cur != 4 || count() != before {
			t.Errorf("re-applied: cursor %d, %d rows; want 4, %d", cur, count(), before)
		}
		if n := applyXVertices(t, s, 10); n != 0 {
			t.Errorf("applied %d when caught up", n)
		}

		// Refused whole: a gap after the cursor, indices not consecutive, a
		// nil vertex.
		v := func(i uint64) *xchain.Vertex {
			return &xchain.Vertex{Index: i, ID: testID("v", i), TxIDs: []ids.ID{none}}
		}
		for name, vs := range map[string][]*xchain.Vertex{
			"gap":             {v(6)},
			"not consecutive": {v(5), v(7)},
			"nil":             {v(5), nil},
			"nil first":       {nil},
		} {
			if err := s.ApplyXVertices(ctx, vs); !errors.Is(err, derrors.InvalidArgument) {
				t.Errorf("%s: %v", name, err)
			}
		}
		if cur, _, _ := s.Cursor(ctx, XVtxCursor); cur != 4 || count() != before {
			t.Errorf("refused batches wrote: cursor %d, %d rows", cur, count())
		}
		if err := s.ApplyXVertices(ctx, nil); err != nil {
			t.Errorf("empty batch: %v", err)
		}
	})
}

// TestXVerticesFromZero: with nothing decoded, a first batch must start
// at container 0.
func TestXVerticesFromZero(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		err := s.ApplyXVertices(context.Background(), []*xchain.Vertex{{Index: 1, ID: testID("v1")}})
		if !errors.Is(err, derrors.InvalidArgument) {
			t.Errorf("first batch at 1: %v", err)
		}
	})
}
