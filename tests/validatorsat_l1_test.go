package tests

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestL1ValidatorsAtMatchNode converts a subnet with a legacy validator
// (ending some 30 s later, in a proposal block: a primary validator's
// reward) to an L1 of three validators: A with a deposit
// the local network's fee (1 nAVAX a second) runs out in seconds, then
// topped up; B; and C, disabled at the end. platform.getValidatorsAt of
// the L1 and platform.getAllValidatorsAt must answer as the node at every
// height from before the conversion to the tip, on both stores: the legacy
// validator while it lasts, active L1 validators with their own keys, the
// inactive ones' weight under ids.EmptyNodeID. Then the same answers with
// the node stopped, from the store alone.
func TestL1ValidatorsAtMatchNode(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	n := testnet.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	pc := platformvm.NewClient(n.URL)
	from, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// The subnet, with a legacy validator on a fresh primary validator.
	subnetID, err := n.CreateSubnet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := n.AddValidator(ctx, 20*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// A primary validator ending with the legacy one: the block at their
	// end time is a proposal block (its RewardValidatorTx) whose time
	// advance removes the legacy validator, which the node shows from the
	// commit or abort block after it.
	ender, err := n.AddValidator(ctx, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	legacyEnd := ender.End
	const legacyWeight = 7
	err = n.WithWallet(ctx, primary.WalletConfig{SubnetIDs: []ids.ID{subnetID}}, func(w *primary.Wallet) error {
		_, err := w.P().IssueAddSubnetValidatorTx(&txs.SubnetValidator{
			Validator: txs.Validator{NodeID: legacy.NodeID, Start: uint64(time.Now().Unix()), End: uint64(legacyEnd.Unix()), Wght: legacyWeight},
			Subnet:    subnetID,
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	chainID, err := n.CreateChain(ctx, subnetID, "avaindex validatorsAt l1")
	if err != nil {
		t.Fatal(err)
	}
	const (
		weightA, weightB, weightC = 100, 200, 300
		depositA                  = 8
	)
	var specs []testnet.L1ValidatorSpec
	for _, v := range []struct{ weight, balance uint64 }{{weightA, depositA}, {weightB, 1e9}, {weightC, 1e9}} {
		nodeID, err := testnet.RandomNodeID()
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
		specs = append(specs, testnet.L1ValidatorSpec{NodeID: nodeID, PoP: pop, Weight: v.weight, Balance: v.balance})
	}
	manager := make([]byte, 20)
	if _, err := rand.Read(manager); err != nil {
		t.Fatal(err)
	}
	l1, err := n.ConvertToL1(ctx, subnetID, chainID, manager, specs)
	if err != nil {
		t.Fatal(err)
	}
	// Validation ids follow the conversion's order, by node id.
	vid := map[uint64]ids.ID{}
	for _, s := range specs {
		i := 0
		for _, o := range specs {
			if bytes.Compare(o.NodeID[:], s.NodeID[:]) < 0 {
				i++
			}
		}
		vid[s.Weight] = l1.SubnetID.Append(uint32(i))
	}
	// A's balance runs out: the node deactivates it with a block.
	for {
		v, _, err := pc.GetL1Validator(ctx, vid[weightA])
		if err != nil {
			t.Fatal(err)
		}
		if v.Balance == 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("A's balance never ran out")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, err := n.IncreaseL1ValidatorBalance(ctx, vid[weightA], 1e9); err != nil {
		t.Fatal(err)
	}
	if _, err := n.DisableL1Validator(ctx, vid[weightC]); err != nil {
		t.Fatal(err)
	}
	// The legacy validator leaves the set at its end time.
	time.Sleep(time.Until(legacyEnd) + 2*time.Second)
	if _, err := n.PBaseTx(ctx, ids.GenerateTestShortID(), 1); err != nil {
		t.Fatal(err)
	}
	tip, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("heights %d to %d, L1 %s converted by %d", from, tip, l1.SubnetID, l1.ConvertedHeight)

	type call struct {
		method string
		params any
	}
	var calls []call
	for h := from; h <= tip; h++ {
		calls = append(calls,
			call{"platform.getValidatorsAt", map[string]any{"height": h, "subnetID": l1.SubnetID}},
			call{"platform.getAllValidatorsAt", map[string]any{"height": h}})
	}
	// Bad arguments the store answers, in the node's words.
	for _, bad := range []any{
		map[string]any{"height": "nope", "subnetID": l1.SubnetID},
		map[string]any{"height": tip, "subnetID": "nope"},
		map[string]any{"height": -1},
		[]int{1},
	} {
		calls = append(calls, call{"platform.getValidatorsAt", bad}, call{"platform.getAllValidatorsAt", bad})
	}
	type answer struct{ res, err json.RawMessage }
	want := make([]answer, len(calls))
	for i, c := range calls {
		want[i].res, want[i].err = rpc(t, n.URL+"/ext/bc/P", c.method, c.params)
	}

	// The node's answers hold what the scenario means to cover: the legacy
	// validator beside the L1 validators, A's weight inactive while its
	// balance was out, C's at the tip.
	type set map[string]struct {
		PublicKey *string `json:"publicKey"`
		Weight    string  `json:"weight"`
	}
	empty := ids.EmptyNodeID.String()
	var sawLegacy, sawOut, sawLegacyGone bool
	var goneAt uint64 // the first height whose set lacks the legacy validator
	for i, c := range calls {
		if c.method != "platform.getValidatorsAt" || want[i].err != nil {
			continue
		}
		var s set
		if err := json.Unmarshal(want[i].res, &s); err != nil {
			continue
		}
		_, hasA := s[specs[0].NodeID.String()]
		_, hasLegacy := s[legacy.NodeID.String()]
		if _, hasB := s[specs[1].NodeID.String()]; hasB && hasLegacy {
			sawLegacy = true
		}
		if _, hasB := s[specs[1].NodeID.String()]; hasB && !hasLegacy {
			if !sawLegacyGone {
				goneAt = from + uint64(i/2)
			}
			sawLegacyGone = true
		}
		if e, ok := s[empty]; ok && !hasA && e.Weight == "100" && e.PublicKey == nil {
			sawOut = true
		}
	}
	var atTip set
	if err := json.Unmarshal(want[2*int(tip-from)].res, &atTip); err != nil {
		t.Fatal(err)
	}
	if e, ok := atTip[empty]; !ok || e.Weight != "300" || len(atTip) != 3 {
		t.Errorf("the node's L1 set at the tip is not A, B and C's weight under %s: %s", empty, want[2*int(tip-from)].res)
	}
	if !sawLegacy || !sawOut || !sawLegacyGone {
		t.Errorf("the node's sets miss a case: legacy beside L1 %t, A run out %t, legacy gone %t", sawLegacy, sawOut, sawLegacyGone)
	}
	if sawLegacyGone {
		raw, err := pc.GetBlockByHeight(ctx, goneAt-1)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := block.Parse(block.Codec, raw)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := blk.(*block.BanffProposalBlock); !ok {
			t.Errorf("the legacy validator left the node's set at %d, after a %T; want after a proposal block", goneAt, blk)
		}
	}

	check := func(t *testing.T, base string) {
		t.Helper()
		bad := 0
		for i, c := range calls {
			res, rpcErr := rpc(t, base+"/ext/bc/P", c.method, c.params)
			if !jsonEqual(res, want[i].res) || !jsonEqual(rpcErr, want[i].err) {
				if bad++; bad <= 5 {
					t.Errorf("%s %v:\n node:     result=%s error=%s\n avaindex: result=%s error=%s",
						c.method, c.params, clip(want[i].res), want[i].err, clip(res), rpcErr)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%d of %d answers differ", bad, len(calls))
		}
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		start := time.Now()
		base := startService(t, n.URL, dsn)
		waitIndexed(t, base, tip, 2*time.Minute)
		check(t, base)
		// With the node gone, from the store alone.
		check(t, startService(t, testnet.ClosedURL(t), dsn))
		t.Logf("indexed and compared %d calls twice in %s", len(calls), time.Since(start).Round(time.Millisecond))
	})
}
