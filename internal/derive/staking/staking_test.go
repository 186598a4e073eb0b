package staking

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
)

// fakeStore is Writer over maps, with a log of the calls in order.
type fakeStore struct {
	network *internal.Network
	fees    internal.L1Fees
	rewards internal.RewardState
	events  map[ids.ID][]internal.L1Event

	calls      []string
	feesBefore map[ids.ID]internal.L1FeeValidator
	refunds    []internal.L1Refund
	validators []internal.L1Validator
	changes    []internal.SupplyChange
}

func (f *fakeStore) log(format string, args ...any) {
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeStore) Network(context.Context) (*internal.Network, bool, error) {
	return f.network, f.network != nil, nil
}

func (f *fakeStore) L1Fees(context.Context) (*internal.L1Fees, error) {
	f.log("L1Fees")
	s := f.fees
	s.Validators = map[ids.ID]*internal.L1FeeValidator{}
	for id, v := range f.fees.Validators {
		c := *v
		s.Validators[id] = &c
	}
	return &s, nil
}

func (f *fakeStore) WriteL1Fees(_ context.Context, s *internal.L1Fees, before map[ids.ID]internal.L1FeeValidator) error {
	f.log("WriteL1Fees next=%d history=%t", s.Next, s.History != nil)
	f.feesBefore = before
	return nil
}

func (f *fakeStore) WriteL1Refunds(_ context.Context, blocks []*internal.PBlockData, refunds []internal.L1Refund) error {
	f.log("WriteL1Refunds %d blocks", len(blocks))
	f.refunds = refunds
	return nil
}

func (f *fakeStore) WriteStakers(_ context.Context, ch *internal.StakingChanges) error {
	f.log("WriteStakers %d stakers %d events", len(ch.Stakers), len(ch.L1Events))
	for _, e := range ch.L1Events {
		f.events[e.ValidationID] = append(f.events[e.ValidationID], e)
	}
	return nil
}

func (f *fakeStore) L1Events(_ context.Context, vid ids.ID) ([]internal.L1Event, error) {
	f.log("L1Events %x", vid[:1])
	return f.events[vid], nil
}

func (f *fakeStore) WriteL1Validator(_ context.Context, v *internal.L1Validator) error {
	f.log("WriteL1Validator %x", v.ValidationID[:1])
	f.validators = append(f.validators, *v)
	return nil
}

func (f *fakeStore) RewardState(context.Context) (*internal.RewardState, error) {
	f.log("RewardState")
	s := f.rewards
	return &s, nil
}

// fakeBook is the reward book the replay is handed, told apart by name.
type fakeBook struct {
	internal.RewardBook
	name string
}

func (f *fakeStore) RewardBook(context.Context) internal.RewardBook {
	return fakeBook{name: "the store's"}
}

func (f *fakeStore) WriteRewards(_ context.Context, s *internal.RewardState, changes []internal.SupplyChange) error {
	f.log("WriteRewards next=%d", s.Next)
	f.changes = changes
	return nil
}

// replay is a PReplay that moves the states to after block 8 and records
// what it was handed.
type replay struct {
	refunds  []internal.L1Refund
	changes  []internal.SupplyChange
	feesRan  bool
	bookName string
}

func (r *replay) L1Fees(s *internal.L1Fees, _ *internal.Network) ([]internal.L1Refund, error) {
	r.feesRan = true
	s.Next = 9
	s.Validators[ids.ID{0xa}].End = 0 // its balance ran out
	delete(s.Validators, ids.ID{0xb})
	return r.refunds, nil
}

func (r *replay) Rewards(s *internal.RewardState, _ *internal.Network, book internal.RewardBook) ([]internal.SupplyChange, error) {
	r.bookName = book.(fakeBook).name
	s.Next = 9
	return r.changes, nil
}

func batchOf(r internal.PReplay, ch *internal.StakingChanges, heights ...uint64) *internal.PBatch {
	b := &internal.PBatch{Staking: ch, Replay: r}
	for _, h := range heights {
		b.Blocks = append(b.Blocks, &internal.PBlockData{Height: h})
	}
	return b
}

func newFake(network bool) *fakeStore {
	f := &fakeStore{events: map[ids.ID][]internal.L1Event{}}
	if network {
		f.network = &internal.Network{}
	}
	f.fees = internal.L1Fees{Next: 7, Validators: map[ids.ID]*internal.L1FeeValidator{
		{0xa}: {End: 500}, {0xb}: {End: 600},
	}}
	f.rewards = internal.RewardState{Complete: true, Next: 7}
	return f
}

