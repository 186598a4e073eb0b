package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestOperationClaims: a RUNNING job is claimed by one holder at a time,
// even by concurrent claimers; a lapsed claim's writes are refused; the
// file is the chunks in order; finished jobs are pruned with their files.
func TestOperationClaims(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		t0 := time.Now().Add(-time.Hour)
		for _, id := range []string{"a", "b"} {
			if err := s.CreateOperation(ctx, Operation{ID: id, Owner: "k-" + id, Type: OpExportEVM, Created: t0,
				Job: ExportJob{First: t0, Last: t0, EVMChains: []uint64{1}, EVMAddresses: []string{"0x01"}}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Operation(ctx, "k-b", "a"); err == nil {
			t.Error("another owner's operation was read")
		}
		// Many claimers at once: each job once.
		var (
			mu  sync.Mutex
			got = map[string]int{}
			wg  sync.WaitGroup
		)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				op, ok, err := s.ClaimOperation(ctx, time.Now(), time.Minute, "c"+string(rune('0'+i)))
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					mu.Lock()
					got[op.ID]++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(got) != 2 || got["a"] != 1 || got["b"] != 1 {
			t.Fatalf("claims: %v, want a and b once each", got)
		}
		a, err := s.Operation(ctx, "", "a")
		if err != nil {
			t.Fatal(err)
		}
		// A lapsed lease is taken over; the old holder's writes are refused.
		op, ok, err := s.ClaimOperation(ctx, time.Now().Add(2*time.Minute), time.Minute, "new")
		if err != nil || !ok {
			t.Fatalf("claim after the lease: %v %v", ok, err)
		}
		old := a.Claim
		if op.ID != "a" {
			b, _ := s.Operation(ctx, "", "b")
			old = b.Claim
		}
		if err := s.AppendOperationChunk(ctx, op.ID, old, OperationChunk{Data: []byte("x\n"), Rows: 1}); !errors.Is(err, ErrOperationClaimLost) {
			t.Errorf("the old holder's chunk: %v", err)
		}
		for i, c := range []string{"h\n", "1\n", "", "2\n"} {
			if err := s.AppendOperationChunk(ctx, op.ID, "new", OperationChunk{Data: []byte(c), Cursor: []byte{'0' + byte(i)}, Rows: int64(len(c) / 2)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.FinishOperation(ctx, op.ID, old, OpCompleted, "", "", ""); !errors.Is(err, ErrOperationClaimLost) {
			t.Errorf("the old holder's finish: %v", err)
		}
		if err := s.FinishOperation(ctx, op.ID, "new", OpCompleted, "", "done", ""); err != nil {
			t.Fatal(err)
		}
		done, err := s.Operation(ctx, "", op.ID)
		if err != nil {
			t.Fatal(err)
		}
		if done.Status != OpCompleted || done.Rows != 3 || done.Bytes != 6 || done.Chunks != 3 || string(done.Cursor) != "3" || done.Claim != "" {
			t.Errorf("finished: %+v", done)
		}
		var file string
		if err := s.OperationFile(ctx, op.ID, func(b []byte) error { file += string(b); return nil }); err != nil || file != "h\n1\n2\n" {
			t.Errorf("file %q %v", file, err)
		}
		if n, err := s.RunningOperations(ctx); err != nil || n != 1 {
			t.Errorf("running: %d %v", n, err)
		}
		// A finished job is no longer claimed, and is pruned with its file.
		if _, ok, _ := s.ClaimOperation(ctx, time.Now().Add(time.Hour), time.Minute, "late"); !ok {
			t.Error("the running job was not claimable")
		}
		if _, ok, _ := s.ClaimOperation(ctx, time.Now().Add(time.Hour), time.Minute, "later"); ok {
			t.Error("a finished or held job was claimed")
		}
		if n, err := s.DeleteOperations(ctx, time.Now().Add(time.Minute)); err != nil || n != 1 {
			t.Errorf("pruned %d %v", n, err)
		}
		if _, err := s.Operation(ctx, "", op.ID); err == nil {
			t.Error("the pruned operation is still there")
		}
		var chunks int
		if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM operation_chunks").Scan(&chunks); err != nil || chunks != 0 {
			t.Errorf("chunks left: %d %v", chunks, err)
		}
	})
}
