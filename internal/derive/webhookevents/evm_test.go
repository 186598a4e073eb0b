package webhookevents

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal"
)

const testChain = 43112

func addr(name string) common.Address { return common.BytesToAddress(crypto.Keccak256([]byte(name))) }

func hash(parts ...any) common.Hash { return crypto.Keccak256Hash(fmt.Append(nil, parts...)) }

var token = addr("erc20")

// fakeOutbox is EVMWriter over fixed watches, keeping the events written.
type fakeOutbox struct {
	watches *internal.AddressWatches
	events  []internal.WebhookEvent
}

func (f *fakeOutbox) ChainID() uint64 { return testChain }

func (f *fakeOutbox) AddressWatches(context.Context) (*internal.AddressWatches, error) {
	return f.watches, nil
}

func (f *fakeOutbox) WriteWebhookEvents(_ context.Context, events []internal.WebhookEvent) error {
	f.events = append(f.events, events...)
	return nil
}

func TestEVMMatches(t *testing.T) {
	alice, bob, carol, dave := addr("alice"), addr("bob"), addr("carol"), addr("dave")
	ts := time.Unix(1_700_000_000, 0)
	transferSig := hash("Transfer")
	hooks := []internal.AddressWatch{
		{ID: "plain"},
		{ID: "internal", InternalTxs: true},
		{ID: "late", Created: ts.Unix() + 1},
		{ID: "signed", Logs: true, Signatures: map[common.Hash]bool{transferSig: true}},
	}
	watch := func(a common.Address, hs ...int32) (internal.WatchedAddress, []int32) {
		return internal.WatchedAddress{ChainID: testChain, Address: a}, hs
	}
	byAddr := map[internal.WatchedAddress][]int32{}
	for _, w := range []struct {
		a  common.Address
		hs []int32
	}{{alice, []int32{0, 1, 2}}, {carol, []int32{0, 1}}, {dave, []int32{3}}} {
		k, hs := watch(w.a, w.hs...)
		byAddr[k] = hs
	}
	// Another chain's watch of bob matches nothing here.
	byAddr[internal.WatchedAddress{ChainID: 1, Address: bob}] = []int32{0}

	to := func(a common.Address) *common.Address { return &a }
	b := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: 9, Hash: hash("block"), Timestamp: ts}}
	b.Txs = []internal.EVMTx{
		// 0: alice sends to bob, and again to herself: one event per webhook.
		{Hash: hash("tx", 0), Index: 0, From: alice, To: to(alice), Value: big.NewInt(1)},
		// 1: bob's call moves value to carol internally.
		{Hash: hash("tx", 1), Index: 1, From: bob, To: to(token), Value: big.NewInt(0)},
		// 2: bob sends tokens to dave, and the tx emits Transfer.
		{Hash: hash("tx", 2), Index: 2, From: bob, To: to(token), Value: big.NewInt(0)},
		// 3: bob to bob: nobody here watches bob.
		{Hash: hash("tx", 3), Index: 3, From: bob, To: to(bob), Value: big.NewInt(0)},
	}
	b.InternalTxs = []internal.EVMInternalTx{{TxHash: hash("tx", 1), From: token, To: carol, Value: big.NewInt(3), CallType: "CALL"}}
	b.Transfers = []internal.EVMTransfer{{TxHash: hash("tx", 2), Token: token, Type: internal.ERC20, From: bob, To: dave,
		Value: big.NewInt(5), LogIndex: 0}}
	b.Logs = []internal.EVMLog{
		{TxIndex: 2, Index: 0, Address: token, Topics: []common.Hash{transferSig, hash("from"), hash("to")}},
		{TxIndex: 2, Index: 1, Address: token, Topics: []common.Hash{hash("Other")}},
	}

	w := &fakeOutbox{watches: internal.NewAddressWatches(hooks, byAddr)}
	if err := EVM(context.Background(), w, []*internal.EVMBlockData{b}); err != nil {
		t.Fatal(err)
	}
	byTx := slices.Clone(w.events)
	slices.SortStableFunc(byTx, func(a, b internal.WebhookEvent) int { return int(a.Position - b.Position) })
	var got []string
	for _, e := range byTx {
		got = append(got, fmt.Sprintf("%s@%d/%d", e.WebhookID, e.Block, e.Position))
	}
	// tx 0: plain and internal (late was created after the block); tx 1:
	// only the webhook that asks for internal txs; tx 2: the signed one,
	// as the tx emitted Transfer.
	want := []string{"plain@9/0", "internal@9/0", "internal@9/1", "signed@9/2"}
	if !slices.Equal(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}

	// The signed webhook's payload: its logs of the signatures it asked
	// for, the transfer with its value.
	var p struct {
		Event struct {
			Logs        []struct{ Topic0 string }
			Transaction struct {
				TxHash         string
				ERC20Transfers []struct{ To, Value string }
			}
		}
		EventType, MessageID, WebhookID string
	}
	signed := slices.IndexFunc(w.events, func(e internal.WebhookEvent) bool { return e.WebhookID == "signed" })
	if err := json.Unmarshal(w.events[signed].Payload, &p); err != nil {
		t.Fatal(err)
	}
	if p.EventType != internal.EventAddressActivity || p.WebhookID != "signed" || p.MessageID != w.events[signed].MessageID ||
		p.Event.Transaction.TxHash != hash("tx", 2).Hex() || len(p.Event.Logs) != 1 || p.Event.Logs[0].Topic0 != transferSig.Hex() ||
		len(p.Event.Transaction.ERC20Transfers) != 1 || p.Event.Transaction.ERC20Transfers[0].To != dave.Hex() ||
		p.Event.Transaction.ERC20Transfers[0].Value != "5" {
		t.Errorf("signed webhook's payload: %s", w.events[signed].Payload)
	}

	// Derived again, the events are the same, ids included.
	again := &fakeOutbox{watches: w.watches}
	if err := EVM(context.Background(), again, []*internal.EVMBlockData{b}); err != nil {
		t.Fatal(err)
	}
	for i := range w.events {
		if again.events[i].MessageID != w.events[i].MessageID || string(again.events[i].Payload) != string(w.events[i].Payload) {
			t.Errorf("event %d derived again differs", i)
		}
	}
	if w.events[0].MessageID == w.events[1].MessageID {
		t.Errorf("two webhooks' events of one tx share the id %s", w.events[0].MessageID)
	}
}

func TestEVMNoWatches(t *testing.T) {
	w := &fakeOutbox{watches: internal.NewAddressWatches(nil, nil)}
	b := &internal.EVMBlockData{Txs: []internal.EVMTx{{From: addr("alice")}}}
	if err := EVM(context.Background(), w, []*internal.EVMBlockData{b}); err != nil || len(w.events) != 0 {
		t.Errorf("no watches: events %v, %v", w.events, err)
	}
}
