package nodeapi

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
)

type fakeValidatorsAtSource struct {
	tip     uint64
	subnets map[ids.ID]*pchain.Subnet
	banff   uint64 // the first block with a timestamp
	pending []store.Backfill
}

func (f fakeValidatorsAtSource) PendingBackfills(context.Context) ([]store.Backfill, error) {
	return f.pending, nil
}

func (f fakeValidatorsAtSource) PBlockTime(_ context.Context, height uint64) (time.Time, error) {
	if height < f.banff {
		return time.Time{}, nil
	}
	return time.Unix(int64(1_700_000_000+height), 0), nil
}

func (f fakeValidatorsAtSource) Cursor(context.Context, store.CursorKey) (uint64, bool, error) {
	return f.tip, true, nil
}

func (f fakeValidatorsAtSource) Subnet(_ context.Context, id ids.ID) (*pchain.Subnet, error) {
	if s, ok := f.subnets[id]; ok {
		return s, nil
	}
	return nil, derrors.NotFound
}

func (f fakeValidatorsAtSource) Subnets(context.Context) ([]*pchain.Subnet, error) {
	var out []*pchain.Subnet
	for _, s := range f.subnets {
		out = append(out, s)
	}
	return out, nil
}

// TestValidatorsAtForwarded: what the store holds is answered here; the
// proposed height, heights past the indexed tip and pre-Banff heights go
// to the node, and L1 sets while the L1 fee history is not backfilled.
func TestValidatorsAtForwarded(t *testing.T) {
	poa, l1 := ids.GenerateTestID(), ids.GenerateTestID()
	src := fakeValidatorsAtSource{tip: 100, banff: 3, subnets: map[ids.ID]*pchain.Subnet{
		poa: {ID: poa},
		l1:  {ID: l1, Conversion: &internal.SubnetConversion{At: internal.PPos{Height: 50}}},
	}}
	fwd := ValidatorsAtForwarded(src)
	for _, tc := range []struct {
		method, params string
		want           bool
	}{
		{"platform.getValidatorsAt", `{"height":"100"}`, false},
		{"platform.getValidatorsAt", `{"height":0}`, false},
		{"platform.getValidatorsAt", `[{"height":"7"}]`, false},
		{"platform.getValidatorsAt", `{"height":"101"}`, true},
		{"platform.getValidatorsAt", `{"height":"2"}`, true}, // pre-Banff
		{"platform.getValidatorsAt", `{"height":"3"}`, false},
		{"platform.getValidatorsAt", `{"height":"proposed"}`, true},
		{"platform.getValidatorsAt", `{"height":"5","subnetID":"` + poa.String() + `"}`, false},
		{"platform.getValidatorsAt", `{"height":"5","subnetID":"` + ids.GenerateTestID().String() + `"}`, false},
		{"platform.getValidatorsAt", `{"height":"49","subnetID":"` + l1.String() + `"}`, false},
		{"platform.getValidatorsAt", `{"height":"50","subnetID":"` + l1.String() + `"}`, false},
		{"platform.getValidatorsAt", `{"height":"100","subnetID":"` + l1.String() + `"}`, false},
		{"platform.getValidatorsAt", `{"height":"101","subnetID":"` + l1.String() + `"}`, true},
		// Arguments that do not decode: the store's service answers as the node.
		{"platform.getValidatorsAt", `{"height":"nope"}`, false},
		{"platform.getValidatorsAt", `{"height":"5","subnetID":"nope"}`, false},
		{"platform.getHeight", `{"height":"proposed"}`, false},
		// All sets, the L1's included.
		{"platform.getAllValidatorsAt", `{"height":"49"}`, false},
		{"platform.getAllValidatorsAt", `[{"height":0}]`, false},
		{"platform.getAllValidatorsAt", `{"height":"50"}`, false},
		{"platform.getAllValidatorsAt", `{"height":"100"}`, false},
		{"platform.getAllValidatorsAt", `{"height":"2"}`, true}, // pre-Banff
		{"platform.getAllValidatorsAt", `{"height":"proposed"}`, true},
		{"platform.getAllValidatorsAt", `{"height":"101"}`, true},
		{"platform.getAllValidatorsAt", `{"height":"nope"}`, false},
	} {
		if got := fwd(tc.method, json.RawMessage(tc.params)); got != tc.want {
			t.Errorf("%s %s: forwarded %v, want %v", tc.method, tc.params, got, tc.want)
		}
	}

	// A store whose L1 fee history is still to be backfilled: the L1's
	// sets from its conversion on are the node's.
	src.pending = []store.Backfill{{Name: "l1_fee_history"}}
	fwd = ValidatorsAtForwarded(src)
	for _, tc := range []struct {
		method, params string
		want           bool
	}{
		{"platform.getValidatorsAt", `{"height":"49","subnetID":"` + l1.String() + `"}`, false},
		{"platform.getValidatorsAt", `{"height":"50","subnetID":"` + l1.String() + `"}`, true},
		{"platform.getValidatorsAt", `{"height":"50","subnetID":"` + poa.String() + `"}`, false},
		{"platform.getAllValidatorsAt", `{"height":"49"}`, false},
		{"platform.getAllValidatorsAt", `{"height":"50"}`, true},
	} {
		if got := fwd(tc.method, json.RawMessage(tc.params)); got != tc.want {
			t.Errorf("pending backfill: %s %s: forwarded %v, want %v", tc.method, tc.params, got, tc.want)
		}
	}
}
