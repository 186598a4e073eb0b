package pchain

import (
	"reflect"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
)

func disableTx(t *testing.T, vid ids.ID, outs int) *Tx {
	t.Helper()
	owner := secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{{1}}}
	var o []*avax.TransferableOutput
	for range outs {
		o = append(o, &avax.TransferableOutput{Asset: avax.Asset{ID: ids.ID{9}}, Out: &secp256k1fx.TransferOutput{Amt: 1, OutputOwners: owner}})
	}
	tx, err := txs.NewSigned(&txs.DisableL1ValidatorTx{
		BaseTx:       txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.LocalID, BlockchainID: constants.PlatformChainID, Outs: o}},
		ValidationID: vid,
		DisableAuth:  &secp256k1fx.Input{},
	}, txs.Codec, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewTx(tx)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestL1FeesReplay checks the replay on the local network's fee config,
// where a validator pays 1 nAVAX a second while fewer than the target are
// active: deactivation when the balance runs out, reactivation by a top-up,
// and the refund of a disable.
func TestL1FeesReplay(t *testing.T) {
	const T = 1_700_000_000
	avaxID := ids.ID{0xaa}
	a, b := ids.ID{0xa}, ids.ID{0xb}
	owner := &StakerOwner{Threshold: 1, Addresses: []ids.ShortID{{7}}}
	dis := disableTx(t, a, 2)
	disB := disableTx(t, b, 0)
	blocks := []*Block{
		{Height: 1, Timestamp: time.Unix(T, 0)},
		{Height: 2, Timestamp: time.Unix(T+30, 0)},
		{Height: 3, Timestamp: time.Unix(T+200, 0)},
		{Height: 4, Timestamp: time.Unix(T+210, 0)},
		{Height: 5, Timestamp: time.Unix(T+220, 0), Txs: []*Tx{dis, disB}},
	}
	events := []L1Event{
		{Height: 1, Kind: L1Convert, ValidationID: a, Balance: 100, RemainingBalanceOwner: owner},
		{Height: 1, Kind: L1Register, ValidationID: b, Balance: 0, RemainingBalanceOwner: owner},
		{Height: 2, Kind: L1IncreaseBalance, ValidationID: a, Balance: 50}, // end T+150
		// At T+200 a's balance has run out: it is deactivated.
		{Height: 4, Kind: L1IncreaseBalance, ValidationID: a, Balance: 40},     // reactivated, end T+250
		{Height: 5, Index: 0, TxID: dis.ID, Kind: L1Disable, ValidationID: a},  // refund 30
		{Height: 5, Index: 1, TxID: disB.ID, Kind: L1Disable, ValidationID: b}, // inactive: no refund
	}
	var s L1Fees
	refunds, err := s.ApplyBlocks(constants.LocalID, avaxID, blocks[:3], events)
	if err != nil {
		t.Fatal(err)
	}
	if s.Validators[a].End != 0 || s.Accrued != T+200 {
		t.Fatalf("after T+200: a's end %d (want 0, deactivated), accrued %d (want %d)", s.Validators[a].End, s.Accrued, T+200)
	}
	more, err := s.ApplyBlocks(constants.LocalID, avaxID, blocks, events) // 1..3 again are skipped
	if err != nil {
		t.Fatal(err)
	}
	refunds = append(refunds, more...)
	if len(refunds) != 1 {
		t.Fatalf("refunds = %+v, want one", refunds)
	}
	r := refunds[0]
	if r.Amount != 30 || r.TxID != dis.ID || r.OutputIndex != 2 || r.Height != 5 || r.Owner.Threshold != 1 || r.Owner.Addresses[0] != owner.Addresses[0] {
		t.Errorf("refund = %+v, want 30 nAVAX to the owner at output 2 of %s", r, dis.ID)
	}
	if u := r.UTXO; u == nil || u.ID() != (&avax.UTXOID{TxID: dis.ID, OutputIndex: 2}).InputID() || u.Amount != 30 ||
		u.AssetID != avaxID || u.Kind != KindRegular || u.Owners.Addrs[0] != owner.Addresses[0] {
		t.Errorf("refund UTXO = %+v", u)
	}
	if s.Next != 6 || s.Validators[a].End != 0 {
		t.Errorf("state after the batch: next %d, a's end %d", s.Next, s.Validators[a].End)
	}
	if again, err := s.ApplyBlocks(constants.LocalID, avaxID, blocks, events); err != nil || len(again) != 0 {
		t.Errorf("re-applying gave %v, %v; want nothing", again, err)
	}
}

