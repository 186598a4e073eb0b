package tests

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal/apikeys"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// platformHookEvent is a primary-network webhook event as the receiver
// reads it.
type platformHookEvent struct {
	WebhookID, EventType, MessageID string
	Event                           struct {
		EventType, TxHash, TxType, NodeID, SubnetID, StakingTxHash, StakeAmount string
		StartTimestamp, EndTimestamp                                            int64
		Committed                                                               bool
		Addresses                                                               []string
		BalanceChanges                                                          []struct{ Address, AssetID, Sent, Received, Staked, Change string }
		Rewards                                                                 []struct{ Amount, UTXOID string }
	}
}

// TestPlatformWebhooksDelivery runs avaindex on both stores at once (as
// processes of their own, with a real receiver on loopback each), with a
// primary_network_address_activity webhook on a fresh P-chain address, one
// on a fresh X-chain address, and a validator_activity webhook on a new
// validator's node id. It sends AVAX to both addresses and adds the
// validator and a short delegator on the shared network, then checks the
// events against the node: the balance changes against getBalance before
// and after, the stakes against getCurrentValidators, the delegator's
// reward_distribution against getRewardUTXOs; every signature verifies and
// nothing outside the watched keys comes.
func TestPlatformWebhooksDelivery(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	n := testnet.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	nodeP, nodeX := n.URL+"/ext/bc/P", n.URL+"/ext/bc/X"

	var pAddr, xAddr ids.ShortID
	_, _ = rand.Read(pAddr[:])
	_, _ = rand.Read(xAddr[:])
	bech := func(a ids.ShortID) string {
		s, err := address.FormatBech32(n.HRP, a[:])
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	vdrNode, err := testnet.RandomNodeID()
	if err != nil {
		t.Fatal(err)
	}

	insts := startPlatformHookInstances(t, ctx, n.URL, "hooks")
	for _, in := range insts {
		var h struct{ ID string }
		in.call(t, ctx, "POST", "/v1/webhooks", `{"eventType":"primary_network_address_activity","url":"`+in.rcv.srv.URL+`/p","chainId":"p-chain",
			"network":"local","metadata":{"keyType":"addresses","keys":["P-`+bech(pAddr)+`"],
			"subEvents":{"addressActivitySubEvents":["balance_change","reward_distribution"]}}}`, &h)
		in.hooks["p"] = h.ID
		in.call(t, ctx, "POST", "/v1/webhooks", `{"eventType":"primary_network_address_activity","url":"`+in.rcv.srv.URL+`/x","chainId":"x-chain",
			"network":"local","metadata":{"keyType":"addresses","keys":["X-`+bech(xAddr)+`"],
			"subEvents":{"addressActivitySubEvents":["balance_change"]}}}`, &h)
		in.hooks["x"] = h.ID
		in.call(t, ctx, "POST", "/v1/webhooks", `{"eventType":"validator_activity","url":"`+in.rcv.srv.URL+`/v","network":"local",
			"metadata":{"keyType":"nodeId","keys":["`+vdrNode.String()+`"],
			"subEvents":{"validatorActivitySubEvents":["validator_stake","delegator_stake","reward_distribution"]}}}`, &h)
		in.hooks["v"] = h.ID
		var secret struct{ Secret string }
		in.call(t, ctx, "GET", "/v1/webhooks:getSharedSecret", "", &secret)
		in.rcv.secret.Store(secret.Secret)
	}

	pBalance := func() *big.Int {
		res, rerr := rpc(t, nodeP, "platform.getBalance", map[string]any{"addresses": []string{"P-" + bech(pAddr)}})
		var r struct{ Balance string }
		if rerr != nil || json.Unmarshal(res, &r) != nil {
			t.Fatalf("platform.getBalance: %s %s", res, rerr)
		}
		v, _ := new(big.Int).SetString(r.Balance, 10)
		return v
	}
	xBalance := func() *big.Int {
		res, rerr := rpc(t, nodeX, "avm.getBalance", map[string]any{"address": "X-" + bech(xAddr), "assetID": "AVAX"})
		var r struct{ Balance string }
		if rerr != nil || json.Unmarshal(res, &r) != nil {
			t.Fatalf("avm.getBalance: %s %s", res, rerr)
		}
		v, _ := new(big.Int).SetString(r.Balance, 10)
		return v
	}
	pBefore, xBefore := pBalance(), xBalance()
	const pAmount, xAmount = 1_234_567, 7_654_321
	pTx, err := n.PBaseTx(ctx, pAddr, pAmount)
	if err != nil {
		t.Fatal(err)
	}
	xTx, err := n.XBaseTx(ctx, xAddr, xAmount)
	if err != nil {
		t.Fatal(err)
	}
	vdr, err := n.AddValidatorOn(ctx, vdrNode, 3*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	del, err := n.AddDelegator(ctx, vdr.NodeID, time.Now().Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	// The stakes as the node has them, while both are current.
	res, rerr := rpc(t, nodeP, "platform.getCurrentValidators", map[string]any{"nodeIDs": []string{vdr.NodeID.String()}})
	var cur struct {
		Validators []struct {
			TxID, Weight, StartTime, EndTime string
			Delegators                       []struct{ TxID, Weight, StartTime, EndTime string }
		}
	}
	if rerr != nil || json.Unmarshal(res, &cur) != nil || len(cur.Validators) != 1 {
		t.Fatalf("getCurrentValidators: %s %s", res, rerr)
	}
	nodeVdr := cur.Validators[0]
	di := slices.IndexFunc(nodeVdr.Delegators, func(d struct{ TxID, Weight, StartTime, EndTime string }) bool {
		return d.TxID == del.TxID.String()
	})
	if di < 0 {
		t.Fatalf("the node does not list the delegator %s: %s", del.TxID, res)
	}
	nodeDel := nodeVdr.Delegators[di]
	pAfter, xAfter := pBalance(), xBalance()

	// Every expected event, on both instances.
	type want struct{ hook, sub, tx string }
	wants := []want{{"p", "balance_change", pTx.String()}, {"x", "balance_change", xTx.String()},
		{"v", "validator_stake", vdr.TxID.String()}, {"v", "delegator_stake", del.TxID.String()},
		{"v", "reward_distribution", del.TxID.String()}}
	find := func(in *platformHookInstance, w want) *platformHookEvent {
		in.rcv.mu.Lock()
		defer in.rcv.mu.Unlock()
		for _, raw := range in.rcv.raw {
			var e platformHookEvent
			if json.Unmarshal(raw, &e) != nil || e.WebhookID != in.hooks[w.hook] || e.Event.EventType != w.sub {
				continue
			}
			if e.Event.TxHash == w.tx || (w.sub == "reward_distribution" && e.Event.StakingTxHash == w.tx) {
				return &e
			}
		}
		return nil
	}
	for _, in := range insts {
		for _, w := range wants {
			for find(in, w) == nil {
				if ctx.Err() != nil {
					t.Fatalf("%s: no %s event for %s on webhook %s", in.name, w.sub, w.tx, w.hook)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	rewardRes, rerr := rpc(t, nodeP, "platform.getRewardUTXOs", map[string]any{"txID": del.TxID.String(), "encoding": "hex"})
	var rewards struct{ UTXOs []string }
	if rerr != nil || json.Unmarshal(rewardRes, &rewards) != nil {
		t.Fatalf("getRewardUTXOs: %s %s", rewardRes, rerr)
	}
	var rewardAmounts []string
	for _, s := range rewards.UTXOs {
		b, err := formatting.Decode(formatting.Hex, s)
		if err != nil {
			t.Fatal(err)
		}
		var u avax.UTXO
		if _, err := txs.Codec.Unmarshal(b, &u); err != nil {
			t.Fatal(err)
		}
		rewardAmounts = append(rewardAmounts, fmt.Sprint(u.Out.(*secp256k1fx.TransferOutput).Amt))
	}

	t.Logf("the delegator's reward UTXOs pay %v", rewardAmounts)
	for _, in := range insts {
		check := func(ok bool, format string, args ...any) {
			t.Helper()
			if !ok {
				t.Errorf(in.name+": "+format, args...)
			}
		}
		// The balance changes: what the node's balance moved by.
		for _, c := range []struct {
			hook, addr    string
			before, after *big.Int
			amount        int
		}{{"p", bech(pAddr), pBefore, pAfter, pAmount}, {"x", bech(xAddr), xBefore, xAfter, xAmount}} {
			e := find(in, want{c.hook, "balance_change", map[string]string{"p": pTx.String(), "x": xTx.String()}[c.hook]})
			moved := new(big.Int).Sub(c.after, c.before)
			check(slices.Equal(e.Event.Addresses, []string{c.addr}) && len(e.Event.BalanceChanges) == 1 &&
				e.Event.BalanceChanges[0].Change == moved.String() && e.Event.BalanceChanges[0].Received == fmt.Sprint(c.amount) &&
				e.Event.BalanceChanges[0].Sent == "0" && e.Event.BalanceChanges[0].Address == c.addr,
				"%s balance_change %+v; the node's balance moved by %s", c.hook, e.Event, moved)
		}
		// The stakes: the node's weights and times.
		v := find(in, want{"v", "validator_stake", vdr.TxID.String()})
		check(v.Event.NodeID == vdr.NodeID.String() && v.Event.StakeAmount == nodeVdr.Weight &&
			fmt.Sprint(v.Event.StartTimestamp) == nodeVdr.StartTime && fmt.Sprint(v.Event.EndTimestamp) == nodeVdr.EndTime,
			"validator_stake %+v; the node has %+v", v.Event, nodeVdr)
		d := find(in, want{"v", "delegator_stake", del.TxID.String()})
		check(d.Event.NodeID == vdr.NodeID.String() && d.Event.StakeAmount == nodeDel.Weight &&
			fmt.Sprint(d.Event.StartTimestamp) == nodeDel.StartTime && fmt.Sprint(d.Event.EndTimestamp) == nodeDel.EndTime,
			"delegator_stake %+v; the node has %+v", d.Event, nodeDel)
		// The delegator's end: its reward UTXOs as the node pays them.
		r := find(in, want{"v", "reward_distribution", del.TxID.String()})
		var got []string
		for _, x := range r.Event.Rewards {
			got = append(got, x.Amount)
		}
		check(r.Event.NodeID == vdr.NodeID.String() && r.Event.StakeAmount == nodeDel.Weight && slices.Equal(got, rewardAmounts),
			"reward_distribution %+v; the node's reward UTXOs pay %v", r.Event, rewardAmounts)

		// Nothing else: every event is of one of the webhooks, about its
		// key, signed (the receiver checks).
		in.rcv.mu.Lock()
		seen := map[string]bool{}
		for _, raw := range in.rcv.raw {
			var e platformHookEvent
			if err := json.Unmarshal(raw, &e); err != nil {
				check(false, "undecodable %s", raw)
				continue
			}
			switch e.WebhookID {
			case in.hooks["p"]:
				check(slices.Equal(e.Event.Addresses, []string{bech(pAddr)}), "p event %s", raw)
			case in.hooks["x"]:
				check(slices.Equal(e.Event.Addresses, []string{bech(xAddr)}), "x event %s", raw)
			case in.hooks["v"]:
				check(e.Event.NodeID == vdr.NodeID.String(), "validator event %s", raw)
			default:
				check(false, "event of no webhook: %s", raw)
			}
			seen[e.MessageID] = true
		}
		for _, b := range in.rcv.bad {
			check(false, "%s", b)
		}
		in.rcv.mu.Unlock()
		t.Logf("%s: %d events, %d deliveries", in.name, len(seen), len(in.rcv.raw))
	}
}

// platformHookInstance is avaindex as a child process on one store, with
// an API key of its own and a receiver of its webhooks on loopback.
type platformHookInstance struct {
	name, base, key string
	rcv             *hookReceiver
	hooks           map[string]string // the test's name for a webhook → its id
}

// startPlatformHookInstances starts an instance on each store, loopback
// receivers allowed and retries quick, with a standard key named keyName.
func startPlatformHookInstances(t *testing.T, ctx context.Context, nodeURL, keyName string) []*platformHookInstance {
	t.Helper()
	var insts []*platformHookInstance
	for _, b := range dbtest.Backends() {
		dsn := b.DSN(t)
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		key, err := apikeys.Create(ctx, st, keyName, "standard", func(string) bool { return true }, time.Now())
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		in := &platformHookInstance{name: b.Name, key: key, rcv: newHookReceiver(t), hooks: map[string]string{}}
		in.rcv.platform = true
		in.base = childService(t, nodeURL, dsn, "--webhook-allow-private-network", "127.0.0.1/32", "--webhook-timeout", "2s",
			"--webhook-max-backoff", "200ms").base
		insts = append(insts, in)
	}
	return insts
}

// call sends a Data API request with the instance's key and decodes its
// 2xx answer into v; any other answer fails the test.
func (in *platformHookInstance) call(t *testing.T, ctx context.Context, method, path, body string, v any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, method, in.base+path, strings.NewReader(body))
	req.Header.Set("x-data-api-key", in.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s: %s %s: %d %s", in.name, method, path, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}
