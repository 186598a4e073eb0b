package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestL1FeeWebhookEvents applies P-chain blocks of the local network,
// whose L1 validators pay 1 nAVAX a second (fewer than the target are
// active), with validator webhooks on an L1's subnet and on one of its
// nodes, and checks the events of the continuous fee against balances
// worked out by hand: the deactivation of a balance that ran out, and
// each first block whose time puts a balance below a threshold. The same
// events follow from other batches, a re-apply and a rederive.
func TestL1FeeWebhookEvents(t *testing.T) {
	const T = 1_700_000_000
	addr := ids.ShortID{1, 2, 3}
	nodeA, nodeB := ids.NodeID{0xa}, ids.NodeID{0xb}
	l1 := ids.ID{0x11}
	v0, v1 := l1.Append(0), l1.Append(1)
	pop := &signer.ProofOfPossession{PublicKey: [48]byte{1}, ProofOfPossession: [96]byte{2}}
	owner := message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{addr}}
	conv := stakerTx(t, &txs.ConvertSubnetToL1Tx{BaseTx: stakerBase("c"), Subnet: l1, ChainID: ids.ID{9}, Address: []byte{1},
		Validators: []*txs.ConvertSubnetToL1Validator{
			{NodeID: nodeA.Bytes(), Weight: 10, Balance: 100, Signer: *pop, RemainingBalanceOwner: owner, DeactivationOwner: owner},
			{NodeID: nodeB.Bytes(), Weight: 20, Balance: 1000, Signer: *pop, RemainingBalanceOwner: owner, DeactivationOwner: owner},
		},
		SubnetAuth: &secp256k1fx.Input{}})
	inc := stakerTx(t, &txs.IncreaseL1ValidatorBalanceTx{BaseTx: stakerBase("i"), ValidationID: v1, Balance: 500})
	dis := stakerTx(t, &txs.DisableL1ValidatorTx{BaseTx: stakerBase("d"), ValidationID: v1, DisableAuth: &secp256k1fx.Input{}})

	specs := makeSpecs(t, "l1fee", 11)
	for h, c := range []struct {
		dt  int64
		txs []*pchain.Tx
	}{
		3:  {0, []*pchain.Tx{conv}}, // v0's end T+100, v1's T+1000
		4:  {50, nil},
		5:  {80, nil},
		6:  {150, nil},
		7:  {200, []*pchain.Tx{inc}}, // v1's end T+1500
		8:  {700, nil},
		9:  {1000, []*pchain.Tx{dis}},
		10: {1100, nil},
	} {
		if h >= 3 {
			specs[h].time, specs[h].txs = time.Unix(T+c.dt, 0).UTC(), parsed(c.txs...)
		}
	}
	blocks := pChain(t, 0, testID("l1fee"), specs...)

	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		setup := func(dsn string) *sqlStore {
			s := openStore(t, dsn)
			nb, err := json.Marshal(internal.Network{ID: constants.LocalID, AVAXAssetID: ids.ID{0xaa}})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.PutSettingIfAbsent(ctx, NetworkSetting, nb); err != nil {
				t.Fatal(err)
			}
			lim := WebhookLimits{Webhooks: 10, Addresses: 10}
			for _, h := range []struct {
				id, keyType, key, threshold string
				created                     time.Time
				subs                        []string
			}{
				{"subnet", "subnetId", l1.String(), "900", time.Unix(0, 0), []string{internal.SubL1Disabled, internal.SubL1BalanceThreshold}},
				{"node", "nodeId", nodeB.String(), "1000", time.Unix(0, 0), []string{internal.SubL1BalanceThreshold}},
				// Without a threshold the sub-event matches nothing.
				{"nothreshold", "subnetId", l1.String(), "", time.Unix(0, 0), []string{internal.SubL1BalanceThreshold}},
				{"late", "subnetId", l1.String(), "900", time.Now(), []string{internal.SubL1Disabled, internal.SubL1BalanceThreshold}},
			} {
				if err := s.CreateWebhook(ctx, Webhook{ID: h.id, Owner: "o", EventType: internal.EventValidatorActivity, Status: WebhookActive,
					Created: h.created, Filter: WebhookFilter{KeyType: h.keyType, SubEvents: h.subs, L1FeeBalanceThreshold: h.threshold}},
					[]string{h.key}, lim); err != nil {
					t.Fatal(err)
				}
			}
			return s
		}
		s := setup(dsn)
		mustApply(t, s, blocks[:5])
		mustApply(t, s, blocks[5:8])
		mustApply(t, s, blocks[8:])

		name := map[string]string{v0.String(): "v0", v1.String(): "v1"}
		lines := func(s Store, id string) ([]string, []WebhookEvent) {
			t.Helper()
			raw, err := s.WebhookEvents(ctx, id, 100)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, e := range raw {
				var p struct {
					EventType, WebhookID string
					Event                struct {
						EventType, TxHash, TxType, NodeID, SubnetID, ValidationID string
						BalanceBefore, BalanceAfter, BalanceThreshold             string
						BlockHeight                                               uint64
						BlockTimestamp                                            int64
					}
				}
				if err := json.Unmarshal(e.Payload, &p); err != nil {
					t.Fatal(err)
				}
				if canon, err := canonicalJSON(json.RawMessage(e.Payload)); err != nil || string(canon) != string(e.Payload) {
					t.Errorf("payload not canonical: %s", e.Payload)
				}
				ev := p.Event
				if p.EventType != internal.EventValidatorActivity || p.WebhookID != id || ev.SubnetID != l1.String() ||
					ev.BlockHeight != e.BlockNumber || ev.BlockTimestamp != blocks[ev.BlockHeight].Timestamp.Unix() {
					t.Errorf("envelope %s", e.Payload)
				}
				l := fmt.Sprintf("%d %s %s", ev.BlockHeight, ev.EventType, name[ev.ValidationID])
				if ev.TxHash != "" {
					l += " " + ev.TxType
				} else {
					l += fmt.Sprintf(" %s->%s", ev.BalanceBefore, ev.BalanceAfter)
				}
				if ev.BalanceThreshold != "" {
					l += " <" + ev.BalanceThreshold
				}
				out = append(out, l)
			}
			return out, raw
		}
		// v0 (100 at T, ends at T+100) runs out at the block of T+150,
		// having 20 left after T+80's. v1 (1000 at T) is at 920 after
		// T+80's block and 850 at T+150's: below 900; topped up by 500 at
		// T+200 (850 - 50 + 500 = 1300), it falls from 1300 to 800 by
		// T+700's block, then to 500 at T+1000's, which disables it.
		adv6 := []string{"6 l1_validator_disabled v0 20->0", "6 l1_validator_balance_threshold v1 920->850 <900"}
		if v1.Compare(v0) < 0 { // a block's advance events by validation id
			adv6[0], adv6[1] = adv6[1], adv6[0]
		}
		want := map[string][]string{
			"subnet": append(adv6,
				"8 l1_validator_balance_threshold v1 1300->800 <900",
				"9 l1_validator_disabled v1 DisableL1ValidatorTx"),
			// 1000 after the conversion's block is not below 1000; 950
			// at T+50's is.
			"node": {
				"4 l1_validator_balance_threshold v1 1000->950 <1000",
				"8 l1_validator_balance_threshold v1 1300->800 <1000"},
			"nothreshold": nil,
			"late":        nil,
		}
		raws := map[string][]WebhookEvent{}
		for id, w := range want {
			got, raw := lines(s, id)
			if !slices.Equal(got, w) {
				t.Errorf("%s's events:\n%s\nwant\n%s", id, joinLines(got), joinLines(w))
			}
			raws[id] = raw
		}
		// The balances the fee state ends with agree: v1 disabled (0).
		if b, err := s.L1Balances(ctx, []ids.ID{v0, v1}); err != nil || b[v0] != 0 || b[v1] != 0 {
			t.Errorf("L1Balances = %v, %v; want 0 and 0", b, err)
		}

		same := func(what string, s Store) {
			t.Helper()
			for id, raw := range raws {
				got, err := s.WebhookEvents(ctx, id, 100)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.EqualFunc(got, raw, sameEvent) {
					t.Errorf("%s: %s's %d events differ from the first %d", what, id, len(got), len(raw))
				}
			}
		}
		// Re-applying writes nothing twice; one batch writes the same.
		mustApply(t, s, blocks)
		same("re-applied", s)
		s2 := setup(dbtestFresh(t, dsn))
		mustApply(t, s2, blocks)
		same("one batch", s2)

		// A rederive in other batches, the outbox emptied first (as
		// delivered and pruned), writes them again, the same.
		if _, err := s.db.Exec(ctx, "DELETE FROM webhook_outbox"); err != nil {
			t.Fatal(err)
		}
		if err := s.RequestRederive(ctx, internal.PChain); err != nil {
			t.Fatal(err)
		}
		r, err := s.StartRederive(ctx, internal.PChain)
		if err != nil || r.Next != 0 {
			t.Fatalf("StartRederive = %+v, %v", r, err)
		}
		for _, part := range [][]*pchain.Block{blocks[:4], blocks[4:7], blocks[7:]} {
			batch, err := pchain.Batch(part)
			if err != nil {
				t.Fatal(err)
			}
			if r, err = s.RederivePBlocks(ctx, batch, deriveP); err != nil {
				t.Fatal(err)
			}
		}
		if !r.Done {
			t.Fatalf("rederive not done: %+v", r)
		}
		same("rederived", s)
	})
}
