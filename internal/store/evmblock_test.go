package store

import (
	"context"
	"errors"
	"testing"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestEVMBlock reads stored blocks by number, and a number not stored.
func TestEVMBlock(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		bs := makeEVMBlocks("b", 4)
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs); err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			got, err := s.EVMBlock(ctx, testEVMChain, b.Number)
			if err != nil {
				t.Fatal(err)
			}
			jsonEqual(t, "block", got, &b.EVMBlock)
		}
		for _, tc := range []struct{ chain, number uint64 }{{testEVMChain, 4}, {1, 0}, {testEVMChain, 1 << 63}} {
			if _, err := s.EVMBlock(ctx, tc.chain, tc.number); !errors.Is(err, derrors.NotFound) {
				t.Errorf("EVMBlock(%d, %d): %v, want NotFound", tc.chain, tc.number, err)
			}
		}
	})
}
