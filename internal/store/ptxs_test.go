package store

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

func TestPTxByID(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		bs := makeBlocks("ptx", 0, 8)
		mustApply(t, s, bs)
		ctx := context.Background()
		n := 0
		for _, b := range bs {
			for _, want := range b.Txs {
				got, err := s.PTxByID(ctx, want.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.ID != want.ID || got.Type != want.Type || !bytes.Equal(got.Bytes, want.Bytes) {
					t.Errorf("tx %s: got %+v, want %+v", want.ID, got, want)
				}
				n++
			}
		}
		if n == 0 {
			t.Fatal("the blocks have no transactions")
		}
		if _, err := s.PTxByID(ctx, testID("ptx", "missing")); !errors.Is(err, derrors.NotFound) {
			t.Errorf("missing tx: %v, want NotFound", err)
		}
	})
}
