package tests

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestChainsMatchNode compares platform.getBlockchains,
// platform.getBlockchainStatus and platform.getCurrentSupply on avaindex and
// on the node, on the issued network plus a second, permissioned subnet
// with two chains whose ownership was transferred.
func TestChainsMatchNode(t *testing.T) {
	n, issued := issuedNetwork(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	poa, err := n.CreateSubnet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var poaChains []ids.ID
	for _, name := range []string{"poa one", "poa two"} {
		id, err := n.CreateChain(ctx, poa, name)
		if err != nil {
			t.Fatal(err)
		}
		poaChains = append(poaChains, id)
	}
	err = n.WithWallet(ctx, primary.WalletConfig{SubnetIDs: []ids.ID{poa}}, func(w *primary.Wallet) error {
		owner := n.Owner()
		owner.Threshold = 1
		_, err := w.P().IssueTransferSubnetOwnershipTx(poa, owner)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	nodeClient := platformvm.NewClient(n.URL)
	tip, err := nodeClient.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nodeChains, err := nodeClient.GetBlockchains(ctx)
	if err != nil {
		t.Fatal(err)
	}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn)
		waitIndexed(t, base, tip, time.Minute)
		nodeP, ourP := n.URL+"/ext/bc/P", base+"/ext/bc/P"
		same := sameAsNode(t, nodeP, ourP, t.Errorf)

		// getBlockchains, in the node's order.
		same("platform.getBlockchains", map[string]any{})
		same("platform.getBlockchains", nil)

		// getBlockchainStatus of every chain, by id and by alias, and
		// of unknown and malformed ids.
		statuses := []any{
			constants.PlatformChainID.String(), "P", "platform", "X", "avm", "C", "evm",
			issued.ChainID.String(), poaChains[0].String(), poaChains[1].String(),
			ids.GenerateTestID().String(), issued.SubnetID.String(), issued.PBaseTx.String(),
			"nope", "", "x" + issued.ChainID.String(),
		}
		for _, c := range nodeChains {
			statuses = append(statuses, c.ID.String())
		}
		for _, id := range statuses {
			same("platform.getBlockchainStatus", map[string]any{"blockchainID": id})
		}
		same("platform.getBlockchainStatus", map[string]any{})
		same("platform.getBlockchainStatus", map[string]any{"blockchainID": 7})

		// getCurrentSupply: the primary network once avaindex has
		// observed the node's supply at the tip, then every subnet,
		// unknown and malformed ids.
		ours := platformvm.NewClient(base)
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, h, err := ours.GetCurrentSupply(ctx, constants.PrimaryNetworkID)
			if err == nil && h >= tip {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("avaindex did not observe the supply at height %d (at %d, err %v)", tip, h, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		same("platform.getCurrentSupply", map[string]any{})
		same("platform.getCurrentSupply", map[string]any{"subnetID": constants.PrimaryNetworkID.String()})
		for _, id := range []string{issued.SubnetID.String(), poa.String(), ids.GenerateTestID().String(),
			issued.ChainID.String(), "nope", ""} {
			same("platform.getCurrentSupply", map[string]any{"subnetID": id})
		}
		same("platform.getCurrentSupply", map[string]any{"subnetID": 7})

		// avalanchego's client works unmodified.
		gotChains, err := ours.GetBlockchains(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotChains, nodeChains) {
			t.Errorf("platformvm.Client.GetBlockchains:\n avaindex %+v\n node     %+v", gotChains, nodeChains)
		}
		for _, c := range append(nodeChains, platformvm.APIBlockchain{ID: ids.GenerateTestID()}) {
			got, err := ours.GetBlockchainStatus(ctx, c.ID.String())
			if err != nil {
				t.Fatal(err)
			}
			want, err := nodeClient.GetBlockchainStatus(ctx, c.ID.String())
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("platformvm.Client.GetBlockchainStatus(%s) = %s, node %s", c.ID, got, want)
			}
		}
		gotSupply, gotHeight, err := ours.GetCurrentSupply(ctx, constants.PrimaryNetworkID)
		if err != nil {
			t.Fatal(err)
		}
		wantSupply, wantHeight, err := nodeClient.GetCurrentSupply(ctx, constants.PrimaryNetworkID)
		if err != nil {
			t.Fatal(err)
		}
		if gotSupply != wantSupply || gotHeight != wantHeight {
			t.Errorf("platformvm.Client.GetCurrentSupply = %d at %d, node %d at %d", gotSupply, gotHeight, wantSupply, wantHeight)
		}
		if _, _, err := ours.GetCurrentSupply(ctx, poa); err == nil {
			t.Error("platformvm.Client.GetCurrentSupply of a permissioned subnet: no error")
		}
	})
}
