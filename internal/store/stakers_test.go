package store

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

func stakerTx(t *testing.T, u txs.UnsignedTx) *pchain.Tx {
	t.Helper()
	tx, err := txs.NewSigned(u, txs.Codec, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := pchain.NewTx(tx)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// parsed returns the parsed txs of ts.
func parsed(ts ...*pchain.Tx) []*txs.Tx {
	out := make([]*txs.Tx, len(ts))
	for i, t := range ts {
		out[i] = t.Tx
	}
	return out
}

func stakerBase(memo string) txs.BaseTx {
	return txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.LocalID, BlockchainID: constants.PlatformChainID, Memo: []byte(memo)}}
}

func stakerWarp(t *testing.T, msg []byte) []byte {
	t.Helper()
	call, err := payload.NewAddressedCall([]byte{1}, msg)
	if err != nil {
		t.Fatal(err)
	}
	um, err := warp.NewUnsignedMessage(constants.LocalID, ids.ID{7}, call.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	m, err := warp.NewMessage(um, &warp.BitSetSignature{})
	if err != nil {
		t.Fatal(err)
	}
	return m.Bytes()
}

func TestStakers(t *testing.T) {
	ctx := context.Background()
	addr := ids.ShortID{1, 2, 3}
	own := &secp256k1fx.OutputOwners{Locktime: 5, Threshold: 1, Addrs: []ids.ShortID{addr}}
	nodeA, nodeB := ids.NodeID{0xa}, ids.NodeID{0xb}
	subnet, l1 := ids.ID{0x5}, ids.ID{0x11}
	pop := &signer.ProofOfPossession{PublicKey: [48]byte{1}, ProofOfPossession: [96]byte{2}}

	specs := makeSpecs(t, "stakers", 12)
	t0 := specs[3].time
	end := func(d time.Duration) uint64 { return uint64(t0.Add(d).Unix()) }
	vA := stakerTx(t, &txs.AddPermissionlessValidatorTx{BaseTx: stakerBase("vA"),
		Validator: txs.Validator{NodeID: nodeA, Start: 1, End: end(time.Hour), Wght: 2000},
		Subnet:    constants.PrimaryNetworkID, Signer: pop, ValidatorRewardsOwner: own, DelegatorRewardsOwner: own,
		DelegationShares: 100_000})
	vB := stakerTx(t, &txs.AddPermissionlessValidatorTx{BaseTx: stakerBase("vB"),
		Validator: txs.Validator{NodeID: nodeB, Start: 1, End: end(30 * time.Minute), Wght: 3000},
		Subnet:    constants.PrimaryNetworkID, Signer: &signer.Empty{}, ValidatorRewardsOwner: own, DelegatorRewardsOwner: own,
		DelegationShares: 20_000})
	dA := stakerTx(t, &txs.AddPermissionlessDelegatorTx{BaseTx: stakerBase("dA"),
		Validator: txs.Validator{NodeID: nodeA, Start: 1, End: end(time.Hour), Wght: 25},
		Subnet:    constants.PrimaryNetworkID, DelegationRewardsOwner: own})
	poa1 := stakerTx(t, &txs.AddSubnetValidatorTx{BaseTx: stakerBase("p1"), SubnetValidator: txs.SubnetValidator{
		Validator: txs.Validator{NodeID: nodeA, Start: 1, End: end(20 * time.Minute), Wght: 7}, Subnet: subnet},
		SubnetAuth: &secp256k1fx.Input{}})
	poa2 := stakerTx(t, &txs.AddSubnetValidatorTx{BaseTx: stakerBase("p2"), SubnetValidator: txs.SubnetValidator{
		Validator: txs.Validator{NodeID: nodeB, Start: 1, End: end(20 * time.Minute), Wght: 8}, Subnet: subnet},
		SubnetAuth: &secp256k1fx.Input{}})
	// On another subnet, a validator whose end is proposal block 6's time.
	subnet2 := ids.ID{0x6}
	poa3 := stakerTx(t, &txs.AddSubnetValidatorTx{BaseTx: stakerBase("p3"), SubnetValidator: txs.SubnetValidator{
		Validator: txs.Validator{NodeID: nodeA, Start: 1, End: end(3 * time.Second), Wght: 9}, Subnet: subnet2},
		SubnetAuth: &secp256k1fx.Input{}})
	rmPoa := stakerTx(t, &txs.RemoveSubnetValidatorTx{BaseTx: stakerBase("rm"), NodeID: nodeB, Subnet: subnet,
		SubnetAuth: &secp256k1fx.Input{}})
	rewardB := stakerTx(t, &txs.RewardValidatorTx{TxID: vB.ID})
	conv := stakerTx(t, &txs.ConvertSubnetToL1Tx{BaseTx: stakerBase("c"), Subnet: l1, ChainID: ids.ID{9}, Address: []byte{1},
		Validators: []*txs.ConvertSubnetToL1Validator{
			{NodeID: nodeB.Bytes(), Weight: 10, Balance: 1000, Signer: *pop,
				RemainingBalanceOwner: message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{addr}},
				DeactivationOwner:     message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{addr}}},
			{NodeID: nodeA.Bytes(), Weight: 20, Balance: 0, Signer: *pop},
		},
		SubnetAuth: &secp256k1fx.Input{}})
	w, err := message.NewL1ValidatorWeight(l1.Append(1), 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	removeL1 := stakerTx(t, &txs.SetL1ValidatorWeightTx{BaseTx: stakerBase("w"), Message: stakerWarp(t, w.Bytes())})
	inc := stakerTx(t, &txs.IncreaseL1ValidatorBalanceTx{BaseTx: stakerBase("i"), ValidationID: l1.Append(0), Balance: 50})

	specs[3].txs = parsed(vA, vB, poa1)
	specs[4].txs = parsed(dA, poa2, conv, poa3)
	specs[5].txs = parsed(rmPoa)
	specs[6].typ, specs[6].txs = "BanffProposalBlock", parsed(rewardB)
	specs[7].typ, specs[7].txs = "BanffCommitBlock", nil
	specs[8].txs = parsed(removeL1, inc)
	blocks := pChain(t, 0, testID("stakers"), specs...)

	dbtest.Run(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		// In three batches, the decision in another batch than its proposal,
		// then everything again: nothing changes.
		mustApply(t, s, blocks[:7])
		mustApply(t, s, blocks[7:])
		mustApply(t, s, blocks[2:9])
		mustApply(t, s, blocks)

		cs, err := s.CurrentStakers(ctx, constants.PrimaryNetworkID)
		if err != nil {
			t.Fatal(err)
		}
		if cs.Height != 11 || cs.L1 || len(cs.Stakers) != 2 {
			t.Fatalf("primary: height %d, L1 %t, %d stakers, want 11, false, 2", cs.Height, cs.L1, len(cs.Stakers))
		}
		// Equal end times: the delegator (lower priority) first.
		if cs.Stakers[0].TxID != dA.ID || cs.Stakers[1].TxID != vA.ID {
			t.Errorf("order: %s %s, want %s %s", cs.Stakers[0].TxID, cs.Stakers[1].TxID, dA.ID, vA.ID)
		}
		v := cs.Stakers[1]
		if v.Kind != pchain.KindValidator || v.NodeID != nodeA || v.Weight != 2000 || v.StartTime != uint64(t0.Unix()) ||
			v.DelegationShares != 100_000 || v.ValidationRewardOwner == nil || v.ValidationRewardOwner.Locktime != 5 ||
			v.ValidationRewardOwner.Addresses[0] != addr || v.DelegationRewardOwner == nil ||
			string(v.PublicKey) != string(pop.PublicKey[:]) || string(v.ProofOfPossession) != string(pop.ProofOfPossession[:]) ||
			v.RemovedTxID != ids.Empty {
			t.Errorf("validator A: %+v", v)
		}
		if d := cs.Stakers[0]; d.RewardOwner == nil || d.RewardOwner.Addresses[0] != addr || d.Kind != pchain.KindDelegator {
			t.Errorf("delegator: %+v", d)
		}
		b, err := s.Staker(ctx, vB.ID)
		if err != nil {
			t.Fatal(err)
		}
		if b.RemovedTxID != rewardB.ID || b.RemovedHeight != 7 || b.RewardCommitted == nil || !*b.RewardCommitted || b.PublicKey != nil {
			t.Errorf("rewarded validator B: %+v", b)
		}
		if _, err := s.Staker(ctx, ids.ID{0xee}); !errors.Is(err, derrors.NotFound) {
			t.Errorf("unknown staker: %v", err)
		}

		// PoA: B was removed by its tx; A is still before its end time.
		cs, err = s.CurrentStakers(ctx, subnet)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs.Stakers) != 1 || cs.Stakers[0].TxID != poa1.ID {
			t.Fatalf("PoA subnet: %+v", cs.Stakers)
		}
		p2, err := s.Staker(ctx, poa2.ID)
		if err != nil {
			t.Fatal(err)
		}
		if p2.RemovedTxID != rmPoa.ID || p2.RewardCommitted != nil {
			t.Errorf("removed PoA validator: %+v", p2)
		}

		// L1: validator 1 removed, validator 0 topped up.
		cs, err = s.CurrentStakers(ctx, l1)
		if err != nil {
			t.Fatal(err)
		}
		if !cs.L1 || len(cs.L1Validators) != 1 {
			t.Fatalf("L1: %+v", cs)
		}
		l := cs.L1Validators[0]
		if l.ValidationID != l1.Append(0) || l.NodeID != nodeB || l.Weight != 10 || l.DepositedBalance != 1050 || !l.Active ||
			l.StartTime != uint64(blocks[4].Timestamp.Unix()) || l.RemainingBalanceOwner == nil ||
			l.RemainingBalanceOwner.Addresses[0] != addr || l.DeactivationOwner == nil || l.UpdatedHeight != 8 {
			t.Errorf("L1 validator 0: %+v", l)
		}
		gone, err := s.L1Validator(ctx, l1.Append(1))
		if err != nil {
			t.Fatal(err)
		}
		if !gone.Removed() || gone.RemovedTxID != removeL1.ID || gone.MinNonce != 5 || gone.Weight != 0 ||
			len(gone.DeactivationOwner.Addresses) != 0 {
			t.Errorf("removed L1 validator: %+v", gone)
		}
		if _, err := s.L1Validator(ctx, ids.ID{0xee}); !errors.Is(err, derrors.NotFound) {
			t.Errorf("unknown L1 validator: %v", err)
		}

		// Unknown subnet: nothing.
		cs, err = s.CurrentStakers(ctx, ids.ID{0xcc})
		if err != nil {
			t.Fatal(err)
		}
		if cs.L1 || len(cs.Stakers) != 0 || len(cs.L1Validators) != 0 {
			t.Errorf("unknown subnet: %+v", cs)
		}

		// The stakers current after each height: added at 3 and 4, vB
		// rewarded at 7 (the commit), poa2 removed at 5, poa3 ended by
		// block 6's time. The node writes what a proposal block changes
		// with its decision: at 6 its sets are those of 5.
		for _, tc := range []struct {
			subnet ids.ID
			height uint64
			want   []ids.ID
		}{
			{constants.PrimaryNetworkID, 2, nil},
			{constants.PrimaryNetworkID, 3, []ids.ID{vA.ID, vB.ID}},
			{constants.PrimaryNetworkID, 6, []ids.ID{vA.ID, vB.ID, dA.ID}},
			{constants.PrimaryNetworkID, 7, []ids.ID{vA.ID, dA.ID}},
			{subnet, 3, []ids.ID{poa1.ID}},
			{subnet, 4, []ids.ID{poa1.ID, poa2.ID}},
			{subnet, 5, []ids.ID{poa1.ID}},
			{subnet2, 5, []ids.ID{poa3.ID}},
			{subnet2, 6, []ids.ID{poa3.ID}},
			{subnet2, 7, nil},
			{ids.ID{0xcc}, 5, nil},
		} {
			got, err := s.StakersAt(ctx, tc.subnet, tc.height)
			if err != nil {
				t.Fatal(err)
			}
			var gotIDs []ids.ID
			for _, st := range got {
				gotIDs = append(gotIDs, st.TxID)
			}
			if !sameIDSet(gotIDs, tc.want) {
				t.Errorf("StakersAt(%s, %d) = %v, want %v", tc.subnet, tc.height, gotIDs, tc.want)
			}
		}
		// The L1 validators at each height. A store without the fee history
		// (these tests hold no network, so no replay) cannot tell which are
		// active.
		if _, complete, err := s.L1ValidatorsAt(ctx, l1, 4); err != nil || complete {
			t.Errorf("L1ValidatorsAt(4) without the fee history: complete %t, %v; want false", complete, err)
		}
		// The history as a replay writes it: both registered at 4 (validator
		// 1 with no balance), validator 0's balance run out by block 6's
		// time advance and topped up by the increase at 8. Block 6 is a
		// proposal block: the node shows its deactivation from 7 on.
		v0, v1 := l1.Append(0), l1.Append(1)
		if err := saveL1FeeHistory(ctx, s.db, &internal.L1FeeHistory{Changes: []internal.L1BalanceChange{
			{ValidationID: v0, Height: 4, Index: 2, Kind: internal.L1BalanceRegister, End: 1000, Amount: 1000},
			{ValidationID: v1, Height: 4, Index: 2, Kind: internal.L1BalanceRegister},
			{ValidationID: v0, Height: 6, Index: -1, Kind: internal.L1BalanceDeactivate, Accrued: 1000},
			{ValidationID: v1, Height: 8, Index: 0, Kind: internal.L1BalanceRemove},
			{ValidationID: v0, Height: 8, Index: 1, Kind: internal.L1BalanceIncrease, End: 1100, Amount: 50},
		}}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			height uint64
			want   []L1ValidatorAt
		}{
			{3, nil},
			{4, []L1ValidatorAt{{ValidationID: v0, NodeID: nodeB, Weight: 10, Active: true}, {ValidationID: v1, NodeID: nodeA, Weight: 20}}},
			{5, []L1ValidatorAt{{ValidationID: v0, NodeID: nodeB, Weight: 10, Active: true}, {ValidationID: v1, NodeID: nodeA, Weight: 20}}},
			{6, []L1ValidatorAt{{ValidationID: v0, NodeID: nodeB, Weight: 10, Active: true}, {ValidationID: v1, NodeID: nodeA, Weight: 20}}},
			{7, []L1ValidatorAt{{ValidationID: v0, NodeID: nodeB, Weight: 10}, {ValidationID: v1, NodeID: nodeA, Weight: 20}}},
			{8, []L1ValidatorAt{{ValidationID: v0, NodeID: nodeB, Weight: 10, Active: true}}},
			{11, []L1ValidatorAt{{ValidationID: v0, NodeID: nodeB, Weight: 10, Active: true}}},
		} {
			got, complete, err := s.L1ValidatorsAt(ctx, l1, tc.height)
			if err != nil || !complete {
				t.Fatalf("L1ValidatorsAt(%d): complete %t, %v", tc.height, complete, err)
			}
			var gotV []L1ValidatorAt
			for _, v := range got {
				if !bytes.Equal(v.PublicKey, pop.PublicKey[:]) {
					t.Errorf("L1ValidatorsAt(%d): %s's key %x", tc.height, v.ValidationID, v.PublicKey)
				}
				v.PublicKey = nil
				gotV = append(gotV, *v)
			}
			slices.SortFunc(gotV, func(a, b L1ValidatorAt) int { return a.ValidationID.Compare(b.ValidationID) })
			if !reflect.DeepEqual(gotV, tc.want) {
				t.Errorf("L1ValidatorsAt(%d) = %+v, want %+v", tc.height, gotV, tc.want)
			}
		}
		if got, _, err := s.L1ValidatorsAt(ctx, subnet, 11); err != nil || len(got) != 0 {
			t.Errorf("L1ValidatorsAt of a PoA subnet: %+v, %v", got, err)
		}
		if ts, err := s.PBlockTime(ctx, 3); err != nil || !ts.Equal(blocks[3].Timestamp) {
			t.Errorf("PBlockTime(3) = %v, %v; want %v", ts, err, blocks[3].Timestamp)
		}
		if _, err := s.PBlockTime(ctx, 1000); !errors.Is(err, derrors.NotFound) {
			t.Errorf("PBlockTime(1000): %v, want not found", err)
		}
	})
}

func sameIDSet(a, b []ids.ID) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[ids.ID]int{}
	for _, id := range a {
		seen[id]++
	}
	for _, id := range b {
		if seen[id]--; seen[id] < 0 {
			return false
		}
	}
	return true
}