func TestPOrderAndReplays(t *testing.T) {
	ctx := context.Background()
	reg := internal.L1Event{ValidationID: ids.ID{0xc}, Kind: internal.L1Register, TxID: ids.ID{0x71},
		Height: 7, Weight: 20, Balance: 100, SubnetID: ids.ID{0x5}}
	// The validator registered in an earlier batch has its register event
	// stored; this batch only raises its weight.
	earlier := internal.L1Event{ValidationID: ids.ID{0xd}, Kind: internal.L1Register, TxID: ids.ID{0x61},
		Height: 6, Weight: 5, Balance: 50}
	setWeight := internal.L1Event{ValidationID: ids.ID{0xd}, Kind: internal.L1SetWeight, TxID: ids.ID{0x81},
		Height: 8, Weight: 9, Nonce: 3}
	// One whose registration is not indexed has nothing to fold.
	orphan := internal.L1Event{ValidationID: ids.ID{0xe}, Kind: internal.L1IncreaseBalance, Height: 8, Balance: 1}
	ch := &internal.StakingChanges{Stakers: []internal.Staker{{TxID: ids.ID{0x1}}},
		L1Events: []internal.L1Event{reg, setWeight, orphan}}
	r := &replay{refunds: []internal.L1Refund{{TxID: ids.ID{0x82}, Height: 8, Amount: 3}},
		changes: []internal.SupplyChange{{SubnetID: ids.ID{0x5}, Height: 8, Supply: 77}}}
	f := newFake(true)
	f.events[ids.ID{0xd}] = []internal.L1Event{earlier}

	if err := P(ctx, f, batchOf(r, ch, 7, 8)); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"L1Fees", "WriteL1Fees next=9 history=true", "WriteL1Refunds 2 blocks",
		"WriteStakers 1 stakers 3 events",
		"L1Events 0c", "WriteL1Validator 0c", "L1Events 0d", "WriteL1Validator 0d", "L1Events 0e",
		"RewardState", "WriteRewards next=9",
	}
	if !reflect.DeepEqual(f.calls, want) {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(f.calls, "\n"), strings.Join(want, "\n"))
	}
	// What the fee state held before the replay changed it.
	wantBefore := map[ids.ID]internal.L1FeeValidator{{0xa}: {End: 500}, {0xb}: {End: 600}}
	if !reflect.DeepEqual(f.feesBefore, wantBefore) {
		t.Errorf("fee validators before the replay: %v, want %v", f.feesBefore, wantBefore)
	}
	if !reflect.DeepEqual(f.refunds, r.refunds) {
		t.Errorf("refunds written: %v, want the replay's %v", f.refunds, r.refunds)
	}
	if len(f.validators) != 2 {
		t.Fatalf("L1 validators written: %d, want 2", len(f.validators))
	}
	if v := f.validators[0]; v.Weight != 20 || !v.Active || v.DepositedBalance != 100 || v.AddedHeight != 7 || v.SubnetID != (ids.ID{0x5}) {
		t.Errorf("registered validator: %+v", v)
	}
	if v := f.validators[1]; v.Weight != 9 || v.MinNonce != 4 || v.AddedTxID != (ids.ID{0x61}) || v.UpdatedHeight != 8 {
		t.Errorf("validator folded from its stored registration and this batch's weight: %+v", v)
	}
	if r.bookName != "the store's" {
		t.Errorf("reward replay read book %q, want the store's", r.bookName)
	}
	if !reflect.DeepEqual(f.changes, r.changes) {
		t.Errorf("supply changes written: %v, want the replay's %v", f.changes, r.changes)
	}
}

func TestPSkips(t *testing.T) {
	ctx := context.Background()
	ch := &internal.StakingChanges{}
	t.Run("no network", func(t *testing.T) {
		f, r := newFake(false), &replay{}
		if err := P(ctx, f, batchOf(r, ch, 7)); err != nil {
			t.Fatal(err)
		}
		if want := []string{"WriteStakers 0 stakers 0 events"}; !reflect.DeepEqual(f.calls, want) {
			t.Errorf("calls %q, want %q", f.calls, want)
		}
	})
	t.Run("applied before", func(t *testing.T) {
		f, r := newFake(true), &replay{}
		f.fees.Next, f.rewards.Next = 9, 9
		if err := P(ctx, f, batchOf(r, ch, 7, 8)); err != nil {
			t.Fatal(err)
		}
		want := []string{"L1Fees", "WriteStakers 0 stakers 0 events", "RewardState"}
		if !reflect.DeepEqual(f.calls, want) || r.feesRan || r.bookName != "" {
			t.Errorf("calls %q (fee replay ran %t, reward replay %q), want %q and no replay", f.calls, r.feesRan, r.bookName, want)
		}
	})
	t.Run("reward replay incomplete", func(t *testing.T) {
		f, r := newFake(true), &replay{}
		f.rewards.Complete = false
		if err := P(ctx, f, batchOf(r, ch, 7, 8)); err != nil {
			t.Fatal(err)
		}
		if r.bookName != "" || f.calls[len(f.calls)-1] != "RewardState" {
			t.Errorf("calls %q: the rewards of an incomplete replay were replayed", f.calls)
		}
	})
}

func TestPWrapsErrors(t *testing.T) {
	f := newFake(true)
	r := &failing{err: errors.New("boom")}
	err := P(context.Background(), f, batchOf(r, &internal.StakingChanges{}, 7))
	if !errors.Is(err, r.err) || !strings.Contains(err.Error(), "L1 fee replay") {
		t.Errorf("error %v, want boom wrapped with the step", err)
	}
}

type failing struct{ err error }

func (r *failing) L1Fees(*internal.L1Fees, *internal.Network) ([]internal.L1Refund, error) {
	return nil, r.err
}

func (r *failing) Rewards(*internal.RewardState, *internal.Network, internal.RewardBook) ([]internal.SupplyChange, error) {
	return nil, r.err
}
