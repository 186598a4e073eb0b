package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// utxoRef names a UTXO row by what the scenario built it from.
type utxoRef struct {
	txID   ids.ID
	index  uint32
	amount uint64
	kind   string
}

func refs(us []*UTXORow) []utxoRef {
	out := []utxoRef{}
	for _, u := range us {
		out = append(out, utxoRef{u.TxID, u.OutputIndex, u.Amount, u.Kind})
	}
	return out
}

// TestTxReads reads the txs of the UTXO scenario back with what they
// emitted and consumed, as the scenario's txs define them.
func TestTxReads(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		sc := newUTXOScenario(t)
		s := openStore(t, dsn)
		mustApply(t, s, sc.blocks)

		r, err := s.PTx(ctx, sc.baseTx.ID())
		if err != nil {
			t.Fatal(err)
		}
		if r.Height != 1 || r.Index != 0 || r.Type != "BaseTx" || string(r.Bytes) != string(sc.baseTx.Bytes()) ||
			r.BlockID != sc.blocks[1].ID || r.Timestamp.Unix() != 1_700_000_001 || r.DAG {
			t.Errorf("PTx(base) = %+v", r)
		}
		if _, err := s.PTx(ctx, ids.GenerateTestID()); !errors.Is(err, derrors.NotFound) {
			t.Errorf("PTx(unknown) = %v, want NotFound", err)
		}

		d, e := sc.delegator.ID(), sc.export.ID()
		imp := sc.blocks[5].Txs[1].ID
		cases := []struct {
			name               string
			txID               ids.ID
			emitted, consumed  []utxoRef
			stakedOutputs      int
			consumedFromChains []internal.Chain
		}{
			{"base", sc.baseTx.ID(),
				[]utxoRef{{sc.baseTx.ID(), 0, 100, pchain.KindRegular}, {sc.baseTx.ID(), 1, 890, pchain.KindRegular}},
				[]utxoRef{{ids.Empty, 0, 1000, pchain.KindRegular}}, 0, nil},
			// The stake came back with the reward: no longer staked.
			{"delegator", d,
				[]utxoRef{{d, 0, 580, pchain.KindRegular}, {d, 1, 200, pchain.KindStake}, {d, 2, 100, pchain.KindStake}},
				[]utxoRef{{sc.baseTx.ID(), 1, 890, pchain.KindRegular}}, 0, nil},
			// The reward UTXO is the staker's output, created by the reward tx.
			{"reward", sc.reward.ID(), []utxoRef{{d, 3, 9, pchain.KindReward}}, []utxoRef{}, 0, nil},
			{"export", e,
				[]utxoRef{{e, 0, 50, pchain.KindRegular}, {e, 1, 40, pchain.KindExported}},
				sortedRefs([]utxoRef{{d, 2, 100, pchain.KindStake}, {d, 3, 9, pchain.KindReward}}), 0, nil},
			// The imported UTXO's export (on X) is not indexed.
			{"import", imp, []utxoRef{{imp, 0, 30, pchain.KindRegular}}, []utxoRef{{ids.ID{'x', 't', 'x'}, 4, 31, ""}}, 0, nil},
		}
		// The same txs read at once (a page's read) with an unknown one,
		// and one of them asked again, more than a round of queries' worth.
		unknown := ids.GenerateTestID()
		txIDs := []ids.ID{unknown}
		for _, tc := range cases {
			txIDs = append(txIDs, tc.txID)
		}
		all, err := s.TxsUTXOs(ctx, internal.PChain, append(txIDs, slices.Repeat([]ids.ID{cases[0].txID}, maxTxsUTXOs)...))
		if err != nil {
			t.Fatal(err)
		}
		if u := all[unknown]; len(all) != len(txIDs) || u == nil || len(u.Emitted)+len(u.Consumed) != 0 {
			t.Errorf("TxsUTXOs: %d txs, unknown %+v; want %d txs, unknown empty", len(all), u, len(txIDs))
		}
		for _, tc := range cases {
			one, err := s.TxUTXOs(ctx, internal.PChain, tc.txID)
			if err != nil {
				t.Fatal(err)
			}
			checkTxUTXOs(t, tc.name+", alone", tc.txID, one, tc.emitted, tc.consumed)
			checkTxUTXOs(t, tc.name+", with the others", tc.txID, all[tc.txID], tc.emitted, tc.consumed)
		}
		// Export's exported output: destination X, not consumed (no import
		// indexed). Import's input: from X, with no export row.
		u, _ := s.TxUTXOs(ctx, internal.PChain, e)
		if x := u.Emitted[1]; x.PeerChain != uXID || x.ConsumedTxID != ids.Empty {
			t.Errorf("exported output: %+v", x)
		}
		u, _ = s.TxUTXOs(ctx, internal.PChain, imp)
		if in := u.Consumed[0]; in.SourceChain != uXID || in.CreatedKnown || in.Chain != "" || in.Bytes != nil ||
			in.ID != (&avax.UTXOID{TxID: ids.ID{'x', 't', 'x'}, OutputIndex: 4}).InputID() || in.ConsumedHeight != 5 {
			t.Errorf("imported input: %+v", in)
		}
		if u, err := s.TxUTXOs(ctx, internal.PChain, ids.GenerateTestID()); err != nil || len(u.Emitted)+len(u.Consumed) != 0 {
			t.Errorf("TxUTXOs(unknown) = %+v, %v", u, err)
		}
		if ev, err := s.L1ValidatorEvents(ctx, d); err != nil || len(ev) != 0 {
			t.Errorf("L1ValidatorEvents(delegator) = %v, %v", ev, err)
		}
	})
}

