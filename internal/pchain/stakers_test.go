package pchain

import (
	"errors"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
)

func stkTx(t *testing.T, u txs.UnsignedTx) *Tx {
	t.Helper()
	tx, err := txs.NewSigned(u, txs.Codec, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewTx(tx)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func stkBaseTx() txs.BaseTx {
	return txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.LocalID, BlockchainID: constants.PlatformChainID}}
}

func stkOwner(b byte) *secp256k1fx.OutputOwners {
	return &secp256k1fx.OutputOwners{Locktime: uint64(b), Threshold: 1, Addrs: []ids.ShortID{{b}}}
}

func stkPoP(t *testing.T) *signer.ProofOfPossession {
	t.Helper()
	sk, err := localsigner.New()
	if err != nil {
		t.Fatal(err)
	}
	pop, err := signer.NewProofOfPossession(sk)
	if err != nil {
		t.Fatal(err)
	}
	return pop
}

func stkWarp(t *testing.T, msg []byte) []byte {
	t.Helper()
	call, err := payload.NewAddressedCall([]byte{1, 2, 3}, msg)
	if err != nil {
		t.Fatal(err)
	}
	um, err := warp.NewUnsignedMessage(constants.LocalID, ids.GenerateTestID(), call.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	m, err := warp.NewMessage(um, &warp.BitSetSignature{})
	if err != nil {
		t.Fatal(err)
	}
	return m.Bytes()
}

func stkNoLookup(uint64, ids.ID) (*Block, error) { return nil, errors.New("no lookup expected") }

// stkDerive links blocks' option blocks to their proposals, found with
// lookup before the batch, and derives the staking changes.
func stkDerive(t *testing.T, blocks []*Block, lookup func(uint64, ids.ID) (*Block, error)) (*StakingChanges, error) {
	t.Helper()
	if err := LinkProposals(blocks, lookup); err != nil {
		t.Fatal(err)
	}
	return DeriveStaking(blocks)
}

func TestDeriveStakingPrimary(t *testing.T) {
	nodeID := ids.GenerateTestNodeID()
	pop := stkPoP(t)
	now := time.Unix(1_800_000_000, 0)
	vtx := stkTx(t, &txs.AddPermissionlessValidatorTx{
		BaseTx:                stkBaseTx(),
		Validator:             txs.Validator{NodeID: nodeID, Start: 1, End: uint64(now.Add(time.Hour).Unix()), Wght: 2000},
		Subnet:                constants.PrimaryNetworkID,
		Signer:                pop,
		ValidatorRewardsOwner: stkOwner(1),
		DelegatorRewardsOwner: stkOwner(2),
		DelegationShares:      62500,
	})
	vid := vtx.ID
	dtx := stkTx(t, &txs.AddPermissionlessDelegatorTx{
		BaseTx:                 stkBaseTx(),
		Validator:              txs.Validator{NodeID: nodeID, Start: 1, End: uint64(now.Add(30 * time.Minute).Unix()), Wght: 25},
		Subnet:                 constants.PrimaryNetworkID,
		DelegationRewardsOwner: stkOwner(3),
	})
	subnet := ids.GenerateTestID()
	stx := stkTx(t, &txs.AddSubnetValidatorTx{
		BaseTx:          stkBaseTx(),
		SubnetValidator: txs.SubnetValidator{Validator: txs.Validator{NodeID: nodeID, Start: 1, End: uint64(now.Add(time.Minute).Unix()), Wght: 7}, Subnet: subnet},
		SubnetAuth:      &secp256k1fx.Input{},
	})
	rtx := stkTx(t, &txs.RemoveSubnetValidatorTx{BaseTx: stkBaseTx(), NodeID: nodeID, Subnet: subnet, SubnetAuth: &secp256k1fx.Input{}})
	rewardD := stkTx(t, &txs.RewardValidatorTx{TxID: dtx.ID})
	rewardV := stkTx(t, &txs.RewardValidatorTx{TxID: vid})

	blocks := []*Block{
		{Height: 5, Type: "BanffStandardBlock", Timestamp: now, Txs: []*Tx{vtx, dtx, stx}},
		{Height: 6, Type: "BanffStandardBlock", Timestamp: now.Add(time.Second), Txs: []*Tx{rtx}},
		{Height: 7, Type: "BanffProposalBlock", Timestamp: now.Add(time.Hour), Txs: []*Tx{rewardD}},
		{Height: 8, Type: "BanffAbortBlock", Timestamp: now.Add(time.Hour)},
	}
	ch, err := stkDerive(t, blocks, stkNoLookup)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Stakers) != 3 {
		t.Fatalf("%d stakers, want 3", len(ch.Stakers))
	}
	v, d, s := ch.Stakers[0], ch.Stakers[1], ch.Stakers[2]
	if v.Kind != KindValidator || v.TxID != vtx.ID || v.NodeID != nodeID || v.Weight != 2000 ||
		v.StartTime != uint64(now.Unix()) || v.TxStartTime != 1 || v.DelegationShares != 62500 ||
		v.Priority != txs.PrimaryNetworkValidatorCurrentPriority || v.Height != 5 || v.Index != 0 {
		t.Errorf("validator %+v", v)
	}
	if v.ValidationRewardOwner == nil || v.ValidationRewardOwner.Addresses[0] != (ids.ShortID{1}) || v.ValidationRewardOwner.Locktime != 1 ||
		v.DelegationRewardOwner == nil || v.DelegationRewardOwner.Addresses[0] != (ids.ShortID{2}) {
		t.Errorf("validator owners %+v %+v", v.ValidationRewardOwner, v.DelegationRewardOwner)
	}
	if string(v.PublicKey) != string(pop.PublicKey[:]) || string(v.ProofOfPossession) != string(pop.ProofOfPossession[:]) {
		t.Error("validator signer not kept")
	}
	if d.Kind != KindDelegator || d.RewardOwner == nil || d.RewardOwner.Addresses[0] != (ids.ShortID{3}) || d.Index != 1 {
		t.Errorf("delegator %+v", d)
	}
	if s.Kind != KindSubnetValidator || s.SubnetID != subnet || s.Priority != txs.SubnetPermissionedValidatorCurrentPriority {
		t.Errorf("subnet validator %+v", s)
	}
	if len(ch.SubnetRemovals) != 1 || ch.SubnetRemovals[0].SubnetID != subnet || ch.SubnetRemovals[0].NodeID != nodeID || ch.SubnetRemovals[0].Height != 6 {
		t.Errorf("removals %+v", ch.SubnetRemovals)
	}
	if len(ch.Ends) != 1 || ch.Ends[0].StakerTxID != dtx.ID || ch.Ends[0].Committed || ch.Ends[0].Height != 8 || ch.Ends[0].TxID != rewardD.ID {
		t.Errorf("ends %+v", ch.Ends)
	}

	// The proposal block precedes the batch: it is looked up.
	prop := &Block{Height: 9, ID: ids.ID{9}, Type: "BanffProposalBlock", Timestamp: now.Add(time.Hour), Txs: []*Tx{rewardV}}
	ch, err = stkDerive(t, []*Block{{Height: 10, ParentID: prop.ID, Type: "BanffCommitBlock"}}, func(h uint64, id ids.ID) (*Block, error) {
		if h != 9 || id != prop.ID {
			t.Fatalf("lookup(%d, %s)", h, id)
		}
		return prop, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Ends) != 1 || ch.Ends[0].StakerTxID != vid || !ch.Ends[0].Committed || ch.Ends[0].Height != 10 {
		t.Errorf("ends %+v", ch.Ends)
	}

	// Pre-Durango (an Apricot proposal), the start is the tx's.
	atx := stkTx(t, &txs.AddValidatorTx{
		BaseTx:           stkBaseTx(),
		Validator:        txs.Validator{NodeID: nodeID, Start: 100, End: 200, Wght: 5},
		RewardsOwner:     stkOwner(4),
		DelegationShares: 20000,
	})
	ch, err = stkDerive(t, []*Block{
		{Height: 1, Type: "ApricotProposalBlock", Txs: []*Tx{atx}},
		{Height: 2, Type: "ApricotCommitBlock"},
	}, stkNoLookup)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Stakers) != 1 || ch.Stakers[0].StartTime != 100 || ch.Stakers[0].Height != 2 ||
		ch.Stakers[0].DelegationRewardOwner.Addresses[0] != (ids.ShortID{4}) || ch.Stakers[0].PublicKey != nil {
		t.Errorf("apricot validator %+v", ch.Stakers)
	}
	// Aborted: nothing added.
	ch, err = stkDerive(t, []*Block{
		{Height: 1, Type: "ApricotProposalBlock", Txs: []*Tx{atx}},
		{Height: 2, Type: "ApricotAbortBlock"},
	}, stkNoLookup)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Stakers) != 0 {
		t.Errorf("aborted validator added: %+v", ch.Stakers)
	}
}

