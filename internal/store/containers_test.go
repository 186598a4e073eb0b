package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// makeContainers returns containers from..to-1 of a synthetic index named
// by salt, with nanosecond timestamps in a fixed zone.
func makeContainers(salt string, from, to uint64) []Container {
	var cs []Container
	zone := time.FixedZone("", -5*3600)
	for i := from; i < to; i++ {
		cs = append(cs, Container{
			Index:     i,
			ID:        testID(salt, "container", i),
			Bytes:     []byte(fmt.Sprintf("%s container %d", salt, i)),
			Timestamp: time.Unix(1_700_000_000+int64(i), int64(i)*1001).In(zone).Format(time.RFC3339Nano),
		})
	}
	return cs
}

func containerCount(t *testing.T, s *sqlStore, index string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(context.Background(), "SELECT COUNT(*) FROM containers WHERE index_name = ?", index).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestContainers(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		st, err := s.IndexState(ctx, "X/tx")
		if err != nil || st != (IndexState{}) {
			t.Fatalf("IndexState of an empty store = %+v, %v", st, err)
		}
		if err := s.ApplyContainers(ctx, "X/tx", nil); err != nil {
			t.Fatal(err)
		}
		cs := makeContainers("a", 0, 1500)
		if err := s.ApplyContainers(ctx, "X/tx", cs[:1024]); err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyContainers(ctx, "X/tx", cs[1024:]); err != nil {
			t.Fatal(err)
		}
		// Another index with the same ids is independent.
		if err := s.ApplyContainers(ctx, "X/block", cs[:3]); err != nil {
			t.Fatal(err)
		}
		if err := s.SetIndexSource(ctx, "X/tx", SourceNode); err != nil {
			t.Fatal(err)
		}
		st, err = s.IndexState(ctx, "X/tx")
		if want := (IndexState{Source: SourceNode, Last: 1499, HasLast: true}); err != nil || st != want {
			t.Fatalf("IndexState = %+v, %v; want %+v", st, err, want)
		}
		if err := s.SetIndexSource(ctx, "X/tx", SourceNone); err != nil {
			t.Fatal(err)
		}
		if st, _ := s.IndexState(ctx, "X/tx"); st.Source != SourceNone {
			t.Fatalf("source not updated: %+v", st)
		}

		got, err := s.ContainerRange(ctx, "X/tx", 0, 1023)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, cs[:1024]) {
			t.Fatal("ContainerRange(0, 1023) differs from what was applied")
		}
		got, err = s.ContainerRange(ctx, "X/tx", 1400, 2000)
		if err != nil || !reflect.DeepEqual(got, cs[1400:]) {
			t.Fatalf("ContainerRange past the end: %d containers, %v", len(got), err)
		}
		if got, err := s.ContainerRange(ctx, "X/tx", 1<<63, 1<<64-1); err != nil || len(got) != 0 {
			t.Fatalf("ContainerRange beyond int64: %v, %v", got, err)
		}
		for _, c := range []Container{cs[0], cs[777], cs[1499]} {
			got, err := s.ContainerByID(ctx, "X/tx", c.ID)
			if err != nil || !reflect.DeepEqual(got, c) {
				t.Fatalf("ContainerByID(%s) = %+v, %v", c.ID, got, err)
			}
		}
		if _, err := s.ContainerByID(ctx, "X/tx", ids.GenerateTestID()); !errors.Is(err, derrors.NotFound) {
			t.Fatalf("unknown id: %v", err)
		}
		if _, err := s.ContainerByID(ctx, "C/block", cs[0].ID); !errors.Is(err, derrors.NotFound) {
			t.Fatalf("id of another index: %v", err)
		}
	})
}

func TestApplyContainersIdempotentAndRejects(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		cs := makeContainers("a", 0, 50)
		if err := s.ApplyContainers(ctx, "P/block", cs[5:10]); !errors.Is(err, derrors.InvalidArgument) {
			t.Fatalf("first batch not at 0: %v", err)
		}
		if err := s.ApplyContainers(ctx, "P/block", cs[:30]); err != nil {
			t.Fatal(err)
		}
		for _, again := range [][]Container{cs[:30], cs[10:20], cs[29:30], cs[20:40], cs[0:3]} {
			if err := s.ApplyContainers(ctx, "P/block", again); err != nil {
				t.Fatalf("re-applying %d..%d: %v", again[0].Index, again[len(again)-1].Index, err)
			}
		}
		if n := containerCount(t, s, "P/block"); n != 40 {
			t.Fatalf("%d containers stored, want 40", n)
		}
		if c, ok, _ := s.Cursor(ctx, IndexCursor("P/block")); !ok || c != 39 {
			t.Fatalf("cursor = %d, %t", c, ok)
		}
		bad := []struct {
			name string
			cs   []Container
		}{
			{"gap", cs[41:45]},
			{"not consecutive", []Container{cs[40], cs[42]}},
			{"another container at a stored index", makeContainers("b", 38, 42)},
			{"a stored id at another index", []Container{cs[40], {Index: 41, ID: cs[3].ID, Timestamp: cs[41].Timestamp}}},
		}
		for _, b := range bad {
			if err := s.ApplyContainers(ctx, "P/block", b.cs); err == nil {
				t.Errorf("%s: applied", b.name)
			}
			if n := containerCount(t, s, "P/block"); n != 40 {
				t.Fatalf("%s: %d containers stored after a failed batch, want 40", b.name, n)
			}
			if c, _, _ := s.Cursor(ctx, IndexCursor("P/block")); c != 39 {
				t.Fatalf("%s: cursor moved to %d", b.name, c)
			}
		}
	})
}

// The P-chain blocks read as the containers of a P/block index: container
// i is the block at height i+1, the genesis is not in it.
func TestPBlockContainers(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		bs := makeBlocks(t, "p", 0, 10)
		mustApply(t, s, bs)
		st, err := s.IndexState(ctx, PBlockIndex)
		if err != nil || !st.HasPHeight || st.PHeight != 9 || st.HasLast {
			t.Fatalf("IndexState = %+v, %v", st, err)
		}
		got, err := s.PBlockContainerRange(ctx, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 9 {
			t.Fatalf("%d containers, want 9", len(got))
		}
		for i, c := range got {
			b := bs[i+1]
			want := Container{Index: uint64(i), ID: b.ID, Bytes: b.Bytes,
				Timestamp: time.Unix(unixSeconds(b.Timestamp), 0).UTC().Format(time.RFC3339Nano)}
			if !reflect.DeepEqual(c, want) {
				t.Errorf("container %d = %+v, want %+v", i, c, want)
			}
			byID, err := s.PBlockContainerByID(ctx, b.ID)
			if err != nil || !reflect.DeepEqual(byID, want) {
				t.Errorf("PBlockContainerByID(%s) = %+v, %v", b.ID, byID, err)
			}
		}
		if _, err := s.PBlockContainerByID(ctx, bs[0].ID); !errors.Is(err, derrors.NotFound) {
			t.Errorf("genesis by id: %v", err)
		}
		if got, err := s.PBlockContainerRange(ctx, 3, 3); err != nil || len(got) != 1 || got[0].ID != bs[4].ID {
			t.Errorf("PBlockContainerRange(3, 3) = %+v, %v", got, err)
		}
	})
}