func sortedRefs(rs []utxoRef) []utxoRef {
	// Consumed UTXOs come ordered by UTXO id.
	key := func(r utxoRef) ids.ID { return (&avax.UTXOID{TxID: r.txID, OutputIndex: r.index}).InputID() }
	for i := range rs {
		for j := i + 1; j < len(rs); j++ {
			if key(rs[j]).Compare(key(rs[i])) < 0 {
				rs[i], rs[j] = rs[j], rs[i]
			}
		}
	}
	return rs
}

// TestActiveStakers lists the current stakers of the UTXO scenario while
// its delegator is current and after it was rewarded.
func TestActiveStakers(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		sc := newUTXOScenario(t)
		s := openStore(t, dsn)
		gv, d := sc.genVdr.ID(), sc.delegator.ID()
		list := func(q ActiveStakerQuery) []ids.ID {
			t.Helper()
			if q.Limit == 0 {
				q.Limit = 10
			}
			rs, err := s.ActiveStakers(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			out := []ids.ID{}
			for _, r := range rs {
				out = append(out, r.TxID)
			}
			return out
		}
		if got := list(ActiveStakerQuery{}); len(got) != 0 {
			t.Errorf("empty store: %v", got)
		}

		// Up to the delegator: it (started at block 2's time) and the
		// genesis validator (started at the genesis time) are current.
		mustApply(t, s, sc.blocks[:3])
		u := func(v uint64) *uint64 { return &v }
		for _, tc := range []struct {
			name string
			q    ActiveStakerQuery
			want []ids.ID
		}{
			{"all desc", ActiveStakerQuery{Desc: true}, []ids.ID{d, gv}},
			{"all asc", ActiveStakerQuery{}, []ids.ID{gv, d}},
			{"page 2 desc", ActiveStakerQuery{Desc: true, After: &StakerKey{1_700_000_002, d}}, []ids.ID{gv}},
			{"page 2 asc", ActiveStakerQuery{After: &StakerKey{1_600_000_000, gv}}, []ids.ID{d}},
			{"limit", ActiveStakerQuery{Desc: true, Limit: 1}, []ids.ID{d}},
			{"delegator's reward owner", ActiveStakerQuery{Addresses: []ids.ShortID{uAddrB}}, []ids.ID{d}},
			{"validator's reward owner", ActiveStakerQuery{Addresses: []ids.ShortID{uAddrA, uAddrC}}, []ids.ID{gv}},
			{"a stake owner is not a reward owner", ActiveStakerQuery{Addresses: []ids.ShortID{uAddrA}}, []ids.ID{}},
			{"tx type", ActiveStakerQuery{TxTypes: []string{"AddValidatorTx"}}, []ids.ID{gv}},
			{"tx types", ActiveStakerQuery{TxTypes: []string{"AddPermissionlessDelegatorTx", "AddValidatorTx"}}, []ids.ID{gv, d}},
			{"start", ActiveStakerQuery{Start: u(1_700_000_002)}, []ids.ID{d}},
			{"end", ActiveStakerQuery{End: u(1_700_000_001)}, []ids.ID{gv}},
			{"empty range", ActiveStakerQuery{Start: u(1_600_000_001), End: u(1_700_000_001)}, []ids.ID{}},
		} {
			if got := list(tc.q); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}
		// Once rewarded, the delegator is gone.
		mustApply(t, s, sc.blocks[3:])
		if got := list(ActiveStakerQuery{Desc: true}); !reflect.DeepEqual(got, []ids.ID{gv}) {
			t.Errorf("after the reward: %v, want only the genesis validator", got)
		}
	})
}

