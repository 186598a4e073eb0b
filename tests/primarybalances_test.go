package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
	"github.com/avaindex/avaindex/internal/utxo"
)

// balanceBody is getBalancesByAddresses' body on any chain.
type balanceBody struct {
	Balances struct {
		api.PChainBalance
		Locked   []api.AggregatedAssetAmount `json:"locked"`
		Unlocked []api.AggregatedAssetAmount `json:"unlocked"`
	} `json:"balances"`
	ChainInfo api.ChainInfo `json:"chainInfo"`
}

// lineSums totals lines by asset (and by sharing chain for shared ones).
func lineSums(lines ...[]api.AggregatedAssetAmount) map[string]uint64 {
	out := map[string]uint64{}
	for _, l := range lines {
		for _, a := range l {
			var v uint64
			fmt.Sscan(a.Amount, &v)
			out[a.AssetID] += v
		}
	}
	return out
}

func sharedSums(lines ...[]api.SharedAssetBalance) map[string]uint64 {
	out := map[string]uint64{}
	for _, l := range lines {
		for _, a := range l {
			var v uint64
			fmt.Sscan(a.Amount, &v)
			out[a.SharedWithChainID+"/"+a.AssetID] += v
		}
	}
	return out
}

// TestPrimaryNetworkBalancesMatchNode compares getBalancesByAddresses on
// every chain, on both stores, with the node: the P-chain's unlocked and
// locked balances with platform.getBalance and its staked one with
// platform.getStake, the X-chain's with avm.getAllBalances (partial
// UTXOs included) and getUTXOs, and every chain's atomic memory with
// getUTXOs from each other chain; for the scenario's key, and for two
// fresh keys that own UTXOs alone, together and locked. A blockTimestamp
// after the lock has run out, or before the keys had anything, moves
// their balances as worked out here. The scenario's key is one of the two
// owners of a 2-of-2 output on the P- and X-chains, which the node counts
// in its balance though the key alone cannot spend it.
func TestPrimaryNetworkBalancesMatchNode(t *testing.T) {
	n, issued := issuedNetwork(t)
	k1, k2 := issueUTXOExtras(t, n, issued)
	issueCoOwnedOutputs(t, n)
	doc := openapitest.Default(t)
	bech := func(a ids.ShortID) string { return bech32Of(t, n, a)[0] }
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--network-alias", "testnet") + "/v1/networks/testnet/blockchains/"
		balances := func(chain, query string) balanceBody {
			t.Helper()
			var b balanceBody
			u := base + chain + "/balances?" + query
			status, body, _ := get(t, u)
			// The schema's chain ids are Fuji's and mainnet's.
			if err := doc.CheckResponse("GET", "/v1/networks/{network}/blockchains/{blockchainId}/balances", status, []byte(fujiIDs(n).Replace(string(body)))); err != nil {
				t.Errorf("GET %s: %v", u, err)
			}
			if status != 200 || json.Unmarshal(body, &b) != nil || b.ChainInfo.ChainName != chain {
				t.Fatalf("GET %s = %d %s", u, status, body)
			}
			return b
		}
		// The owners of the current stakers' stake, for staked balances.
		var stakers []ids.ShortID
		for _, s := range newNodeLists(t, n).stakes {
			for _, a := range ownersOf(s.utxo.Out).Addrs {
				if !slices.Contains(stakers, a) && len(stakers) < api.MaxUTXOAddresses {
					stakers = append(stakers, a)
				}
			}
		}
		if len(stakers) == 0 {
			t.Fatal("no current staker's stake to compare")
		}
		var problems []string
		for attempt := 0; attempt < 3; attempt++ {
			waitAllIndexed(t, n, dsn)
			problems = comparePrimaryBalances(t, n, balances, []ids.ShortID{n.Addr}, bech)
			problems = append(problems, comparePrimaryBalances(t, n, balances, []ids.ShortID{k1, k2}, bech)...)
			problems = append(problems, comparePrimaryBalances(t, n, balances, stakers, bech)...)
			if len(problems) == 0 {
				break
			}
		}
		for _, p := range problems {
			t.Error(p)
		}

		// In two hours k1's locked UTXO (an hour's locktime) is unlocked;
		// at time 1 the fresh keys had nothing.
		both := "addresses=" + bech(k1) + "," + bech(k2)
		nowB := balances("p-chain", both)
		later := balances("p-chain", both+fmt.Sprintf("&blockTimestamp=%d", time.Now().Add(2*time.Hour).Unix()))
		avax := n.AVAXAssetID.String()
		if l := lineSums(nowB.Balances.LockedPlatform)[avax]; l == 0 || lineSums(later.Balances.LockedPlatform)[avax] != 0 ||
			lineSums(later.Balances.UnlockedUnstaked)[avax] != lineSums(nowB.Balances.UnlockedUnstaked)[avax]+l {
			t.Errorf("in two hours: unlocked %v locked %v; now unlocked %v locked %v", later.Balances.UnlockedUnstaked,
				later.Balances.LockedPlatform, nowB.Balances.UnlockedUnstaked, nowB.Balances.LockedPlatform)
		}
		for _, chain := range []string{"p-chain", "x-chain", "c-chain"} {
			old := balances(chain, both+"&blockTimestamp=1")
			if s := jsonOf(t, old.Balances); strings.Contains(s, `"amount"`) {
				t.Errorf("%s at time 1 = %s, want nothing", chain, s)
			}
		}
		// One address over api.MaxBalanceAddresses.
		many := make([]ids.ShortID, api.MaxBalanceAddresses+1)
		for i := range many {
			many[i] = ids.ShortID{byte(i), byte(i >> 8), 0x5a}
		}
		for _, tc := range []struct{ query, param string }{
			{"", "addresses"},
			{"addresses=nope", "addresses"},
			{"addresses=" + strings.Join(bech32Of(t, n, many...), ","), "addresses"},
			{both + "&blockTimestamp=-5", "blockTimestamp"},
			{both + "&pageSize=5", "pageSize"},
		} {
			status, body, _ := get(t, base+"p-chain/balances?"+tc.query)
			if status != 400 || !strings.Contains(string(body), tc.param) {
				t.Errorf("balances?%s = %d %s; want 400 naming %s", tc.query, status, body, tc.param)
			}
		}
	})
}

