package tests

import (
	"context"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestPTxReadsMatchNode compares the P-chain reads a wallet makes of txs
// and of the chain (platform.getTx in every encoding, getTxStatus,
// getTimestamp, getStakingAssetID, getSubnet, getSubnets, getStake,
// getTotalStake, validatedBy, validates) on
// avaindex and on the node: every tx of every block, the genesis's, and
// bad inputs.
func TestPTxReadsMatchNode(t *testing.T) {
	n, issued := issuedNetwork(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	poa, err := n.CreateSubnet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A validator and a delegator current while getStake is compared,
	// staked by the key.
	vdr, err := n.AddValidator(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.AddDelegator(ctx, vdr.NodeID, vdr.End.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}

	nodeClient := platformvm.NewClient(n.URL)
	tip, err := nodeClient.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Every tx of every block, and the genesis's (the X- and C-chain's
	// creation, the genesis validators').
	txIDs := []ids.ID{n.XChainID, n.CChainID}
	vdrs, err := nodeClient.GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vdrs {
		txIDs = append(txIDs, v.TxID)
	}
	for h := uint64(1); h <= tip; h++ {
		b, err := nodeClient.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := block.Parse(block.Codec, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Txs() {
			txIDs = append(txIDs, tx.ID())
		}
	}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn)
		waitIndexed(t, base, tip, time.Minute)
		same := sameAsNode(t, n.URL+"/ext/bc/P", base+"/ext/bc/P", t.Errorf)

		for _, id := range txIDs {
			same("platform.getTxStatus", map[string]any{"txID": id})
			for _, enc := range []any{nil, "hex", "hexnc", "hexc", "json", "JSON"} {
				params := map[string]any{"txID": id}
				if enc != nil {
					params["encoding"] = enc
				}
				same("platform.getTx", params)
			}
		}
		for _, bad := range []map[string]any{
			{"txID": ids.GenerateTestID()},
			{"txID": ids.GenerateTestID(), "encoding": "json"},
			{"txID": issued.PBaseTx, "encoding": "nope"},
			{"txID": "nope"},
			{"txID": ""},
			{},
			{"txID": 7},
		} {
			same("platform.getTx", bad)
			same("platform.getTxStatus", bad)
		}
		same("platform.getTimestamp", map[string]any{})
		same("platform.getTimestamp", nil)
		for _, m := range []string{"platform.getFeeConfig", "platform.getValidatorFeeConfig"} {
			same(m, map[string]any{})
			same(m, nil)
		}

		for _, subnet := range []any{constants.PrimaryNetworkID.String(), issued.SubnetID.String(), poa.String(),
			ids.GenerateTestID().String(), "nope", "", nil} {
			params := map[string]any{}
			if subnet != nil {
				params["subnetID"] = subnet
			}
			same("platform.getStakingAssetID", params)
			same("platform.getTotalStake", params)
			same("platform.getSubnet", params)
			same("platform.validates", params)
			// The node's staking configuration on this network (forwarded off
			// mainnet and Fuji), errors for subnets that were not transformed.
			same("platform.getMinStake", params)
		}
		for _, params := range []any{
			map[string]any{}, nil, map[string]any{"ids": []ids.ID{}},
			map[string]any{"ids": []ids.ID{constants.PrimaryNetworkID}},
			map[string]any{"ids": []ids.ID{issued.SubnetID, poa, constants.PrimaryNetworkID, issued.SubnetID}},
			map[string]any{"ids": []ids.ID{ids.GenerateTestID()}},
			map[string]any{"ids": []ids.ID{poa, issued.ChainID}},
			map[string]any{"ids": []ids.ID{n.XChainID}},
			map[string]any{"ids": []ids.ID{issued.PBaseTx}},
			map[string]any{"ids": "nope"}, map[string]any{"ids": []string{"nope"}},
		} {
			same("platform.getSubnets", params)
		}
		ewoq, recipient := n.FormatAddress("P", n.Addr), n.FormatAddress("P", issued.Recipient)
		tooMany := make([]string, 257)
		for i := range tooMany {
			tooMany[i] = ewoq
		}
		for _, addrs := range []any{[]string{ewoq}, []string{recipient, ewoq, n.Addr.String()}, []string{recipient}, []string{},
			[]string{"nope"}, []string{n.FormatAddress("X", n.Addr)}, tooMany, "nope"} {
			for _, validatorsOnly := range []any{nil, true, false} {
				for _, enc := range []any{nil, "hex", "hexnc", "json", "nope"} {
					params := withEncoding(map[string]any{"addresses": addrs}, enc)
					if validatorsOnly != nil {
						params["validatorsOnly"] = validatorsOnly
					}
					same("platform.getStake", params)
				}
			}
		}
		same("platform.getStake", map[string]any{})
		for _, chain := range []any{constants.PlatformChainID.String(), n.XChainID.String(), n.CChainID.String(),
			issued.ChainID.String(), issued.SubnetID.String(), ids.GenerateTestID().String(), "nope", "", nil} {
			params := map[string]any{}
			if chain != nil {
				params["blockchainID"] = chain
			}
			same("platform.validatedBy", params)
		}
	})
}
