package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// nodeLocalFields are the getCurrentValidators fields only the node knows
// (see nodeapi.GetCurrentValidators); they are compared by presence and
// JSON type only.
var nodeLocalFields = []string{"uptime", "connected"}

var (
	uptimeRE    = regexp.MustCompile(`"uptime":"[0-9]+\.[0-9]{4}"`)
	connectedRE = regexp.MustCompile(`"connected":(true|false)`)
)

// TestGetCurrentValidatorsMatchesNode compares platform.getCurrentValidators
// on avaindex and on the node: the primary network with and without
// nodeIDs, a PoA subnet, the L1 IssueAll converted, an unknown subnet and
// bad arguments; and avalanchego's own client against both.
func TestGetCurrentValidatorsMatchesNode(t *testing.T) {
	n, iss := issuedNetwork(t)
	ctx := context.Background()

	// Current stakers to compare: IssueAll's are rewarded already.
	vdr, err := n.AddValidator(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	del1, err := n.AddDelegator(ctx, vdr.NodeID, vdr.End.Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.AddDelegator(ctx, vdr.NodeID, vdr.End.Add(-2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	// A delegation rewarded while vdr validates: vdr accrues its fee.
	short, err := n.AddDelegator(ctx, vdr.NodeID, time.Now().Add(8*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	lone, err := n.AddValidator(ctx, 50*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// A permissioned subnet validated by vdr's node.
	poa, err := n.CreateSubnet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = n.WithWallet(ctx, primary.WalletConfig{SubnetIDs: []ids.ID{poa}}, func(w *primary.Wallet) error {
		_, err := w.P().IssueAddSubnetValidatorTx(&txs.SubnetValidator{
			Validator: txs.Validator{
				NodeID: vdr.NodeID,
				Start:  uint64(time.Now().Unix()),
				End:    uint64(vdr.End.Add(-5 * time.Minute).Unix()),
				Wght:   7,
			},
			Subnet: poa,
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	if r, err := n.WaitRewarded(ctx, short.TxID); err != nil || !r.Committed {
		t.Fatalf("short delegation's reward: %+v, %v; want committed", r, err)
	}
	pc := platformvm.NewClient(n.URL)
	tip, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l1 := iss.ConvertSubnetToL1

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn)
		waitIndexed(t, base, tip, time.Minute)
		nodeP, ourP := n.URL+"/ext/bc/P", base+"/ext/bc/P"

		compare := func(params any, unordered bool) json.RawMessage {
			t.Helper()
			wantRes, wantErr := rpc(t, nodeP, "platform.getCurrentValidators", params)
			gotRes, gotErr := rpc(t, ourP, "platform.getCurrentValidators", params)
			if !jsonEqual(wantErr, gotErr) {
				t.Fatalf("%v: errors differ:\n node:     %s\n avaindex: %s", params, wantErr, gotErr)
			}
			if wantErr != nil {
				return nil
			}
			w, g := normalizeValidators(t, wantRes, unordered), normalizeValidators(t, gotRes, unordered)
			if w != g {
				t.Fatalf("%v:\n node:     %s\n avaindex: %s", params, w, g)
			}
			return wantRes
		}
		count := func(res json.RawMessage) int {
			var out struct {
				Validators []json.RawMessage `json:"validators"`
			}
			if err := json.Unmarshal(res, &out); err != nil {
				t.Fatal(err)
			}
			return len(out.Validators)
		}

		// Primary network: genesis validators plus ours.
		primaryRes := compare(map[string]any{}, false)
		if got := count(primaryRes); got < 3 {
			t.Fatalf("primary network: %d validators, want at least 3", got)
		}
		// The comparison covered a replayed delegation fee.
		var fees struct {
			Validators []struct {
				NodeID  ids.NodeID `json:"nodeID"`
				Accrued string     `json:"accruedDelegateeReward"`
			} `json:"validators"`
		}
		if err := json.Unmarshal(primaryRes, &fees); err != nil {
			t.Fatal(err)
		}
		for _, v := range fees.Validators {
			if v.NodeID == vdr.NodeID && (v.Accrued == "" || v.Accrued == "0") {
				t.Errorf("the node shows no accrued delegatee reward for %s after a rewarded delegation", vdr.NodeID)
			}
		}
		compare(map[string]any{"subnetID": constants.PrimaryNetworkID.String()}, false)
		// Each validator alone, with its delegators.
		var all struct {
			Validators []struct {
				NodeID ids.NodeID `json:"nodeID"`
			} `json:"validators"`
		}
		res, _ := rpc(t, nodeP, "platform.getCurrentValidators", map[string]any{})
		if err := json.Unmarshal(res, &all); err != nil {
			t.Fatal(err)
		}
		var nodeIDs []string
		for _, v := range all.Validators {
			nodeIDs = append(nodeIDs, v.NodeID.String())
			compare(map[string]any{"nodeIDs": []string{v.NodeID.String()}}, false)
		}
		one := compare(map[string]any{"nodeIDs": []string{vdr.NodeID.String()}}, false)
		var withDelegators struct {
			Validators []struct {
				Delegators []struct {
					TxID ids.ID `json:"txID"`
				} `json:"delegators"`
			} `json:"validators"`
		}
		if err := json.Unmarshal(one, &withDelegators); err != nil {
			t.Fatal(err)
		}
		if len(withDelegators.Validators) != 1 || len(withDelegators.Validators[0].Delegators) != 2 {
			t.Fatalf("validator %s: want 2 delegators in %s", vdr.NodeID, one)
		}
		// Several nodeIDs: the node answers them in map order.
		compare(map[string]any{"nodeIDs": []string{vdr.NodeID.String(), lone.NodeID.String()}}, true)
		compare(map[string]any{"nodeIDs": nodeIDs}, true)
		compare(map[string]any{"nodeIDs": []string{vdr.NodeID.String(), n.NodeID.String()}}, true)
		// Unknown or non-validating node ids are left out.
		if got := count(compare(map[string]any{"nodeIDs": []string{ids.GenerateTestNodeID().String()}}, false)); got != 0 {
			t.Fatalf("unknown nodeID: %d validators", got)
		}
		// PoA subnet.
		if got := count(compare(map[string]any{"subnetID": poa.String()}, false)); got != 1 {
			t.Fatalf("PoA subnet: %d validators, want 1", got)
		}
		compare(map[string]any{"subnetID": poa.String(), "nodeIDs": []string{vdr.NodeID.String()}}, false)
		// The L1.
		if got := count(compare(map[string]any{"subnetID": l1.SubnetID.String()}, false)); got != 1 {
			t.Fatalf("L1: %d validators, want 1", got)
		}
		compare(map[string]any{"subnetID": l1.SubnetID.String(), "nodeIDs": []string{l1.NodeID.String()}}, false)
		compare(map[string]any{"subnetID": l1.SubnetID.String(), "nodeIDs": []string{vdr.NodeID.String()}}, false)
		// Unknown subnet: [].
		if got := count(compare(map[string]any{"subnetID": ids.GenerateTestID().String()}, false)); got != 0 {
			t.Fatalf("unknown subnet: %d validators", got)
		}
		// Bad arguments: the node's errors.
		for _, bad := range []any{
			map[string]any{"subnetID": "foo"},
			map[string]any{"nodeIDs": []string{"foo"}},
			map[string]any{"nodeIDs": "x"},
			map[string]any{"subnetID": 5},
			[]int{1},
		} {
			compare(bad, false)
		}

		// avalanchego's client works against avaindex unmodified.
		ours, theirs := platformvm.NewClient(base), platformvm.NewClient(n.URL)
		for _, q := range []struct {
			subnet ids.ID
			nodes  []ids.NodeID
		}{
			{constants.PrimaryNetworkID, nil},
			{constants.PrimaryNetworkID, []ids.NodeID{vdr.NodeID}},
			{poa, nil},
			{l1.SubnetID, nil},
		} {
			a, err := ours.GetCurrentValidators(ctx, q.subnet, q.nodes)
			if err != nil {
				t.Fatal(err)
			}
			b, err := theirs.GetCurrentValidators(ctx, q.subnet, q.nodes)
			if err != nil {
				t.Fatal(err)
			}
			for i := range a {
				a[i].Uptime, a[i].Connected = nil, nil
			}
			for i := range b {
				b[i].Uptime, b[i].Connected = nil, nil
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("platformvm.Client.GetCurrentValidators(%s, %v) differs:\n node:     %+v\n avaindex: %+v", q.subnet, q.nodes, b, a)
			}
		}
		_ = del1

		// platform.getValidatorsAt at every height: the primary network, the
		// PoA subnet and the L1 from the store, heights past the tip from
		// the node; bad arguments in the node's words.
		same := sameAsNode(t, nodeP, ourP, t.Errorf)
		unknown := ids.GenerateTestID()
		for h := uint64(0); h <= tip; h++ {
			for _, subnet := range []ids.ID{constants.PrimaryNetworkID, poa, l1.SubnetID, unknown} {
				same("platform.getValidatorsAt", map[string]any{"height": h, "subnetID": subnet})
			}
		}
		var set map[string]struct {
			PublicKey *string `json:"publicKey"`
			Weight    string  `json:"weight"`
		}
		res = same("platform.getValidatorsAt", map[string]any{"height": tip})
		if err := json.Unmarshal(res, &set); err != nil {
			t.Fatal(err)
		}
		if v, ok := set[vdr.NodeID.String()]; !ok || v.PublicKey == nil || v.Weight == "" {
			t.Errorf("the node's getValidatorsAt(%d) lacks %s with a key and its delegations' weight: %s", tip, vdr.NodeID, res)
		}

		// platform.getAllValidatorsAt at every height, from the store; bad
		// arguments in the node's words.
		sets := 0
		for h := uint64(0); h <= tip; h++ {
			var all struct {
				ValidatorSets map[ids.ID]json.RawMessage `json:"validatorSets"`
			}
			if err := json.Unmarshal(same("platform.getAllValidatorsAt", map[string]any{"height": h}), &all); err != nil {
				t.Fatal(err)
			}
			sets += len(all.ValidatorSets)
		}
		if sets <= int(tip) {
			t.Errorf("the node's getAllValidatorsAt answered %d sets over %d heights: not every height's primary network", sets, tip+1)
		}
		for _, bad := range []any{
			map[string]any{"height": tip + 1000},
			map[string]any{"height": "nope"},
			map[string]any{"height": -1},
			map[string]any{},
			[]int{1},
		} {
			same("platform.getAllValidatorsAt", bad)
		}
		for _, bad := range []any{
			map[string]any{"height": tip + 1000},
			map[string]any{"height": "nope"},
			map[string]any{"height": -1},
			map[string]any{"height": 1, "subnetID": "nope"},
			map[string]any{},
			[]int{1},
		} {
			same("platform.getValidatorsAt", bad)
		}
	})
}

// normalizeValidators returns the result's JSON with each validator's
// node-local fields replaced by their JSON type, the validators sorted
// when unordered.
func normalizeValidators(t *testing.T, res json.RawMessage, unordered bool) string {
	t.Helper()
	if !unordered {
		// Byte for byte, so that the key order is checked too.
		var c bytes.Buffer
		if err := json.Compact(&c, res); err != nil {
			t.Fatalf("%v in %s", err, res)
		}
		s := uptimeRE.ReplaceAllString(c.String(), `"uptime":"<string>"`)
		return connectedRE.ReplaceAllString(s, `"connected":"<bool>"`)
	}
	var out struct {
		Validators []map[string]json.RawMessage `json:"validators"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatalf("%v in %s", err, res)
	}
	if out.Validators == nil {
		t.Fatalf("validators is not an array in %s", res)
	}
	elems := make([]string, 0, len(out.Validators))
	for _, v := range out.Validators {
		for _, f := range nodeLocalFields {
			if raw, ok := v[f]; ok {
				var x any
				if err := json.Unmarshal(raw, &x); err != nil {
					t.Fatal(err)
				}
				typ := "other"
				switch x.(type) {
				case string:
					typ = "string"
				case bool:
					typ = "bool"
				}
				v[f] = json.RawMessage(`"<` + typ + `>"`)
			}
		}
		// Keys sorted by encoding/json; the node's key order is its
		// structs', which avaindex shares.
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		elems = append(elems, string(b))
	}
	if unordered {
		sort.Strings(elems)
	}
	b, err := json.Marshal(elems)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
