package tests

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestL1LifecycleMatchesNode runs on the custom network, where warp
// messages verify, so that RegisterL1ValidatorTx, SetL1ValidatorWeightTx,
// IncreaseL1ValidatorBalanceTx and DisableL1ValidatorTx are issued for
// real; avaindex, given the network's genesis file, must then answer the
// P-chain blocks and validators exactly as the node does.
func TestL1LifecycleMatchesNode(t *testing.T) {
	n := testnet.GetCustom(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	issued, err := n.IssueL1Lifecycle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tip, err := platformvm.NewClient(n.URL).GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	subnet := issued.L1.SubnetID.String()

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--genesis-file", n.GenesisFile)
		waitIndexed(t, base, tip, time.Minute)
		nodeP, ourP := n.URL+"/ext/bc/P", base+"/ext/bc/P"
		same := sameAsNode(t, nodeP, ourP, t.Errorf)

		for h := uint64(0); h <= tip; h++ {
			same("platform.getBlockByHeight", map[string]any{"height": h, "encoding": "json"})
			// The L1's set through its lifecycle (a registration, a weight
			// change, a top-up, a disable), and every set at once.
			same("platform.getValidatorsAt", map[string]any{"height": h, "subnetID": subnet})
			same("platform.getAllValidatorsAt", map[string]any{"height": h})
		}
		same("platform.getBlockchains", map[string]any{})
		// The local key owns the refund of the disabled L1 validator, whose
		// amount avaindex derives from the replayed validator-fee state.
		// utxoIDs are compared as a set: the node orders a block's UTXOs
		// randomly (normalizeBalance).
		balance := map[string]any{"addresses": []string{n.PAddress()}}
		wantBal, _ := rpc(t, nodeP, "platform.getBalance", balance)
		gotBal, gotErr := rpc(t, ourP, "platform.getBalance", balance)
		if w, g := normalizeBalance(t, wantBal), normalizeBalance(t, gotBal); w != g || gotErr != nil {
			t.Errorf("getBalance %v:\n node:     %s\n avaindex: %s (error %s)", balance, w, g, gotErr)
		}
		same("platform.getBlockchainStatus", map[string]any{"blockchainID": issued.L1.ManagerChainID.String()})
		// The supply, replayed from the custom genesis.
		same("platform.getCurrentSupply", map[string]any{})

		// Each L1 validator (the disabled one inactive, with no balance),
		// and the L1's total weight, inactive validators included.
		for _, v := range issued.L1.Validators() {
			same("platform.getL1Validator", map[string]any{"validationID": v.ValidationID})
		}
		for _, bad := range []map[string]any{{"validationID": ids.GenerateTestID()}, {"validationID": "nope"}, {}} {
			same("platform.getL1Validator", bad)
		}
		same("platform.getTotalStake", map[string]any{"subnetID": subnet})
		same("platform.getTotalStake", map[string]any{})

		// Validators: the L1's, after its whole lifecycle, and the primary
		// network's genesis validator (known only from the genesis file).
		for _, params := range []map[string]any{
			{"subnetID": subnet},
			{"subnetID": constants.PrimaryNetworkID.String()},
		} {
			wantRes, wantErr := rpc(t, nodeP, "platform.getCurrentValidators", params)
			gotRes, gotErr := rpc(t, ourP, "platform.getCurrentValidators", params)
			if !jsonEqual(wantErr, gotErr) {
				t.Errorf("getCurrentValidators %v: errors differ:\n node:     %s\n avaindex: %s", params, wantErr, gotErr)
				continue
			}
			w, g := normalizeValidators(t, wantRes, false), normalizeValidators(t, gotRes, false)
			if w != g {
				t.Errorf("getCurrentValidators %v:\n node:     %s\n avaindex: %s", params, w, g)
			}
			var out struct {
				Validators []json.RawMessage `json:"validators"`
			}
			if err := json.Unmarshal(wantRes, &out); err != nil || len(out.Validators) == 0 {
				t.Errorf("getCurrentValidators %v: the node lists no validators (%s)", params, wantRes)
			}
		}
	})
}