// TestL1FeesHistory checks the history a replay records over the blocks
// of TestL1FeesReplay: every balance change with the accrued total at
// which it takes effect, and each block's charge.
func TestL1FeesHistory(t *testing.T) {
	const T = 1_700_000_000
	a, b := ids.ID{0xa}, ids.ID{0xb}
	dis, disB := disableTx(t, a, 2), disableTx(t, b, 0)
	blocks := []*Block{
		{Height: 1, Timestamp: time.Unix(T, 0)},
		{Height: 2, Timestamp: time.Unix(T+30, 0)},
		{Height: 3, Timestamp: time.Unix(T+200, 0)},
		{Height: 4, Timestamp: time.Unix(T+210, 0)},
		{Height: 5, Timestamp: time.Unix(T+220, 0), Txs: []*Tx{dis, disB}},
	}
	events := []L1Event{
		{Height: 1, Kind: L1Convert, ValidationID: a, Balance: 100},
		{Height: 1, Kind: L1Register, ValidationID: b, Balance: 0},
		{Height: 2, Kind: L1IncreaseBalance, ValidationID: a, Balance: 50},
		{Height: 3, Kind: L1IncreaseBalance, ValidationID: ids.ID{0xc}, Balance: 5}, // unknown: none
		{Height: 4, Kind: L1IncreaseBalance, ValidationID: a, Balance: 40},
		{Height: 5, Index: 0, TxID: dis.ID, Kind: L1Disable, ValidationID: a},
		{Height: 5, Index: 1, TxID: disB.ID, Kind: L1Disable, ValidationID: b},
	}
	s := L1Fees{History: &internal.L1FeeHistory{}}
	if _, err := s.ApplyBlocks(constants.LocalID, ids.ID{0xaa}, blocks, events); err != nil {
		t.Fatal(err)
	}
	want := []L1BalanceChange{
		{ValidationID: a, Height: 1, Time: T, Kind: L1BalanceRegister, Accrued: T, End: T + 100, Amount: 100},
		{ValidationID: b, Height: 1, Time: T, Kind: L1BalanceRegister, Accrued: T},
		{ValidationID: a, Height: 2, Time: T + 30, Kind: L1BalanceIncrease, Accrued: T + 30, End: T + 150, Amount: 50},
		{ValidationID: a, Height: 3, Index: -1, Time: T + 200, Kind: L1BalanceDeactivate, Accrued: T + 150},
		{ValidationID: a, Height: 4, Time: T + 210, Kind: L1BalanceIncrease, Accrued: T + 210, End: T + 250, Amount: 40},
		{ValidationID: a, Height: 5, Time: T + 220, Kind: L1BalanceDisable, Accrued: T + 220, Amount: 30},
		{ValidationID: b, Height: 5, Index: 1, Time: T + 220, Kind: L1BalanceDisable, Accrued: T + 220},
	}
	if !reflect.DeepEqual(s.History.Changes, want) {
		t.Errorf("changes:\n got %+v\nwant %+v", s.History.Changes, want)
	}
	wantBlocks := []L1FeeBlock{
		{Height: 1, Time: T, Before: 0, After: T}, {Height: 2, Time: T + 30, Before: T, After: T + 30},
		{Height: 3, Time: T + 200, Before: T + 30, After: T + 200}, {Height: 4, Time: T + 210, Before: T + 200, After: T + 210},
		{Height: 5, Time: T + 220, Before: T + 210, After: T + 220},
	}
	if !reflect.DeepEqual(s.History.Blocks, wantBlocks) {
		t.Errorf("blocks:\n got %+v\nwant %+v", s.History.Blocks, wantBlocks)
	}
}
