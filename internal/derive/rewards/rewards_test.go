package rewards

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"

	"github.com/avaindex/avaindex/internal"
)

type fakeStakers struct {
	stored  map[ids.ID]internal.StakerPeriod
	asked   []ids.ID
	written []internal.PaidReward
}

func (f *fakeStakers) StakerPeriods(_ context.Context, stakers []ids.ID) (map[ids.ID]internal.StakerPeriod, error) {
	f.asked = append(f.asked, stakers...)
	out := map[ids.ID]internal.StakerPeriod{}
	for _, s := range stakers {
		if p, ok := f.stored[s]; ok {
			out[s] = p
		}
	}
	return out, nil
}

func (f *fakeStakers) WriteRewardHistory(_ context.Context, rewards []internal.PaidReward) error {
	f.written = append(f.written, rewards...)
	return nil
}

func TestHistory(t *testing.T) {
	validator, delegator, unknown, noReward := ids.ID{0xa}, ids.ID{0xd}, ids.ID{0xe}, ids.ID{0xf}
	reward := func(tx ids.ID, i uint32) *internal.UTXOOutput {
		return &internal.UTXOOutput{UTXO: &avax.UTXO{UTXOID: avax.UTXOID{TxID: tx, OutputIndex: i}}}
	}
	rewardTx := func(staker ids.ID) internal.PTxData {
		return internal.PTxData{UTXOs: &internal.PTxUTXOs{RewardedStaker: staker}}
	}
	w := &fakeStakers{stored: map[ids.ID]internal.StakerPeriod{
		validator: {NodeID: ids.NodeID{1}, EndTime: 500},
		delegator: {NodeID: ids.NodeID{1}, EndTime: 400},
		noReward:  {NodeID: ids.NodeID{2}, EndTime: 300},
	}}
	blocks := []*internal.PBlockData{
		{Height: 7, Txs: []internal.PTxData{rewardTx(delegator), {}},
			Rewards: map[ids.ID][]*internal.UTXOOutput{delegator: {reward(ids.ID{0x71}, 0)}}},
		// The validator's reward and its delegation fee; a staker of an
		// unknown genesis; a staker rewarded nothing.
		{Height: 8, Txs: []internal.PTxData{rewardTx(validator), rewardTx(unknown), rewardTx(noReward)},
			Rewards: map[ids.ID][]*internal.UTXOOutput{
				validator: {reward(ids.ID{0x81}, 0), reward(ids.ID{0x81}, 1)},
				unknown:   {reward(ids.ID{0x82}, 0)},
			}},
	}
	if err := History(context.Background(), w, blocks); err != nil {
		t.Fatal(err)
	}
	if want := []ids.ID{delegator, validator, unknown}; !slices.Equal(w.asked, want) {
		t.Errorf("asked for stakers %v, want %v", w.asked, want)
	}
	var got []string
	for _, r := range w.written {
		got = append(got, fmt.Sprintf("%x/%d staker %x node %x end %d", r.UTXO.UTXO.TxID[:1], r.UTXO.UTXO.OutputIndex, r.Staker[:1], r.NodeID[:1], r.EndTime))
	}
	want := []string{
		"71/0 staker 0d node 01 end 400",
		"81/0 staker 0a node 01 end 500",
		"81/1 staker 0a node 01 end 500",
	}
	if !slices.Equal(got, want) {
		t.Errorf("wrote\n%q\nwant\n%q", got, want)
	}

	// A batch that rewards no one reads nothing.
	w = &fakeStakers{}
	if err := History(context.Background(), w, []*internal.PBlockData{{Height: 9, Txs: []internal.PTxData{{}}}}); err != nil {
		t.Fatal(err)
	}
	if len(w.asked)+len(w.written) != 0 {
		t.Errorf("a batch without rewards asked %v and wrote %v", w.asked, w.written)
	}
}
