package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"

	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// balanceFixtures is what the P-chain of the node holds that getBalance and
// getRewardUTXOs can be asked about, read from its blocks.
type balanceFixtures struct {
	tip     uint64
	addrs   []ids.ShortID // every owner of any P-chain output, genesis included
	stakers []ids.ID      // the staker txs RewardValidatorTxs rewarded
	rewards []ids.ID      // the RewardValidatorTxs themselves
	others  []ids.ID      // other tx ids
	// entered is, per UTXO id, the height of the block whose acceptance
	// put it in the node's UTXO set (a RewardValidatorTx's proposal block
	// for the stake it returns and the rewards it pays: the node commits
	// the proposal and its option together).
	entered map[ids.ID]uint64
}

func readBalanceFixtures(t *testing.T, n *testnet.Network) *balanceFixtures {
	t.Helper()
	ctx := context.Background()
	c := platformvm.NewClient(n.URL)
	tip, err := c.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := &balanceFixtures{tip: tip, entered: map[ids.ID]uint64{}}
	seen := map[ids.ShortID]bool{}
	stakes := map[ids.ID][]ids.ID{} // stake outputs by staker tx, until returned
	enter := func(h uint64, eff *pchain.TxUTXOs) {
		for _, u := range eff.Produced {
			switch u.Kind {
			case pchain.KindStake:
				stakes[eff.TxID] = append(stakes[eff.TxID], u.ID())
			case pchain.KindExported:
			default:
				f.entered[u.ID()] = h
			}
		}
	}
	add := func(us []*pchain.UTXO) {
		for _, u := range us {
			for _, a := range u.Owners.Addrs {
				if !seen[a] {
					seen[a] = true
					f.addrs = append(f.addrs, a)
				}
			}
		}
	}
	for h := uint64(0); h <= tip; h++ {
		raw, err := c.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		b, err := pchain.Decode(h, raw)
		if err != nil {
			t.Fatal(err)
		}
		if h == 0 {
			g, ok, err := pchain.GenesisFor(b.ParentID)
			if err != nil || !ok {
				t.Fatalf("the local genesis is not known: ok=%t err=%v", ok, err)
			}
			add(g.UTXOs)
			for _, u := range g.UTXOs {
				f.entered[u.ID()] = 0
			}
			for _, v := range g.Validators {
				eff, err := pchain.UTXOsOfTx(v)
				if err != nil {
					t.Fatal(err)
				}
				add(eff.Produced)
				enter(0, eff)
			}
		}
		for _, pt := range b.Txs {
			tx, err := pchain.ParseTx(pt.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			eff, err := pchain.UTXOsOfTx(tx)
			if err != nil {
				t.Fatal(err)
			}
			add(eff.Produced)
			enter(h, eff)
			if r, ok := tx.Unsigned.(*txs.RewardValidatorTx); ok {
				for _, id := range stakes[r.TxID] {
					f.entered[id] = h
				}
				f.stakers = append(f.stakers, r.TxID)
				f.rewards = append(f.rewards, pt.ID)
				utxos, err := c.GetRewardUTXOs(ctx, &api.GetTxArgs{TxID: r.TxID})
				if err != nil {
					t.Fatal(err)
				}
				for _, ub := range utxos {
					u, err := pchain.ParseUTXO(ub)
					if err != nil {
						t.Fatal(err)
					}
					add([]*pchain.UTXO{u})
					f.entered[u.ID()] = h
				}
			} else if len(f.others) < 8 {
				f.others = append(f.others, pt.ID)
			}
		}
	}
	return f
}

// balanceOrder returns the normalization of getBalance answers that keeps
// the order of utxoIDs where the node defines one. The node lists the
// UTXOs of each address (addresses in byte order, a UTXO listed once) most
// recently entered first: each address's index is a linked list its
// UTXOs are pushed on the head of, when their block is committed
// (avax.utxoState over linkeddb). Those one block's commit enters it
// pushes in the order it ranges over a Go map (platformvm state's
// writeUTXOs over modifiedUTXOs), random, and another node holds another.
// So the UTXOs of one run that entered with one block are sorted, and the
// runs compared in order.
func balanceOrder(f *balanceFixtures) func(*testing.T, json.RawMessage) string {
	return func(t *testing.T, raw json.RawMessage) string {
		t.Helper()
		// A UTXO whose block is not known is a run of its own.
		return orderedBalance(t, raw, func(u avax.UTXOID) int64 {
			if h, ok := f.entered[u.InputID()]; ok {
				return int64(h)
			}
			return -1
		})
	}
}

// normalizeBalance sorts all of utxoIDs, for a comparison as a set.
func normalizeBalance(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	return orderedBalance(t, raw, func(avax.UTXOID) int64 { return 0 })
}

// orderedBalance sorts each run of utxoIDs of one run number (run, -1 for
// none) in a getBalance answer.
func orderedBalance(t *testing.T, raw json.RawMessage, run func(avax.UTXOID) int64) string {
	t.Helper()
	if len(raw) == 0 {
		return ""
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%v in %s", err, raw)
	}
	if u, ok := m["utxoIDs"]; ok {
		var list []avax.UTXOID
		if err := json.Unmarshal(u, &list); err != nil {
			t.Fatal(err)
		}
		for start := 0; start < len(list); {
			end := start + 1
			for r := run(list[start]); r >= 0 && end < len(list) && run(list[end]) == r; end++ {
			}
			slices.SortFunc(list[start:end], func(a, b avax.UTXOID) int { return strings.Compare(a.String(), b.String()) })
			start = end
		}
		if list != nil {
			m["utxoIDs"], _ = json.Marshal(list)
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestBalanceMatchesNode compares platform.getBalance and
// platform.getRewardUTXOs on avaindex and on the node, for every address of
// every P-chain output and every rewarded staker, with the errors of bad
// arguments.
func TestBalanceMatchesNode(t *testing.T) {
	n, issued := issuedNetwork(t)
	if issued.RewardValidatorTx == ids.Empty {
		t.Fatal("IssueAll rewarded no validator")
	}
	issueLockedOutputs(t, n)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn)
		// The node's tip moves when a staker of another test ends: compare
		// again when it moved during a comparison that failed.
		var problems []string
		for attempt := 0; attempt < 3; attempt++ {
			f := readBalanceFixtures(t, n)
			waitIndexed(t, base, f.tip, time.Minute)
			problems = compareBalances(t, n, base, f)
			tip, err := platformvm.NewClient(n.URL).GetHeight(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) == 0 || tip == f.tip {
				t.Logf("compared getBalance for %d addresses and getRewardUTXOs for %d stakers at height %d",
					len(f.addrs), len(f.stakers), f.tip)
				break
			}
		}
		for _, p := range problems {
			t.Error(p)
		}
	})
}

func compareBalances(t *testing.T, n *testnet.Network, base string, f *balanceFixtures) []string {
	nodeP, ourP := n.URL+"/ext/bc/P", base+"/ext/bc/P"
	var problems []string
	compare := func(method string, params any, norm func(*testing.T, json.RawMessage) string) json.RawMessage {
		wantRes, wantErr := rpc(t, nodeP, method, params)
		gotRes, gotErr := rpc(t, ourP, method, params)
		if norm(t, wantRes) != norm(t, gotRes) || !jsonEqual(wantErr, gotErr) {
			problems = append(problems, fmt.Sprintf("%s %v:\n node:     result=%s error=%s\n avaindex: result=%s error=%s",
				method, params, clip(wantRes), wantErr, clip(gotRes), gotErr))
		}
		return wantRes
	}
	exact := func(_ *testing.T, r json.RawMessage) string {
		var b bytes.Buffer
		if len(r) > 0 && json.Compact(&b, r) == nil {
			return b.String()
		}
		return string(r)
	}
	balance := func(addrs ...string) json.RawMessage {
		return compare("platform.getBalance", map[string]any{"addresses": addrs}, balanceOrder(f))
	}

	if len(f.addrs) < 3 {
		problems = append(problems, fmt.Sprintf("only %d addresses on the P-chain", len(f.addrs)))
	}
	var all []string
	nonEmpty, locked := 0, 0
	for _, a := range f.addrs {
		p := n.FormatAddress("P", a)
		all = append(all, p)
		res := balance(p)
		if !strings.Contains(string(res), `"utxoIDs":null`) {
			nonEmpty++
		}
		if !strings.Contains(string(res), `"lockedNotStakeables":{}`) {
			locked++
		}
		// The cb58 short id form is accepted too.
		balance(a.String())
	}
	if nonEmpty < 2 {
		problems = append(problems, fmt.Sprintf("only %d addresses hold anything; the comparison would not cover much", nonEmpty))
	}
	if locked == 0 {
		problems = append(problems, "no address holds a locked output; the comparison would not cover locktimes")
	}
	// Several at once, in both orders and with a repeat.
	balance(all...)
	rev := slices.Clone(all)
	slices.Reverse(rev)
	balance(append(rev, all[0])...)
	balance(n.PAddress(), n.PAddress())
	// Unknown and bad addresses: the node's errors, word for word.
	unknown := ids.ShortID{1, 2, 3}
	for _, bad := range [][]string{
		{n.FormatAddress("P", unknown)},
		{n.FormatAddress("platform", unknown)},
		{n.FormatAddress("11111111111111111111111111111111LpoYY", unknown)},
		{n.Address},                    // no chain prefix: refused by the node
		{n.XAddress()},                 // another chain's
		{n.FormatAddress("C", n.Addr)}, // another chain's
		{"Q-" + n.Address},             // unknown alias
		{"P-fuji1" + n.Address[len("local1"):]},
		{"P-nope"},
		{"nope"},
		{n.PAddress(), "nope"},
		{""},
		{},
	} {
		balance(bad...)
	}
	compare("platform.getBalance", map[string]any{}, balanceOrder(f))
	compare("platform.getBalance", map[string]any{"addresses": "x"}, balanceOrder(f))
	compare("platform.getBalance", []int{1}, balanceOrder(f))

	// Reward UTXOs, in every encoding, of every rewarded staker, and of ids
	// that are not stakers.
	if len(f.stakers) < 2 {
		problems = append(problems, fmt.Sprintf("only %d RewardValidatorTxs", len(f.stakers)))
	}
	ids2 := append(append(append([]ids.ID{}, f.stakers...), f.rewards...), f.others...)
	ids2 = append(ids2, ids.GenerateTestID())
	for _, id := range ids2 {
		for _, enc := range []string{"", "hex", "hexnc", "hexc", "json", "HEX", "cb58"} {
			params := map[string]any{"txID": id.String()}
			if enc != "" {
				params["encoding"] = enc
			}
			compare("platform.getRewardUTXOs", params, exact)
		}
	}
	compare("platform.getRewardUTXOs", map[string]any{"txID": "nope"}, exact)
	compare("platform.getRewardUTXOs", map[string]any{}, exact)
	return problems
}

// issueLockedOutputs sends, on the P-chain, outputs whose owners' locktime
// is in the future and in the past, and one with two owners and threshold
// 2, so that getBalance's lockedNotStakeable and multi-owner paths are
// compared too.
func issueLockedOutputs(t *testing.T, n *testnet.Network) {
	t.Helper()
	k, err := testnet.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	out := func(locktime uint64, threshold uint32, addrs ...ids.ShortID) *avax.TransferableOutput {
		utils.Sort(addrs)
		return &avax.TransferableOutput{Asset: avax.Asset{ID: n.AVAXAssetID}, Out: &secp256k1fx.TransferOutput{
			Amt:          units.Avax,
			OutputOwners: secp256k1fx.OutputOwners{Locktime: locktime, Threshold: threshold, Addrs: addrs},
		}}
	}
	now := uint64(time.Now().Unix())
	err = n.WithWallet(context.Background(), primary.WalletConfig{}, func(w *primary.Wallet) error {
		_, err := w.P().IssueBaseTx([]*avax.TransferableOutput{
			out(now+3600, 1, k.Address()),
			out(now-60, 1, k.Address()),
			out(0, 2, k.Address(), n.Addr),
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
