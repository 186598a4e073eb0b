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
	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// platformEvent is a primary-network event as the tests read it.
type platformEvent struct {
	WebhookID, EventType, MessageID string
	Event                           struct {
		EventType, TxHash, TxType, NodeID, StakingTxHash, StakeAmount string
		BlockHeight                                                   uint64
		Addresses                                                     json.RawMessage
		BalanceChanges                                                []struct{ Address, AssetID, Sent, Received, Staked, Change string }
		Rewards                                                       []struct {
			Amount, RewardType string
			Addresses          []string
		}
		BalanceThreshold string
	}
}

func platformEvents(t *testing.T, s Store, id string) ([]platformEvent, []WebhookEvent) {
	t.Helper()
	evs, err := s.WebhookEvents(context.Background(), id, 100)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]platformEvent, len(evs))
	for i, e := range evs {
		if err := json.Unmarshal(e.Payload, &out[i]); err != nil {
			t.Fatal(err)
		}
		if canon, err := canonicalJSON(json.RawMessage(e.Payload)); err != nil || string(canon) != string(e.Payload) {
			t.Errorf("payload not canonical: %s", e.Payload)
		}
	}
	return out, evs
}

// TestPlatformWebhookEvents applies the UTXO scenario's P-chain blocks
// (a transfer to B, a delegation staking B's output, its reward paid to
// B, an export spending them) with an address webhook on B and a
// validator webhook on the delegation's node, and checks the events: the
// amounts worked out here from the scenario's txs, the threshold crossed
// once, the same events whatever the batches and however often applied,
// and after a rederive.
func TestPlatformWebhookEvents(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		sc := newUTXOScenario(t)
		setup := func(dsn string) Store {
			// No network stored: the reward replay would need the
			// scenario's validators. The P-chain's balance is its AVAX.
			s := openStore(t, dsn)
			b, _ := address.FormatBech32("local", uAddrB[:])
			lim := WebhookLimits{Webhooks: 10, Addresses: 10}
			if err := s.CreateWebhook(ctx, Webhook{ID: "addr", Owner: "o", EventType: internal.EventPlatformAddressActivity, Status: WebhookActive,
				Created: time.Unix(0, 0), Filter: WebhookFilter{Chain: "P", KeyType: "addresses",
					SubEvents: []string{internal.SubBalanceChange, internal.SubBalanceThreshold, internal.SubRewardDistribution}, BalanceType: "unlockedUnstaked", BalanceThreshold: "200"}},
				[]string{b}, lim); err != nil {
				t.Fatal(err)
			}
			if err := s.CreateWebhook(ctx, Webhook{ID: "node", Owner: "o", EventType: internal.EventValidatorActivity, Status: WebhookActive,
				Created: time.Unix(0, 0), Filter: WebhookFilter{KeyType: "nodeId",
					SubEvents: []string{internal.SubValidatorStake, internal.SubDelegatorStake, internal.SubRewardDistribution}}},
				[]string{ids.NodeID{2}.String()}, lim); err != nil {
				t.Fatal(err)
			}
			// A webhook created after the blocks gets none of them.
			if err := s.CreateWebhook(ctx, Webhook{ID: "late", Owner: "o", EventType: internal.EventPlatformAddressActivity, Status: WebhookActive,
				Created: time.Now(), Filter: WebhookFilter{Chain: "P", KeyType: "addresses", SubEvents: []string{internal.SubBalanceChange}}},
				[]string{b}, lim); err != nil {
				t.Fatal(err)
			}
			return s
		}
		s := setup(dsn)
		mustApply(t, s, sc.blocks[:3])
		mustApply(t, s, sc.blocks[3:5])
		mustApply(t, s, sc.blocks[5:])

		got, raw := platformEvents(t, s, "addr")
		var lines []string
		for _, e := range got {
			l := fmt.Sprintf("%d %s %s", e.Event.BlockHeight, e.Event.EventType, e.Event.TxType)
			for _, c := range e.Event.BalanceChanges {
				l += fmt.Sprintf(" sent=%s received=%s staked=%s change=%s", c.Sent, c.Received, c.Staked, c.Change)
			}
			for _, r := range e.Event.Rewards {
				l += fmt.Sprintf(" reward=%s %s", r.Amount, r.RewardType)
			}
			if e.Event.EventType == internal.SubBalanceThreshold {
				l += " " + string(e.Event.Addresses)
			}
			lines = append(lines, l)
			if e.WebhookID != "addr" || e.EventType != internal.EventPlatformAddressActivity || e.MessageID == "" {
				t.Errorf("envelope %+v", e)
			}
		}
		bAddr, _ := address.FormatBech32("local", uAddrB[:])
		want := []string{
			// The transfer: 100 to B.
			"1 balance_change BaseTx sent=0 received=100 staked=0 change=100",
			// The delegation stakes 100 of B's.
			"2 balance_change AddPermissionlessDelegatorTx sent=0 received=0 staked=100 change=0",
			// Its end returns the stake and pays B the reward of 9.
			"4 balance_change RewardValidatorTx sent=0 received=109 staked=0 change=109",
			"4 reward_distribution RewardValidatorTx reward=9 DELEGATOR",
			// The export spends both (109) and gives 50 back: B's balance,
			// 7 + 100 + 109 = 216, falls to 157, below 200.
			"5 balance_change ExportTx sent=109 received=50 staked=0 change=-59",
			`5 balance_threshold ExportTx [{"address":"` + bAddr + `","balanceAfter":"157","balanceBefore":"216"}]`,
		}
		if !slices.Equal(lines, want) {
			t.Errorf("address events:\n%s\nwant\n%s", joinLines(lines), joinLines(want))
		}

		nodeEvents, _ := platformEvents(t, s, "node")
		lines = nil
		for _, e := range nodeEvents {
			l := fmt.Sprintf("%d %s %s %s staking=%v", e.Event.BlockHeight, e.Event.EventType, e.Event.NodeID, e.Event.StakeAmount,
				e.Event.StakingTxHash == sc.delegator.ID().String())
			for _, r := range e.Event.Rewards {
				l += fmt.Sprintf(" reward=%s %v", r.Amount, r.Addresses)
			}
			lines = append(lines, l)
		}
		node := ids.NodeID{2}.String()
		// Without a stored network, owners are in the fallback prefix.
		bCustom, _ := address.FormatBech32(constants.FallbackHRP, uAddrB[:])
		want = []string{
			"2 delegator_stake " + node + " 300 staking=false",
			"4 reward_distribution " + node + " 300 staking=true reward=9 [" + bCustom + "]",
		}
		if !slices.Equal(lines, want) {
			t.Errorf("validator events:\n%s\nwant\n%s", joinLines(lines), joinLines(want))
		}
		if late, _ := platformEvents(t, s, "late"); len(late) != 0 {
			t.Errorf("the late webhook got %d events", len(late))
		}

		// Re-applying writes nothing twice; one batch writes the same.
		mustApply(t, s, sc.blocks)
		if _, again := platformEvents(t, s, "addr"); !slices.EqualFunc(again, raw, sameEvent) {
			t.Errorf("re-applied: %d events, were %d", len(again), len(raw))
		}
		s2 := setup(dbtestFresh(t, dsn))
		mustApply(t, s2, sc.blocks)
		if _, one := platformEvents(t, s2, "addr"); !slices.EqualFunc(one, raw, sameEvent) {
			t.Errorf("one batch: %d events differ from the batches' %d", len(one), len(raw))
		}

		// A rederive in other batches, the outbox emptied first (as
		// delivered and pruned), writes the same events again.
		_, nodeRaw := platformEvents(t, s, "node")
		if _, err := s.(*sqlStore).db.Exec(ctx, "DELETE FROM webhook_outbox"); err != nil {
			t.Fatal(err)
		}
		if err := s.RequestRederive(ctx, internal.PChain); err != nil {
			t.Fatal(err)
		}
		if _, err := s.StartRederive(ctx, internal.PChain); err != nil {
			t.Fatal(err)
		}
		for _, part := range [][]*pchain.Block{sc.blocks[:2], sc.blocks[2:]} {
			batch, err := pchain.Batch(part)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.RederivePBlocks(ctx, batch, deriveP); err != nil {
				t.Fatal(err)
			}
		}
		if _, again := platformEvents(t, s, "addr"); !slices.EqualFunc(again, raw, sameEvent) {
			t.Errorf("rederived: %d address events, were %d", len(again), len(raw))
		}
		if _, again := platformEvents(t, s, "node"); !slices.EqualFunc(again, nodeRaw, sameEvent) {
			t.Errorf("rederived: %d validator events, were %d", len(again), len(nodeRaw))
		}
	})
}

func sameEvent(a, b WebhookEvent) bool {
	return a.MessageID == b.MessageID && a.BlockNumber == b.BlockNumber && a.Position == b.Position && string(a.Payload) == string(b.Payload)
}

func joinLines(l []string) string {
	out := ""
	for _, s := range l {
		out += "  " + s + "\n"
	}
	return out
}
