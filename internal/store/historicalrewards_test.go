package store

import (
	"context"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestHistoricalRewards pays a validator its reward and the fees it
// accrued, a delegator its share, and an aborted validator its fees, and
// lists them by owner and by node.
func TestHistoricalRewards(t *testing.T) {
	nodeA, nodeB := ids.NodeID{0xa}, ids.NodeID{0xb}
	owner := func(a ids.ShortID) *secp256k1fx.OutputOwners {
		return &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{a}}
	}
	specs := makeSpecs(t, "rewards", 11)
	t0 := specs[3].time
	end := func(d time.Duration) uint64 { return uint64(t0.Add(d).Unix()) }
	vA := stakerTx(t, &txs.AddPermissionlessValidatorTx{BaseTx: stakerBase("vA"),
		Validator: txs.Validator{NodeID: nodeA, Start: 1, End: end(time.Hour), Wght: 2000},
		Subnet:    constants.PrimaryNetworkID, Signer: &signer.Empty{}, ValidatorRewardsOwner: owner(uAddrA),
		DelegatorRewardsOwner: owner(uAddrC), DelegationShares: 100_000})
	vB := stakerTx(t, &txs.AddPermissionlessValidatorTx{BaseTx: stakerBase("vB"),
		Validator: txs.Validator{NodeID: nodeB, Start: 1, End: end(30 * time.Minute), Wght: 3000},
		Subnet:    constants.PrimaryNetworkID, Signer: &signer.Empty{}, ValidatorRewardsOwner: owner(uAddrA),
		DelegatorRewardsOwner: owner(uAddrC), DelegationShares: 20_000})
	dA := stakerTx(t, &txs.AddPermissionlessDelegatorTx{BaseTx: stakerBase("dA"),
		Validator: txs.Validator{NodeID: nodeA, Start: 1, End: end(time.Hour), Wght: 25},
		Subnet:    constants.PrimaryNetworkID, DelegationRewardsOwner: owner(uAddrB)})
	// A reward UTXO as the executor makes it: output index i after the
	// staker tx's outputs and stake (none here).
	rewardUTXO := func(staker ids.ID, i uint32, amount uint64, a ids.ShortID) []byte {
		u := &avax.UTXO{UTXOID: avax.UTXOID{TxID: staker, OutputIndex: i}, Asset: avax.Asset{ID: uAsset},
			Out: &secp256k1fx.TransferOutput{Amt: amount, OutputOwners: *owner(a)}}
		b, err := txs.Codec.Marshal(txs.CodecVersion, u)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	specs[3].txs = parsed(vA, vB)
	specs[4].txs = parsed(dA)
	specs[5] = pSpec{typ: "BanffProposalBlock", time: specs[5].time, txs: parsed(stakerTx(t, &txs.RewardValidatorTx{TxID: dA.ID})),
		rewards: map[ids.ID][][]byte{dA.ID: {rewardUTXO(dA.ID, 0, 9, uAddrB)}}}
	specs[6] = pSpec{typ: "BanffCommitBlock", time: specs[6].time}
	specs[7] = pSpec{typ: "BanffProposalBlock", time: specs[7].time, txs: parsed(stakerTx(t, &txs.RewardValidatorTx{TxID: vA.ID})),
		rewards: map[ids.ID][][]byte{vA.ID: {rewardUTXO(vA.ID, 0, 20, uAddrA), rewardUTXO(vA.ID, 1, 3, uAddrC)}}}
	specs[8] = pSpec{typ: "BanffCommitBlock", time: specs[8].time}
	specs[9] = pSpec{typ: "BanffProposalBlock", time: specs[9].time, txs: parsed(stakerTx(t, &txs.RewardValidatorTx{TxID: vB.ID})),
		rewards: map[ids.ID][][]byte{vB.ID: {rewardUTXO(vB.ID, 0, 2, uAddrC)}}}
	specs[10] = pSpec{typ: "BanffAbortBlock", time: specs[10].time}
	blocks := pChain(t, 0, testID("rewards"), specs...)

	type want struct {
		staker ids.ID
		idx    uint32
		typ    string
		amount uint64
		owner  ids.ShortID
		node   ids.NodeID
		weight uint64
		height uint64 // of the RewardValidatorTx
	}
	var (
		vAReward = want{vA.ID, 0, pchain.RewardValidator, 20, uAddrA, nodeA, 2000, 7}
		vAFee    = want{vA.ID, 1, pchain.RewardValidatorFee, 3, uAddrC, nodeA, 2000, 7}
		dAReward = want{dA.ID, 0, pchain.RewardDelegator, 9, uAddrB, nodeA, 25, 5}
		vBFee    = want{vB.ID, 0, pchain.RewardValidatorFee, 2, uAddrC, nodeB, 3000, 9}
	)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		// In batches that split proposals from their decisions, and again.
		for _, batch := range [][]*pchain.Block{blocks[:6], blocks[6:8], blocks[8:], blocks[4:]} {
			mustApply(t, s, batch)
		}
		for _, tc := range []struct {
			name string
			q    RewardQuery
			want []want // descending
		}{
			{"A", RewardQuery{Addresses: []ids.ShortID{uAddrA}, Desc: true}, []want{vAReward}},
			{"B", RewardQuery{Addresses: []ids.ShortID{uAddrB}, Desc: true}, []want{dAReward}},
			{"C", RewardQuery{Addresses: []ids.ShortID{uAddrC}, Desc: true}, []want{vAFee, vBFee}},
			{"node A", RewardQuery{NodeIDs: []ids.NodeID{nodeA, nodeA}, Desc: true}, []want{vAReward, vAFee, dAReward}},
			{"node B", RewardQuery{NodeIDs: []ids.NodeID{nodeB}, Desc: true}, []want{vBFee}},
			{"C on node B", RewardQuery{Addresses: []ids.ShortID{uAddrC}, NodeIDs: []ids.NodeID{nodeB}, Desc: true}, []want{vBFee}},
			{"A, B, C", RewardQuery{Addresses: []ids.ShortID{uAddrC, uAddrB, uAddrA}, Desc: true}, []want{vAReward, vAFee, dAReward, vBFee}},
			{"nobody", RewardQuery{Addresses: []ids.ShortID{{9}}}, nil},
		} {
			// Descending by end time, then UTXO id.
			endOf := func(w want) uint64 {
				return map[ids.ID]uint64{vA.ID: end(time.Hour), dA.ID: end(time.Hour), vB.ID: end(30 * time.Minute)}[w.staker]
			}
			slices.SortFunc(tc.want, func(a, b want) int {
				if ea, eb := endOf(a), endOf(b); ea != eb {
					return -cmpInt64(int64(ea), int64(eb))
				}
				return -utxoKey(a.staker, a.idx).Compare(utxoKey(b.staker, b.idx))
			})
			for _, desc := range []bool{true, false} {
				wantOrder := slices.Clone(tc.want)
				if !desc {
					slices.Reverse(wantOrder)
				}
				q := tc.q
				q.Desc = desc
				for _, n := range []int{1, 2, 10} {
					var (
						got   []*HistoricalReward
						after *RewardKey
					)
					for {
						page, err := s.HistoricalRewards(ctx, q, after, n+1)
						if err != nil {
							t.Fatal(err)
						}
						if len(page) <= n {
							got = append(got, page...)
							break
						}
						got = append(got, page[:n]...)
						k := page[n-1].Key()
						after = &k
					}
					if len(got) != len(wantOrder) {
						t.Errorf("%s, desc %t, pages of %d: %d rewards, want %d", tc.name, desc, n, len(got), len(wantOrder))
						continue
					}
					for i, g := range got {
						w := wantOrder[i]
						st := map[ids.ID]*pchain.Tx{vA.ID: vA, vB.ID: vB, dA.ID: dA}[w.staker]
						endTime := st.Tx.Unsigned.(txs.Staker).EndTime()
						if g.UTXOID != utxoKey(w.staker, w.idx) || g.StakerTxID != w.staker || g.OutputIndex != w.idx ||
							g.Type != w.typ || g.Amount != w.amount || !slices.Equal(g.Owners, []ids.ShortID{w.owner}) ||
							g.NodeID != w.node || g.Weight != w.weight || g.EndTime != uint64(endTime.Unix()) ||
							g.StartTime != uint64(specs[3+btoi(w.staker == dA.ID)].time.Unix()) ||
							g.RewardTxID != blocks[w.height].Txs[0].ID || g.AssetID != uAsset {
							t.Errorf("%s, desc %t, pages of %d, item %d: %+v, want %+v", tc.name, desc, n, i, g, w)
						}
					}
				}
			}
		}

		// RewardTypes, which the txs' rendering reads, types them the same;
		// an id that is no reward UTXO is left out.
		wantTypes := map[ids.ID]string{}
		var utxoIDs []ids.ID
		for _, w := range []want{vAReward, vAFee, dAReward, vBFee} {
			wantTypes[utxoKey(w.staker, w.idx)] = w.typ
			utxoIDs = append(utxoIDs, utxoKey(w.staker, w.idx))
		}
		if got, err := s.RewardTypes(ctx, append(utxoIDs, testID("no reward"))); err != nil || !maps.Equal(got, wantTypes) {
			t.Errorf("RewardTypes = %v, %v; want %v", got, err, wantTypes)
		}

		// The migration's backfill writes the same rows as the applier.
		before := dumpRewardRows(t, s)
		for _, table := range []string{"p_historical_reward_owners", "p_historical_rewards"} {
			if _, err := s.db.Exec(ctx, "DELETE FROM "+table); err != nil {
				t.Fatal(err)
			}
		}
		text, err := os.ReadFile("migrations/0013_historical_rewards.sql")
		if err != nil {
			t.Fatal(err)
		}
		_, backfill, ok := strings.Cut(string(text), "-- The rewards stored before this table existed.")
		if !ok {
			t.Fatal("the migration has no backfill")
		}
		if _, err := s.db.Exec(ctx, backfill); err != nil {
			t.Fatal(err)
		}
		if after := dumpRewardRows(t, s); after != before || !strings.Contains(before, "\n") {
			t.Errorf("the backfill wrote\n%s\nthe applier\n%s", after, before)
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func dumpRewardRows(t *testing.T, s *sqlStore) string {
	t.Helper()
	var lines []string
	for _, q := range []string{
		"SELECT utxo_id, staker_tx_id, node_id, end_time FROM p_historical_rewards",
		"SELECT address, utxo_id, utxo_id, end_time FROM p_historical_reward_owners",
	} {
		rows, err := s.db.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var a, b, c []byte
			var e int64
			if err := rows.Scan(&a, &b, &c, &e); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, string(a)+string(b)+string(c)+string(rune(e)))
		}
		rows.Close()
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