// TestChainBlockSummaries reads the scenario's P-chain blocks by time
// range, height and id.
func TestChainBlockSummaries(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		sc := newUTXOScenario(t)
		s := openStore(t, dsn)
		mustApply(t, s, sc.blocks)
		after := uint64(6)
		// A time range keeps the blocks whose timestamps are in it, both
		// ends included, in the same order and pages.
		all, err := s.BlockSummaries(ctx, BlockQuery{Chain: internal.PChain, Desc: true}, nil, 1000)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := all[len(all)-3].Timestamp.Unix(), all[2].Timestamp.Unix()
		if lo >= hi {
			t.Fatalf("scenario timestamps %d..%d do not make a range", lo, hi)
		}
		var want []uint64
		for _, b := range all {
			if ts := b.Timestamp.Unix(); !b.Timestamp.IsZero() && ts >= lo && ts <= hi && b.Height < 6 {
				want = append(want, b.Height)
			}
		}
		ranged, err := s.BlockSummaries(ctx, BlockQuery{Chain: internal.PChain, Start: &lo, End: &hi, Desc: true}, &after, 1000)
		if err != nil || !reflect.DeepEqual(heights(ranged), want) || len(want) == 0 {
			t.Errorf("in [%d, %d] below 6: %v, %v; want %v", lo, hi, heights(ranged), err, want)
		}
		// Open ends, ranges before and after every block, one second.
		first, last := all[len(all)-1].Timestamp.Unix(), all[0].Timestamp.Unix()
		for _, r := range []struct{ start, end *int64 }{
			{&lo, nil}, {nil, &hi}, {ptr(int64(0)), ptr(first - 1)}, {ptr(last + 1), nil}, {&lo, &lo}, {ptr(int64(0)), ptr(last + 100)},
		} {
			var want []uint64
			for _, b := range all {
				ts := b.Timestamp.Unix()
				if b.Timestamp.IsZero() {
					ts = 0
				}
				if (r.start == nil || ts >= *r.start) && (r.end == nil || ts <= *r.end) {
					want = append(want, b.Height)
				}
			}
			for _, desc := range []bool{true, false} {
				got, err := s.BlockSummaries(ctx, BlockQuery{Chain: internal.PChain, Start: r.start, End: r.end, Desc: desc}, nil, 1000)
				if !desc {
					slices.Reverse(got)
				}
				if err != nil || fmt.Sprint(heights(got)) != fmt.Sprint(want) {
					t.Errorf("in [%v, %v] desc=%t: %v, %v; want %v", r.start, r.end, desc, heights(got), err, want)
				}
			}
		}
		b, err := s.BlockSummaryByHeight(ctx, BlockQuery{Chain: internal.PChain}, 5)
		if err != nil || b.Height != 5 || len(b.TxIDs) != 2 || b.TxIDs[1] != sc.blocks[5].Txs[1].ID {
			t.Errorf("BlockSummaryByHeight(5) = %+v, %v", b, err)
		}
		if b2, err := s.BlockSummaryByID(ctx, BlockQuery{Chain: internal.PChain}, b.ID); err != nil || !reflect.DeepEqual(b2, b) {
			t.Errorf("BlockSummaryByID = %+v, %v; want %+v", b2, err, b)
		}
		for _, c := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
			if _, err := s.BlockSummaryByHeight(ctx, BlockQuery{Chain: c}, 1000); !errors.Is(err, derrors.NotFound) {
				t.Errorf("%s: BlockSummaryByHeight(1000) = %v, want NotFound", c, err)
			}
			if bs, err := s.BlockSummaries(ctx, BlockQuery{Chain: c, Desc: true}, nil, 5); err != nil || (c != internal.PChain && len(bs) != 0) {
				t.Errorf("%s: BlockSummaries = %v, %v", c, bs, err)
			}
		}
	})
}

func ptr[T any](v T) *T { return &v }

// checkTxUTXOs checks a read of tx txID's UTXOs (case name) against the
// UTXOs it emitted and consumed.
func checkTxUTXOs(t *testing.T, name string, txID ids.ID, u *TxUTXOs, emitted, consumed []utxoRef) {
	t.Helper()
	if got := refs(u.Emitted); !reflect.DeepEqual(got, emitted) {
		t.Errorf("%s: emitted %v, want %v", name, got, emitted)
	}
	if got := refs(u.Consumed); !reflect.DeepEqual(got, consumed) {
		t.Errorf("%s: consumed %v, want %v", name, got, consumed)
	}
	for _, c := range u.Consumed {
		if c.ConsumedTxID != txID {
			t.Errorf("%s: consumed UTXO %s names consumer %s", name, c.ID, c.ConsumedTxID)
		}
	}
	for _, em := range u.Emitted {
		if em.CreatedTxID != txID || em.Chain != internal.PChain || !em.CreatedKnown || len(em.Bytes) == 0 || em.Staked {
			t.Errorf("%s: emitted UTXO %+v", name, em)
		}
		info, err := pchain.DescribeUTXO(em.Bytes)
		if err != nil || info.Amount != em.Amount || info.AssetID != uAsset {
			t.Errorf("%s: UTXO bytes describe %+v, %v; row amount %d", name, info, err, em.Amount)
		}
	}
}
