package tests

import (
	"context"
	"strconv"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// sdkPrimaryFacts are the node's answers the SDK tests of the Primary
// Network tag (tests/sdk/primarynetwork.test.mjs) compare with.
type sdkPrimaryFacts struct {
	// Subnets are platform.getSubnets' ids; Blockchains
	// platform.getBlockchains'.
	Subnets     []string        `json:"subnets"`
	Blockchains []sdkBlockchain `json:"blockchains"`
	// Asset is avm.getAssetDescription of the scenario's asset.
	Asset struct {
		ID           string `json:"id"`
		Name         string `json:"name"`
		Symbol       string `json:"symbol"`
		Denomination int    `json:"denomination"`
	} `json:"asset"`
	// ValidatorCount is how many primary-network validators are current.
	ValidatorCount int `json:"validatorCount"`
	// Unlocked and LockedNotStakeable are platform.getBalance's AVAX of
	// the UTXO tests' key pair (sdkUTXOFacts.Pair), which no test spends.
	Unlocked           string `json:"unlocked"`
	LockedNotStakeable string `json:"lockedNotStakeable"`
	// NodeID is a current validator's node and Pending the txs of it and
	// its delegators.
	NodeID  string   `json:"nodeId"`
	Pending []string `json:"pending"`
}

type sdkBlockchain struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	SubnetID string `json:"subnetId"`
	VMID     string `json:"vmId"`
}

func readSDKPrimaryFacts(t *testing.T, n *testnet.Network, issued *testnet.Issued) sdkPrimaryFacts {
	t.Helper()
	ctx := context.Background()
	pc := platformvm.NewClient(n.URL)
	var f sdkPrimaryFacts
	subnets, err := pc.GetSubnets(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range subnets {
		f.Subnets = append(f.Subnets, s.ID.String())
	}
	chains, err := pc.GetBlockchains(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chains {
		f.Blockchains = append(f.Blockchains, sdkBlockchain{ID: c.ID.String(), Name: c.Name, SubnetID: c.SubnetID.String(), VMID: c.VMID.String()})
	}
	d, err := avm.NewClient(n.URL, "X").GetAssetDescription(ctx, issued.AssetID.String())
	if err != nil {
		t.Fatal(err)
	}
	f.Asset.ID, f.Asset.Name, f.Asset.Symbol, f.Asset.Denomination = issued.AssetID.String(), d.Name, d.Symbol, int(d.Denomination)
	vs, err := pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
	if err != nil || len(vs) == 0 {
		t.Fatalf("current validators: %d, %v", len(vs), err)
	}
	f.ValidatorCount = len(vs)
	k1, k2 := issueUTXOExtras(t, n, issued)
	bal, err := pc.GetBalance(ctx, []ids.ShortID{k1, k2})
	if err != nil {
		t.Fatal(err)
	}
	f.Unlocked, f.LockedNotStakeable = strconv.FormatUint(uint64(bal.Unlocked), 10), strconv.FormatUint(uint64(bal.LockedNotStakeable), 10)
	v := vs[0]
	f.NodeID, f.Pending = v.NodeID.String(), []string{v.TxID.String()}
	one, err := pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, []ids.NodeID{v.NodeID})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range one[0].Delegators {
		f.Pending = append(f.Pending, d.TxID.String())
	}
	return f
}
