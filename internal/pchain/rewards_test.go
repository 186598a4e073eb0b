package pchain

import (
	"errors"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"
	pgenesis "github.com/ava-labs/avalanchego/vms/platformvm/genesis"
	"github.com/ava-labs/avalanchego/vms/platformvm/reward"
)

// memBook is a RewardBook over a map, as the store keeps it.
type memBook struct {
	stakers   map[ids.ID]*Staker
	potential map[ids.ID]uint64
	accrued   map[ids.ID]uint64
	removed   map[ids.ID]uint64 // staker -> height of its removal
}

func newMemBook() *memBook {
	return &memBook{stakers: map[ids.ID]*Staker{}, potential: map[ids.ID]uint64{},
		accrued: map[ids.ID]uint64{}, removed: map[ids.ID]uint64{}}
}

func (b *memBook) add(ch *StakingChanges) {
	for i := range ch.Stakers {
		s := ch.Stakers[i]
		b.stakers[s.TxID] = &s
	}
	for _, e := range ch.Ends {
		b.removed[e.StakerTxID] = e.Height
	}
}

func (b *memBook) pending(height uint64) []*Staker {
	var out []*Staker
	for id, s := range b.stakers {
		if _, ok := b.potential[id]; !ok && s.Kind != KindSubnetValidator && s.Height < height {
			out = append(out, s)
		}
	}
	return out
}

func (b *memBook) Pending(t, height uint64) ([]Staker, error) {
	var out []Staker
	for _, s := range b.pending(height) {
		if s.StartTime <= t {
			out = append(out, *s)
		}
	}
	return out, nil
}

func (b *memBook) NextPendingStart(height uint64) (uint64, error) {
	next := uint64(0)
	for _, s := range b.pending(height) {
		if next == 0 || s.StartTime < next {
			next = s.StartTime
		}
	}
	return next, nil
}

func (b *memBook) Staker(txID ids.ID) (*RewardedStaker, error) {
	s, ok := b.stakers[txID]
	p, current := b.potential[txID]
	if !ok || !current {
		return nil, errors.New("no such current staker")
	}
	return &RewardedStaker{Staker: *s, PotentialReward: p}, nil
}

func (b *memBook) Validator(subnetID ids.ID, nodeID ids.NodeID, height uint64) (*Staker, error) {
	for id, s := range b.stakers {
		h, gone := b.removed[id]
		if s.Kind == KindValidator && s.SubnetID == subnetID && s.NodeID == nodeID && s.Height < height && (!gone || h > height) {
			return s, nil
		}
	}
	return nil, errors.New("no validator")
}

func (b *memBook) SetPotentialReward(txID ids.ID, r uint64) error {
	b.potential[txID] = r
	return nil
}

func (b *memBook) AddDelegateeReward(txID ids.ID, r uint64) error {
	b.accrued[txID] += r
	return nil
}

func rwBlock(h uint64, t time.Time) *Block {
	return &Block{Height: h, ID: ids.GenerateTestID(), Type: "BanffStandardBlock", Timestamp: t}
}

