package testnet_test

import (
	"bytes"
	"math/big"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestL1 checks the subnet-evm L1 on a real node: the P-chain records the
// chain with subnet-evm's VM and the genesis, the subnet is an L1 whose only
// validator is the node, and the chain keeps making blocks after the
// conversion and the restart, with the genesis's fee config and precompiles.
func TestL1(t *testing.T) {
	start := time.Now()
	l := testnet.GetL1(t)
	t.Logf("L1 ready in %s (includes the build and start when this test ran first)", time.Since(start).Round(time.Millisecond))
	if again := testnet.GetL1(t); again != l {
		t.Error("GetL1 returned a second L1")
	}
	ctx := testCtx(t, 2*time.Minute)

	// The P-chain's record of the chain.
	chains, err := l.Net.PClient().GetBlockchains(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range chains {
		if c.ID == l.BlockchainID {
			found = true
			if c.SubnetID != l.SubnetID || c.VMID.String() != "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy" || c.Name != testnet.L1ChainName {
				t.Errorf("P-chain blockchain %+v, want subnet %s, subnet-evm, %q", c, l.SubnetID, testnet.L1ChainName)
			}
		}
	}
	if !found {
		t.Fatalf("platform.getBlockchains has no %s", l.BlockchainID)
	}
	tx, err := l.Net.PClient().GetTx(ctx, l.BlockchainID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(tx, l.Genesis) {
		t.Error("the CreateChainTx does not carry the genesis")
	}

	// The subnet is an L1 validated by the node.
	sub, err := l.Net.PClient().GetSubnet(ctx, l.SubnetID)
	if err != nil {
		t.Fatal(err)
	}
	if sub.ManagerChainID != l.BlockchainID || sub.ConversionID == ids.Empty {
		t.Errorf("platform.getSubnet = %+v, want converted with manager chain %s", sub, l.BlockchainID)
	}
	vdrs, err := l.Net.PClient().GetCurrentValidators(ctx, l.SubnetID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(vdrs) != 1 || vdrs[0].NodeID != l.Node || vdrs[0].Weight != testnet.L1NodeWeight {
		t.Errorf("L1 validators %+v, want the node %s of weight %d", vdrs, l.Node, testnet.L1NodeWeight)
	}
	status, err := l.Net.PClient().GetBlockchainStatus(ctx, l.BlockchainID.String())
	if err != nil || status.String() != "Validating" {
		t.Errorf("platform.getBlockchainStatus = %v, %v; want Validating", status, err)
	}

	// The chain makes blocks: a transfer moves exactly its value.
	ec, err := l.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	to := common.BigToAddress(big.NewInt(time.Now().UnixNano()))
	value := big.NewInt(123_456_789)
	r, err := l.SendEVMTx(ctx, &to, value, nil, 21_000)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ec.BalanceAt(ctx, to, r.BlockNumber)
	if err != nil || got.Cmp(value) != 0 {
		t.Errorf("balance of %s after the transfer = %v, %v; want %s", to, got, err, value)
	}
	funded, err := ec.BalanceAt(ctx, l.Net.EthAddr, big.NewInt(0))
	if err != nil || funded.Cmp(testnet.L1Funds) != 0 {
		t.Errorf("the key's genesis balance = %v, %v; want %s", funded, err, testnet.L1Funds)
	}
	head, err := ec.HeaderByNumber(ctx, r.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	if head.BaseFee == nil || head.BaseFee.Cmp(testnet.L1MinBaseFee) < 0 || head.GasLimit != 20_000_000 {
		t.Errorf("block %s base fee %v gas limit %d, want at least %s and 20000000", r.BlockNumber, head.BaseFee, head.GasLimit, testnet.L1MinBaseFee)
	}

	// The genesis's precompiles are on: the local key is admin of each.
	for name, addr := range map[string]string{
		"native minter":            "0x0200000000000000000000000000000000000001",
		"contract deployer allows": "0x0200000000000000000000000000000000000000",
		"fee manager":              "0x0200000000000000000000000000000000000003",
	} {
		var role string
		call := map[string]string{"to": addr, "data": "0xeb54dae1" + common.BytesToHash(l.Net.EthAddr.Bytes()).Hex()[2:]}
		if err := ec.Client().CallContext(ctx, &role, "eth_call", call, "latest"); err != nil {
			t.Errorf("%s readAllowList: %v", name, err)
			continue
		}
		if new(big.Int).SetBytes(common.FromHex(role)).Uint64() != 2 { // admin
			t.Errorf("%s: the key's role %s, want admin (2)", name, role)
		}
	}
	var warpID string
	if err := ec.Client().CallContext(ctx, &warpID, "eth_call",
		map[string]string{"to": "0x0200000000000000000000000000000000000005", "data": "0x4213cf78"}, "latest"); err != nil {
		t.Errorf("warp getBlockchainID: %v", err)
	} else if common.HexToHash(warpID) != common.Hash(l.BlockchainID) {
		t.Errorf("warp getBlockchainID = %s, want %s", warpID, l.BlockchainID)
	}
}
