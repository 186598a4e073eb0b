package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	pblock "github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"

	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestL1FeeWebhooksDelivery runs avaindex on both stores (processes of
// their own, a real receiver each) with a validator_activity webhook on a
// fresh node id for the L1 fee's sub-events, then converts a new subnet to
// an L1 whose one validator, that node, has a deposit of a few dozen
// nAVAX, which the local network's fee (1 nAVAX a second) runs out in
// under a minute. A P-chain tx some 22 s later makes a block whose time
// puts the balance below the threshold. The events' balances are checked against
// getL1Validator's, polled at every height meanwhile: the threshold event
// at the first block whose balance is below it, the disabled event at the
// block that leaves the validator no balance, each with the node's balance
// at the block before.
func TestL1FeeWebhooksDelivery(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	n := testnet.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	const deposit, threshold = 45, 30

	node, err := testnet.RandomNodeID()
	if err != nil {
		t.Fatal(err)
	}
	sk, err := localsigner.New()
	if err != nil {
		t.Fatal(err)
	}
	pop, err := signer.NewProofOfPossession(sk)
	if err != nil {
		t.Fatal(err)
	}

	insts := startPlatformHookInstances(t, ctx, n.URL, "l1hooks")
	for _, in := range insts {
		var h struct{ ID string }
		in.call(t, ctx, "POST", "/v1/webhooks", `{"eventType":"validator_activity","url":"`+in.rcv.srv.URL+`/v","network":"local",
			"metadata":{"keyType":"nodeId","keys":["`+node.String()+`"],
			"subEvents":{"validatorActivitySubEvents":["l1_validator_disabled","l1_validator_balance_threshold"]},
			"l1ValidatorFeeBalanceThreshold":"`+fmt.Sprint(threshold)+`"}}`, &h)
		in.hooks["v"] = h.ID
		var secret struct{ Secret string }
		in.call(t, ctx, "GET", "/v1/webhooks:getSharedSecret", "", &secret)
		in.rcv.secret.Store(secret.Secret)
	}

	l1, err := n.CreateL1With(ctx, []testnet.L1ValidatorSpec{{NodeID: node, PoP: pop, Weight: 100, Balance: deposit}})
	if err != nil {
		t.Fatal(err)
	}
	vid := l1.SubnetID.Append(0)
	// The node's balance at each height from the conversion on.
	var (
		mu       sync.Mutex
		balances = map[uint64]uint64{}
	)
	pc := platformvm.NewClient(n.URL)
	pollCtx, stopPoll := context.WithCancel(ctx)
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		for pollCtx.Err() == nil {
			if v, h, err := pc.GetL1Validator(pollCtx, vid); err == nil {
				mu.Lock()
				balances[h] = v.Balance
				mu.Unlock()
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	// A block whose time puts the balance below the threshold (about 23
	// left), well before it runs out.
	time.Sleep((deposit - threshold + 7) * time.Second)
	if _, err := n.PBaseTx(ctx, ids.GenerateTestShortID(), 1); err != nil {
		t.Fatal(err)
	}
	// The node deactivates the validator with a block at the time its
	// balance runs out.
	for {
		v, _, err := pc.GetL1Validator(ctx, vid)
		if err != nil {
			t.Fatal(err)
		}
		if v.Balance == 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the validator's balance never ran out")
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	stopPoll()
	<-polled
	mu.Lock()
	t.Logf("the node's balances by height: %v", balances)
	fillSameTimeBalances(t, ctx, pc, balances)
	mu.Unlock()

	type l1Event struct {
		WebhookID, EventType, MessageID string
		Event                           struct {
			EventType, TxHash, NodeID, SubnetID, ValidationID string
			BalanceBefore, BalanceAfter, BalanceThreshold     string
			BlockHeight                                       uint64
		}
	}
	find := func(in *platformHookInstance, sub string) *l1Event {
		in.rcv.mu.Lock()
		defer in.rcv.mu.Unlock()
		for _, raw := range in.rcv.raw {
			var e l1Event
			if json.Unmarshal(raw, &e) == nil && e.WebhookID == in.hooks["v"] && e.Event.EventType == sub {
				return &e
			}
		}
		return nil
	}
	for _, in := range insts {
		for _, sub := range []string{"l1_validator_balance_threshold", "l1_validator_disabled"} {
			for find(in, sub) == nil {
				if ctx.Err() != nil {
					t.Fatalf("%s: no %s event", in.name, sub)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, in := range insts {
		check := func(ok bool, format string, args ...any) {
			t.Helper()
			if !ok {
				t.Errorf(in.name+": "+format, args...)
			}
		}
		// Each event's balances are the node's at its block and the one
		// before, which the poll saw.
		atBlock := func(e *l1Event) {
			t.Helper()
			h := e.Event.BlockHeight
			after, okA := balances[h]
			before, okB := balances[h-1]
			check(okA && okB, "%s at height %d: the poll missed the node's balance there or before", e.Event.EventType, h)
			check(e.Event.BalanceAfter == fmt.Sprint(after) && e.Event.BalanceBefore == fmt.Sprint(before),
				"%s at height %d: balance %s -> %s; the node's %d -> %d", e.Event.EventType, h, e.Event.BalanceBefore, e.Event.BalanceAfter, before, after)
			check(e.Event.NodeID == node.String() && e.Event.SubnetID == l1.SubnetID.String() && e.Event.ValidationID == vid.String() &&
				e.Event.TxHash == "", "%s: %+v", e.Event.EventType, e.Event)
		}
		th := find(in, "l1_validator_balance_threshold")
		atBlock(th)
		check(th.Event.BalanceThreshold == fmt.Sprint(threshold), "threshold %s", th.Event.BalanceThreshold)
		// The first height whose balance is below the threshold.
		first := uint64(0)
		for h, b := range balances {
			if b < threshold && (first == 0 || h < first) {
				first = h
			}
		}
		check(th.Event.BlockHeight == first, "threshold event at height %d; the node's balance first fell below %d at %d", th.Event.BlockHeight, threshold, first)
		dis := find(in, "l1_validator_disabled")
		atBlock(dis)
		check(dis.Event.BalanceAfter == "0" && dis.Event.BlockHeight > th.Event.BlockHeight, "disabled %+v", dis.Event)

		// Nothing else, once each (the receiver checks the signatures).
		in.rcv.mu.Lock()
		seen := map[string]bool{}
		for _, raw := range in.rcv.raw {
			var e l1Event
			if err := json.Unmarshal(raw, &e); err != nil || e.WebhookID != in.hooks["v"] || e.Event.NodeID != node.String() {
				check(false, "unexpected event %s", raw)
			}
			seen[e.MessageID] = true
		}
		check(len(seen) == 2, "%d distinct events, want 2", len(seen))
		for _, b := range in.rcv.bad {
			check(false, "%s", b)
		}
		in.rcv.mu.Unlock()
	}
}

// fillSameTimeBalances gives a height the poll missed (blocks can follow
// each other faster than it, more so on a loaded machine) the balance of
// a polled neighbour whose block has the same time: the continuous fee is
// charged per second of chain time, and no block of the test changes the
// validator's balance otherwise. Heights whose time matches neither
// neighbour stay missing.
func fillSameTimeBalances(t *testing.T, ctx context.Context, pc *platformvm.Client, balances map[uint64]uint64) {
	t.Helper()
	blockTime := func(h uint64) time.Time {
		raw, err := pc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatalf("block %d: %v", h, err)
		}
		blk, err := pblock.Parse(pblock.Codec, raw)
		if err != nil {
			t.Fatalf("block %d: %v", h, err)
		}
		b, ok := blk.(pblock.BanffBlock)
		if !ok {
			return time.Time{}
		}
		return b.Timestamp()
	}
	hs := slices.Sorted(maps.Keys(balances))
	for i := 0; i+1 < len(hs); i++ {
		lo, hi := hs[i], hs[i+1]
		if hi-lo < 2 || hi-lo > 64 {
			continue
		}
		loTime, hiTime := blockTime(lo), blockTime(hi)
		for h := lo + 1; h < hi; h++ {
			switch ht := blockTime(h); {
			case ht.IsZero():
			case ht.Equal(loTime):
				balances[h] = balances[lo]
			case ht.Equal(hiTime):
				balances[h] = balances[hi]
			}
		}
	}
}