// rwGenesisBlock decodes a height-0 block whose parent is genesisID.
func rwGenesisBlock(t *testing.T, genesisID ids.ID) *Block {
	t.Helper()
	blk, err := block.NewApricotCommitBlock(genesisID, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Decode(0, blk.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rwStaker(kind StakerKind, txType string, node ids.NodeID, weight, start, end, height uint64) Staker {
	return Staker{TxID: ids.GenerateTestID(), TxType: txType, Kind: kind, SubnetID: constants.PrimaryNetworkID,
		NodeID: node, Weight: weight, StartTime: start, TxStartTime: start, EndTime: end, Height: height,
		DelegationShares: 20_000}
}

func calc(cfg reward.Config, seconds, weight, supply uint64) uint64 {
	return reward.NewCalculator(cfg).Calculate(time.Duration(seconds)*time.Second, weight, supply)
}

// TestRewardsFromGenesis replays the local network's genesis and a
// Durango-era validator, delegator, paid delegation and unpaid validation,
// and checks each promised reward, the accrued delegation fee and the
// supply against the executor's rules applied by hand.
func TestRewardsFromGenesis(t *testing.T) {
	gb, _, err := genesis.FromConfig(genesis.GetConfig(constants.LocalID))
	if err != nil {
		t.Fatal(err)
	}
	g, err := pgenesis.Parse(gb)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultRewardConfig(constants.LocalID)
	book := newMemBook()
	state := NewRewardState()

	// Genesis: every genesis validator is promised its reward in genesis
	// order, each from the supply grown by the ones before.
	b0 := rwGenesisBlock(t, hashing.ComputeHash256Array(gb))
	ch0, err := DeriveStaking([]*Block{b0})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch0.Stakers) != len(g.Validators) || len(g.Validators) == 0 {
		t.Fatalf("%d genesis stakers, genesis has %d validators", len(ch0.Stakers), len(g.Validators))
	}
	book.add(ch0)
	changes, err := state.ApplyBlocks(constants.LocalID, cfg, []*Block{b0}, ch0, book)
	if err != nil {
		t.Fatal(err)
	}
	supply := g.InitialSupply
	for _, tx := range g.Validators {
		st, err := StakerFromTx(tx, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		want := calc(cfg, st.EndTime-st.TxStartTime, st.Weight, supply)
		if got, ok := book.potential[tx.ID()]; !ok || got != want {
			t.Errorf("genesis validator %s promised %d (set %v), want %d", tx.ID(), got, ok, want)
		}
		supply += want
	}
	if len(changes) != 1 || changes[0].Supply != supply || changes[0].Height != 0 {
		t.Fatalf("genesis supply changes %+v, want %d at 0", changes, supply)
	}

	// Durango is active on the local network: stakers are current at once,
	// rewarded for what remains until their end time.
	t1 := time.Unix(int64(g.Timestamp)+100, 0)
	node := ids.GenerateTestNodeID()
	vdr := rwStaker(KindValidator, "AddPermissionlessValidatorTx", node, 2_000_000_000_000, uint64(t1.Unix()), uint64(t1.Unix())+400*24*3600, 1)
	del := rwStaker(KindDelegator, "AddPermissionlessDelegatorTx", node, 25_000_000_000, uint64(t1.Unix())+10, uint64(t1.Unix())+90*24*3600, 2)
	blocks := []*Block{rwBlock(1, t1), rwBlock(2, t1.Add(10*time.Second)), rwBlock(3, t1.Add(20*time.Second)), rwBlock(4, t1.Add(20*time.Second))}
	ch := &StakingChanges{
		Stakers: []Staker{vdr, del},
		Ends: []StakerEnd{
			{StakerTxID: del.TxID, TxID: ids.GenerateTestID(), Height: 3, Committed: true},
			{StakerTxID: vdr.TxID, TxID: ids.GenerateTestID(), Height: 4, Committed: false},
		},
	}
	book.add(ch)
	changes, err = state.ApplyBlocks(constants.LocalID, cfg, blocks, ch, book)
	if err != nil {
		t.Fatal(err)
	}
	wantVdr := calc(cfg, vdr.EndTime-vdr.StartTime, vdr.Weight, supply)
	supply += wantVdr
	wantDel := calc(cfg, del.EndTime-del.StartTime, del.Weight, supply)
	supply += wantDel
	if book.potential[vdr.TxID] != wantVdr || book.potential[del.TxID] != wantDel {
		t.Errorf("promised validator %d delegator %d, want %d and %d", book.potential[vdr.TxID], book.potential[del.TxID], wantVdr, wantDel)
	}
	// The delegator is paid: its validator accrues the 2% fee.
	wantFee := wantDel - wantDel*(reward.PercentDenominator-uint64(vdr.DelegationShares))/reward.PercentDenominator
	if got := book.accrued[vdr.TxID]; got != wantFee || wantFee == 0 {
		t.Errorf("validator accrued %d, want %d", got, wantFee)
	}
	// The validator is not paid: its reward leaves the supply again.
	supply -= wantVdr
	if state.Subnets[constants.PrimaryNetworkID].Supply != supply {
		t.Errorf("supply %d, want %d", state.Subnets[constants.PrimaryNetworkID].Supply, supply)
	}
	wantHeights := map[uint64]bool{1: true, 2: true, 4: true}
	for _, c := range changes {
		if !wantHeights[c.Height] {
			t.Errorf("supply change at %d: nothing changed it", c.Height)
		}
		delete(wantHeights, c.Height)
	}
	if len(wantHeights) != 0 {
		t.Errorf("no supply change recorded at heights %v", wantHeights)
	}

	// Applying the same blocks again changes nothing.
	before := *state.Subnets[constants.PrimaryNetworkID]
	if _, err := state.ApplyBlocks(constants.LocalID, cfg, blocks, ch, book); err != nil {
		t.Fatal(err)
	}
	if *state.Subnets[constants.PrimaryNetworkID] != before || book.accrued[vdr.TxID] != wantFee {
		t.Error("re-applying blocks changed the state")
	}
}

// TestRewardsPendingPromotion replays pre-Durango mainnet stakers: they
// wait in the pending set and are promised their rewards when the chain
// time reaches their start, the Apricot delegator before the validator
// at equal start times, whatever order they were added in.
func TestRewardsPendingPromotion(t *testing.T) {
	cfg := DefaultRewardConfig(constants.MainnetID)
	const supply0 = 400_000_000_000_000_000
	preDurango := time.Date(2023, time.June, 1, 0, 0, 0, 0, time.UTC)
	state := &RewardState{Complete: true, Next: 10, Time: uint64(preDurango.Unix()),
		Subnets: map[ids.ID]*SubnetRewards{constants.PrimaryNetworkID: {Supply: supply0, Config: cfg}}}
	book := newMemBook()

	start := uint64(preDurango.Unix()) + 3600
	node := ids.GenerateTestNodeID()
	vdr := rwStaker(KindValidator, "AddValidatorTx", node, 2_000_000_000_000, start, start+30*24*3600, 10)
	del := rwStaker(KindDelegator, "AddDelegatorTx", node, 25_000_000_000, start, start+20*24*3600, 11)
	later := rwStaker(KindValidator, "AddValidatorTx", ids.GenerateTestNodeID(), 3_000_000_000_000, start+7200, start+40*24*3600, 11)
	ch := &StakingChanges{
		Stakers:  []Staker{vdr, del, later},
		Advances: []TimeAdvance{{Height: 13, Time: start + 7200}},
	}
	book.add(ch)
	blocks := []*Block{
		rwBlock(10, preDurango.Add(time.Minute)),
		rwBlock(11, preDurango.Add(2*time.Minute)),
		// Reaching vdr's and del's start promotes both.
		rwBlock(12, time.Unix(int64(start), 0)),
		// An Apricot-style commit of an AdvanceTimeTx promotes the last.
		{Height: 13, ID: ids.GenerateTestID(), Type: "ApricotCommitBlock"},
	}
	if _, err := state.ApplyBlocks(constants.MainnetID, cfg, blocks[:2], ch, book); err != nil {
		t.Fatal(err)
	}
	if len(book.potential) != 0 || state.NextPending != start {
		t.Fatalf("before their start: promised %v, next pending %d (want none, %d)", book.potential, state.NextPending, start)
	}
	if _, err := state.ApplyBlocks(constants.MainnetID, cfg, blocks[2:], ch, book); err != nil {
		t.Fatal(err)
	}
	supply := uint64(supply0)
	wantDel := calc(cfg, del.EndTime-del.StartTime, del.Weight, supply)
	supply += wantDel
	wantVdr := calc(cfg, vdr.EndTime-vdr.StartTime, vdr.Weight, supply)
	supply += wantVdr
	wantLater := calc(cfg, later.EndTime-later.StartTime, later.Weight, supply)
	supply += wantLater
	for _, c := range []struct {
		name string
		id   ids.ID
		want uint64
	}{{"delegator", del.TxID, wantDel}, {"validator", vdr.TxID, wantVdr}, {"later validator", later.TxID, wantLater}} {
		if got, ok := book.potential[c.id]; !ok || got != c.want {
			t.Errorf("%s promised %d (set %v), want %d", c.name, got, ok, c.want)
		}
	}
	if got := state.Subnets[constants.PrimaryNetworkID].Supply; got != supply {
		t.Errorf("supply %d, want %d", got, supply)
	}
	if state.NextPending != 0 {
		t.Errorf("next pending %d after every promotion, want 0", state.NextPending)
	}
}

// TestRewardsIncomplete: a replay that does not start at the genesis, or
// whose genesis is unknown, computes nothing.
func TestRewardsIncomplete(t *testing.T) {
	cfg := DefaultRewardConfig(constants.LocalID)
	s := NewRewardState()
	if _, err := s.ApplyBlocks(constants.LocalID, cfg, []*Block{rwBlock(5, time.Now())}, &StakingChanges{}, newMemBook()); err != nil {
		t.Fatal(err)
	}
	if s.Complete {
		t.Error("replay starting at block 5 is complete")
	}
	s = NewRewardState()
	b0 := rwGenesisBlock(t, ids.GenerateTestID())
	if _, err := s.ApplyBlocks(constants.LocalID, cfg, []*Block{b0}, &StakingChanges{}, newMemBook()); err != nil {
		t.Fatal(err)
	}
	if s.Complete {
		t.Error("replay of an unknown genesis is complete")
	}
}

func TestPendingPriority(t *testing.T) {
	subnet := ids.GenerateTestID()
	// avalanchego promotes Apricot delegators, then validators, then Banff
	// delegators, then subnet validators and delegators.
	order := []struct {
		typ    string
		subnet ids.ID
	}{
		{"AddDelegatorTx", constants.PrimaryNetworkID},
		{"AddValidatorTx", constants.PrimaryNetworkID},
		{"AddPermissionlessDelegatorTx", constants.PrimaryNetworkID},
		{"AddPermissionlessValidatorTx", subnet},
		{"AddPermissionlessDelegatorTx", subnet},
	}
	for i := 1; i < len(order); i++ {
		if a, b := PendingPriority(order[i-1].typ, order[i-1].subnet), PendingPriority(order[i].typ, order[i].subnet); a >= b {
			t.Errorf("%s (%d) does not come before %s (%d)", order[i-1].typ, a, order[i].typ, b)
		}
	}
	if PendingPriority("AddPermissionlessValidatorTx", constants.PrimaryNetworkID) != PendingPriority("AddValidatorTx", constants.PrimaryNetworkID) {
		t.Error("primary-network permissionless validators are not pending as validators")
	}
}
