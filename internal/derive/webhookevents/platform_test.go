package webhookevents

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
)

// fakePlatform is PlatformWriter over fixed watches and balances.
type fakePlatform struct {
	network *internal.Network
	watches *internal.PlatformWatches
	spent   map[ids.ID][][]byte
	unspent map[ids.ShortID]*big.Int
	events  []internal.WebhookEvent
}

func (f *fakePlatform) Network(context.Context) (*internal.Network, bool, error) {
	return f.network, f.network != nil, nil
}

func (f *fakePlatform) PlatformWatches(context.Context) (*internal.PlatformWatches, error) {
	return f.watches, nil
}

func (f *fakePlatform) SpentOwners() map[ids.ID][][]byte { return f.spent }

func (f *fakePlatform) UnspentAVAX(_ context.Context, a ids.ShortID, _ ids.ID) (*big.Int, error) {
	return new(big.Int).Set(f.unspent[a]), nil
}

func (f *fakePlatform) WriteWebhookEvents(_ context.Context, events []internal.WebhookEvent) error {
	f.events = append(f.events, events...)
	return nil
}

// TestXAddressEvents follows one watched address through an X-chain tx
// that spends 60 nAVAX of it and pays 10 back: a balance change of -50,
// and a balance falling from 80 to 30, across a threshold of 50.
func TestXAddressEvents(t *testing.T) {
	avax, alice, bob := ids.ID{0xaa}, ids.ShortID{0xa1}, ids.ShortID{0xb0}
	key, err := address.FormatBech32("local", alice[:])
	if err != nil {
		t.Fatal(err)
	}
	n := &internal.Network{Name: "local", HRP: "local", XChainID: ids.ID{0x58}, AVAXAssetID: avax}
	watch := internal.PlatformWatch{ID: "w", EventType: internal.EventPlatformAddressActivity, Chain: internal.XChain,
		SubEvents:   map[string]bool{internal.SubBalanceChange: true, internal.SubBalanceThreshold: true},
		BalanceType: "unlockedUnstaked", Threshold: big.NewInt(50), Keys: map[ids.ShortID]string{alice: key}}
	ws := &internal.PlatformWatches{Hooks: []internal.PlatformWatch{watch},
		ByAddr: map[internal.Chain]map[ids.ShortID][]int32{internal.XChain: {alice: {0}}}}
	spentID := ids.ID{0x51}
	out := func(to ids.ShortID, amount uint64) *internal.UTXOOutput {
		return &internal.UTXOOutput{Kind: "regular", AssetID: avax, Amount: amount, Owners: secp256k1fx.OutputOwners{Addrs: []ids.ShortID{to}}}
	}
	ts := time.Unix(1_700_000_000, 0)
	blocks := []*internal.XBlockData{{Height: 4, ID: ids.ID{0x4b}, Timestamp: ts, Txs: []internal.XTxData{
		{XTx: internal.XTx{ID: ids.ID{0x0a}, Type: "BaseTx"}, UTXOs: &internal.UTXOEffects{}},
		{XTx: internal.XTx{ID: ids.ID{0x7a}, Type: "BaseTx"}, UTXOs: &internal.UTXOEffects{
			Consumed: []internal.UTXOInput{{ID: spentID, AssetID: avax, Amount: 60}},
			Produced: []*internal.UTXOOutput{out(bob, 49), out(alice, 10)},
		}},
	}}}
	f := &fakePlatform{network: n, watches: ws, spent: map[ids.ID][][]byte{spentID: {alice[:]}},
		unspent: map[ids.ShortID]*big.Int{alice: big.NewInt(30)}}
	if err := X(context.Background(), f, blocks); err != nil {
		t.Fatal(err)
	}
	if len(f.events) != 2 {
		t.Fatalf("%d events, want a balance change and a threshold crossing: %+v", len(f.events), f.events)
	}
	// The tx is the block's second: positions 16 and 17.
	if f.events[0].Position != 16 || f.events[1].Position != 17 || f.events[0].Block != 4 {
		t.Errorf("positions %d, %d at block %d, want 16 and 17 at 4", f.events[0].Position, f.events[1].Position, f.events[0].Block)
	}
	var change struct {
		Event struct {
			Addresses      []string
			BalanceChanges []struct{ Address, Change, Received, Sent string }
			ChainID        string
			EventType      string
		}
	}
	if err := json.Unmarshal(f.events[0].Payload, &change); err != nil {
		t.Fatal(err)
	}
	ev := change.Event
	if ev.EventType != internal.SubBalanceChange || ev.ChainID != n.XChainID.String() || len(ev.BalanceChanges) != 1 ||
		ev.BalanceChanges[0].Address != key || ev.BalanceChanges[0].Change != "-50" || ev.BalanceChanges[0].Sent != "60" ||
		ev.BalanceChanges[0].Received != "10" {
		t.Errorf("balance change: %s", f.events[0].Payload)
	}
	var threshold struct {
		Event struct {
			Addresses []struct{ Address, BalanceBefore, BalanceAfter string }
		}
	}
	if err := json.Unmarshal(f.events[1].Payload, &threshold); err != nil {
		t.Fatal(err)
	}
	if a := threshold.Event.Addresses; len(a) != 1 || a[0].BalanceBefore != "80" || a[0].BalanceAfter != "30" {
		t.Errorf("threshold crossing: %s", f.events[1].Payload)
	}

	// Without a watched address on the X-chain, nothing is read or raised.
	none := &fakePlatform{watches: &internal.PlatformWatches{}}
	if err := X(context.Background(), none, blocks); err != nil || len(none.events) != 0 {
		t.Errorf("no watches: %v, %v", none.events, err)
	}
}