// issueCoOwnedOutputs sends, on the P- and X-chains, 1 AVAX that the
// scenario's key and a fresh key own with threshold 2.
func issueCoOwnedOutputs(t *testing.T, n *testnet.Network) {
	t.Helper()
	k, err := testnet.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	addrs := []ids.ShortID{n.Addr, k.Address()}
	utils.Sort(addrs)
	outs := []*avax.TransferableOutput{{Asset: avax.Asset{ID: n.AVAXAssetID}, Out: &secp256k1fx.TransferOutput{
		Amt: units.Avax, OutputOwners: secp256k1fx.OutputOwners{Threshold: 2, Addrs: addrs}}}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	err = n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		if _, err := w.P().IssueBaseTx(outs); err != nil {
			return fmt.Errorf("P BaseTx: %w", err)
		}
		if _, err := w.X().IssueBaseTx(outs); err != nil {
			return fmt.Errorf("X BaseTx: %w", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// comparePrimaryBalances compares the balances of addrs on each chain with the
// node's answers and returns what differs.
func comparePrimaryBalances(t *testing.T, n *testnet.Network, get func(chain, query string) balanceBody, addrs []ids.ShortID, bech func(ids.ShortID) string) []string {
	t.Helper()
	ctx := context.Background()
	var problems []string
	differ := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var names []string
	for _, a := range addrs {
		names = append(names, bech(a))
	}
	query := "addresses=" + strings.Join(names, ",")
	avax := n.AVAXAssetID.String()
	pc := platformvm.NewClient(n.URL)
	l := newNodeLists(t, n)

	// The P-chain.
	pb := get("p-chain", query)
	bal, err := pc.GetBalance(ctx, addrs)
	if err != nil {
		t.Fatal(err)
	}
	if got := lineSums(pb.Balances.UnlockedUnstaked)[avax]; got != uint64(bal.Unlocked) {
		differ("%v: p-chain unlockedUnstaked %d, getBalance unlocked %d", names, got, bal.Unlocked)
	}
	if got := lineSums(pb.Balances.LockedStakeable)[avax]; got != uint64(bal.LockedStakeable) {
		differ("%v: p-chain lockedStakeable %d, getBalance %d", names, got, bal.LockedStakeable)
	}
	if got := lineSums(pb.Balances.LockedPlatform)[avax]; got != uint64(bal.LockedNotStakeable) {
		differ("%v: p-chain lockedPlatform %d, getBalance lockedNotStakeable %d", names, got, bal.LockedNotStakeable)
	}
	stake, _, err := pc.GetStake(ctx, addrs, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := lineSums(pb.Balances.UnlockedStaked, pb.Balances.LockedStaked, pb.Balances.PendingStaked)[avax]; got != stake[n.AVAXAssetID] {
		differ("%v: p-chain staked %d, getStake %d", names, got, stake[n.AVAXAssetID])
	}
	if stake[n.AVAXAssetID] > 0 && (len(pb.Balances.UnlockedStaked)+len(pb.Balances.LockedStaked) == 0 || lineSums(pb.Balances.UnlockedUnstaked)[avax] != uint64(bal.Unlocked)) {
		differ("%v: staked %v / %v, unlocked %v", names, pb.Balances.UnlockedStaked, pb.Balances.LockedStaked, pb.Balances.UnlockedUnstaked)
	}

	// Atomic memory of each chain, from each other chain.
	shared := map[internal.Chain][2][]api.SharedAssetBalance{}
	shared[internal.PChain] = [2][]api.SharedAssetBalance{pb.Balances.AtomicMemoryUnlocked, pb.Balances.AtomicMemoryLocked}
	xb := get("x-chain", query)
	shared[internal.XChain] = [2][]api.SharedAssetBalance{xb.Balances.AtomicMemoryUnlocked, xb.Balances.AtomicMemoryLocked}
	cb := get("c-chain", query)
	shared[internal.CChain] = [2][]api.SharedAssetBalance{cb.Balances.AtomicMemoryUnlocked, cb.Balances.AtomicMemoryLocked}
	for chain, got := range shared {
		want := map[string]uint64{}
		for _, src := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
			if src == chain {
				continue
			}
			for _, u := range l.utxos(chain, src, addrs) {
				want[l.ids[src].String()+"/"+u.AssetID().String()] += utxo.Describe(u).Amount
			}
		}
		if g := sharedSums(got[0], got[1]); fmt.Sprint(g) != fmt.Sprint(want) {
			differ("%v: %s-chain atomic memory %v, getUTXOs %v", names, chain, g, want)
		}
	}

	// The X-chain: every UTXO the node lists (getUTXOs), and for one
	// address avm.getAllBalances with partial UTXOs.
	want := map[string]uint64{}
	for _, u := range l.utxos(internal.XChain, "", addrs) {
		if info := utxo.Describe(u); !info.Mint {
			want[u.AssetID().String()] += info.Amount
		}
	}
	for k, v := range want {
		if v == 0 {
			delete(want, k)
		}
	}
	if g := lineSums(xb.Balances.Locked, xb.Balances.Unlocked); fmt.Sprint(g) != fmt.Sprint(want) {
		differ("%v: x-chain locked+unlocked %v, getUTXOs %v", names, g, want)
	}
	if len(addrs) == 1 {
		all, err := avm.NewClient(n.URL, "X").GetAllBalances(ctx, addrs[0], true)
		if err != nil {
			t.Fatal(err)
		}
		node := map[string]uint64{}
		for _, b := range all {
			if b.Balance > 0 {
				node[b.AssetID] += uint64(b.Balance)
			}
		}
		// getAllBalances names AVAX by its alias.
		if v, ok := node["AVAX"]; ok {
			delete(node, "AVAX")
			node[avax] += v
		}
		if g := lineSums(xb.Balances.Locked, xb.Balances.Unlocked); fmt.Sprint(g) != fmt.Sprint(node) {
			differ("%v: x-chain locked+unlocked %v, getAllBalances %v", names, g, node)
		}
	}
	return problems
}