func TestDeriveStakingL1(t *testing.T) {
	subnet := ids.GenerateTestID()
	pop0, pop1, pop2 := stkPoP(t), stkPoP(t), stkPoP(t)
	n0, n1, n2 := ids.GenerateTestNodeID(), ids.GenerateTestNodeID(), ids.GenerateTestNodeID()
	own := message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{{9}}}
	conv := stkTx(t, &txs.ConvertSubnetToL1Tx{
		BaseTx:  stkBaseTx(),
		Subnet:  subnet,
		ChainID: ids.GenerateTestID(),
		Address: []byte{1},
		Validators: []*txs.ConvertSubnetToL1Validator{
			{NodeID: n0.Bytes(), Weight: 10, Balance: 1000, Signer: *pop0, RemainingBalanceOwner: own, DeactivationOwner: own},
			{NodeID: n1.Bytes(), Weight: 20, Balance: 0, Signer: *pop1, RemainingBalanceOwner: own, DeactivationOwner: message.PChainOwner{}},
		},
		SubnetAuth: &secp256k1fx.Input{},
	})
	reg, err := message.NewRegisterL1Validator(subnet, n2, pop2.PublicKey, 1_900_000_000, own, own, 30)
	if err != nil {
		t.Fatal(err)
	}
	regTx := stkTx(t, &txs.RegisterL1ValidatorTx{BaseTx: stkBaseTx(), Balance: 500, ProofOfPossession: pop2.ProofOfPossession, Message: stkWarp(t, reg.Bytes())})
	v0 := subnet.Append(0)
	w, err := message.NewL1ValidatorWeight(v0, 3, 15)
	if err != nil {
		t.Fatal(err)
	}
	setTx := stkTx(t, &txs.SetL1ValidatorWeightTx{BaseTx: stkBaseTx(), Message: stkWarp(t, w.Bytes())})
	rm, err := message.NewL1ValidatorWeight(reg.ValidationID(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	rmTx := stkTx(t, &txs.SetL1ValidatorWeightTx{BaseTx: stkBaseTx(), Message: stkWarp(t, rm.Bytes())})
	incTx := stkTx(t, &txs.IncreaseL1ValidatorBalanceTx{BaseTx: stkBaseTx(), ValidationID: subnet.Append(1), Balance: 77})
	disTx := stkTx(t, &txs.DisableL1ValidatorTx{BaseTx: stkBaseTx(), ValidationID: v0, DisableAuth: &secp256k1fx.Input{}})

	now := time.Unix(1_800_000_000, 0)
	ch, err := stkDerive(t, []*Block{
		{Height: 20, Type: "BanffStandardBlock", Timestamp: now, Txs: []*Tx{conv}},
		{Height: 21, Type: "BanffStandardBlock", Timestamp: now.Add(time.Second), Txs: []*Tx{regTx, setTx}},
		{Height: 22, Type: "BanffStandardBlock", Timestamp: now.Add(2 * time.Second), Txs: []*Tx{incTx, disTx, rmTx}},
	}, stkNoLookup)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.L1Events) != 7 {
		t.Fatalf("%d L1 events, want 7: %+v", len(ch.L1Events), ch.L1Events)
	}
	by := map[ids.ID][]L1Event{}
	for _, e := range ch.L1Events {
		by[e.ValidationID] = append(by[e.ValidationID], e)
	}
	if ch.L1Events[0].ValidationID != v0 || ch.L1Events[1].ValidationID != subnet.Append(1) {
		t.Errorf("conversion validation ids %s %s", ch.L1Events[0].ValidationID, ch.L1Events[1].ValidationID)
	}

	a, ok := FoldL1(by[v0])
	if !ok || a.NodeID != n0 || a.Weight != 15 || a.MinNonce != 4 || a.Active || a.DepositedBalance != 0 ||
		a.DisabledTxID != disTx.ID || a.StartTime != uint64(now.Unix()) || a.Removed() || a.UpdatedHeight != 22 ||
		string(a.PublicKey) != string(pop0.PublicKey[:]) || a.RemainingBalanceOwner.Addresses[0] != (ids.ShortID{9}) {
		t.Errorf("validator 0: %+v", a)
	}
	b, ok := FoldL1(by[subnet.Append(1)])
	if !ok || !b.Active || b.DepositedBalance != 77 || b.Weight != 20 || len(b.DeactivationOwner.Addresses) != 0 {
		t.Errorf("validator 1: %+v", b)
	}
	c, ok := FoldL1(by[reg.ValidationID()])
	if !ok || c.NodeID != n2 || c.Weight != 0 || !c.Removed() || c.RemovedTxID != rmTx.ID || c.RemovedHeight != 22 ||
		c.StartTime != uint64(now.Unix())+1 || c.AddedTxID != regTx.ID || c.MinNonce != 1 {
		t.Errorf("registered validator: %+v", c)
	}
	if _, ok := FoldL1(by[v0][1:]); ok {
		t.Error("FoldL1 without the adding event should not report a validator")
	}
}

func TestGenesisStakersLocal(t *testing.T) {
	// An unknown genesis has no stakers.
	if g, ok, err := GenesisFor(ids.GenerateTestID()); err != nil || ok || g != nil {
		t.Fatalf("unknown genesis: %v %v %v", g, ok, err)
	}
}
