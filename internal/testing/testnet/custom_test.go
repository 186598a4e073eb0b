package testnet_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/utils/set"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"

	"github.com/avaindex/avaindex/internal/testing/testnet"
)

func TestCustomNetwork(t *testing.T) {
	start := time.Now()
	n := testnet.GetCustom(t)
	t.Logf("custom network ready in %s (includes the start when this test ran first)", time.Since(start).Round(time.Millisecond))
	if again := testnet.GetCustom(t); again != n {
		t.Error("GetCustom returned a second network")
	}
	ctx := testCtx(t, time.Minute)

	if n.NetworkID != testnet.CustomNetworkID || n.HRP != "custom" {
		t.Errorf("network %d HRP %q, want %d custom", n.NetworkID, n.HRP, testnet.CustomNetworkID)
	}
	if !strings.HasPrefix(n.Address, "custom1") || n.PAddress() != "P-"+n.Address {
		t.Errorf("address %s", n.Address)
	}
	if n.EVMChainID != uint64(testnet.CustomNetworkID) {
		t.Errorf("EVMChainID = %d, want %d", n.EVMChainID, testnet.CustomNetworkID)
	}
	if n.PChainID != constants.PlatformChainID || n.XChainID == ids.Empty || n.CChainID == ids.Empty || n.XChainID == n.CChainID {
		t.Errorf("chain ids P %s X %s C %s", n.PChainID, n.XChainID, n.CChainID)
	}
	for alias, want := range map[string]ids.ID{"X": n.XChainID, "C": n.CChainID} {
		got, err := n.InfoClient().GetBlockchainID(ctx, alias)
		if err != nil || got != want {
			t.Errorf("info.getBlockchainID %s = %s, %v; want %s", alias, got, err, want)
		}
	}
	if n.AVAXAssetID == ids.Empty {
		t.Error("no AVAX asset id")
	}

	// The node is the network's only validator, with sybil protection on.
	vdrs, err := n.PClient().GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(vdrs) != 1 || vdrs[0].NodeID != n.NodeID {
		t.Errorf("primary validators = %+v, want only the node %s", vdrs, n.NodeID)
	}
	bal, err := n.PClient().GetBalance(ctx, []ids.ShortID{n.Addr})
	if err != nil {
		t.Fatal(err)
	}
	if uint64(bal.Unlocked) == 0 {
		t.Errorf("local key has no unlocked P-chain funds on the custom network")
	}
}

func TestCustomL1Lifecycle(t *testing.T) {
	t.Parallel()
	start := time.Now()
	n := testnet.GetCustom(t)
	started := time.Since(start)
	ctx := testCtx(t, 3*time.Minute)
	pc := n.PClient()

	start = time.Now()
	out, err := n.IssueL1Lifecycle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("GetCustom %s, IssueL1Lifecycle %s (%d epoch txs)", started.Round(time.Millisecond),
		time.Since(start).Round(time.Millisecond), len(out.EpochTxs))

	issued := map[string]ids.ID{
		"CreateSubnetTx":               out.CreateSubnetTx,
		"CreateChainTx":                out.CreateChainTx,
		"ConvertSubnetToL1Tx":          out.ConvertSubnetToL1Tx,
		"RegisterL1ValidatorTx":        out.RegisterL1ValidatorTx,
		"SetL1ValidatorWeightTx":       out.SetL1ValidatorWeightTx,
		"IncreaseL1ValidatorBalanceTx": out.IncreaseL1ValidatorBalanceTx,
		"DisableL1ValidatorTx":         out.DisableL1ValidatorTx,
	}
	for i, id := range out.EpochTxs {
		issued[fmt.Sprintf("EpochTx%d", i)] = id
	}
	for name, id := range issued {
		if id == ids.Empty {
			t.Errorf("%s not issued", name)
			continue
		}
		requirePCommitted(ctx, t, n, id)
	}

	l1, reg := out.L1, out.Registered
	if out.CreateSubnetTx != l1.SubnetID || out.CreateChainTx != l1.ManagerChainID {
		t.Errorf("L1 %+v does not match its txs", l1)
	}
	subnet, err := pc.GetSubnet(ctx, l1.SubnetID)
	if err != nil {
		t.Fatal(err)
	}
	if subnet.IsPermissioned || subnet.ManagerChainID != l1.ManagerChainID || string(subnet.ManagerAddress) != string(l1.ManagerAddress) {
		t.Errorf("converted subnet = %+v", subnet)
	}

	// The txs are the ones described.
	if tx, ok := getPTx(ctx, t, n, out.RegisterL1ValidatorTx).Unsigned.(*txs.RegisterL1ValidatorTx); !ok || tx.Balance != testnet.L1RegisteredBalance {
		t.Errorf("RegisterL1ValidatorTx = %+v", tx)
	} else {
		msg := parseL1Message(t, l1, tx.Message)
		if r, ok := msg.(*message.RegisterL1Validator); !ok || r.ValidationID() != reg.ValidationID || r.Weight != testnet.L1RegisteredWeight || r.SubnetID != l1.SubnetID {
			t.Errorf("RegisterL1ValidatorTx message = %+v", msg)
		}
	}
	if tx, ok := getPTx(ctx, t, n, out.SetL1ValidatorWeightTx).Unsigned.(*txs.SetL1ValidatorWeightTx); !ok {
		t.Errorf("SetL1ValidatorWeightTx = %T", tx)
	} else {
		msg := parseL1Message(t, l1, tx.Message)
		if w, ok := msg.(*message.L1ValidatorWeight); !ok || w.ValidationID != reg.ValidationID || w.Weight != testnet.L1UpdatedWeight || w.Nonce != 0 {
			t.Errorf("SetL1ValidatorWeightTx message = %+v", msg)
		}
	}
	if tx, ok := getPTx(ctx, t, n, out.IncreaseL1ValidatorBalanceTx).Unsigned.(*txs.IncreaseL1ValidatorBalanceTx); !ok || tx.ValidationID != reg.ValidationID || tx.Balance != testnet.L1BalanceIncrease {
		t.Errorf("IncreaseL1ValidatorBalanceTx = %+v", tx)
	}
	if tx, ok := getPTx(ctx, t, n, out.DisableL1ValidatorTx).Unsigned.(*txs.DisableL1ValidatorTx); !ok || tx.ValidationID != reg.ValidationID {
		t.Errorf("DisableL1ValidatorTx = %+v", tx)
	}

	// The registered validator has the new weight, and is disabled: no
	// balance left.
	v, _, err := pc.GetL1Validator(ctx, reg.ValidationID)
	if err != nil {
		t.Fatal(err)
	}
	if v.SubnetID != l1.SubnetID || v.NodeID != reg.NodeID || v.Weight != testnet.L1UpdatedWeight || v.MinNonce != 1 || v.Balance != 0 ||
		v.PublicKey == nil || !bytes.Equal(bls.PublicKeyToCompressedBytes(v.PublicKey), bls.PublicKeyToCompressedBytes(reg.PublicKey())) {
		t.Errorf("registered validator = %+v, want node %s weight %d min nonce 1 balance 0", v, reg.NodeID, testnet.L1UpdatedWeight)
	}
	// The conversion's validator is untouched and still active.
	first := l1.Validators()[0]
	v, _, err = pc.GetL1Validator(ctx, first.ValidationID)
	if err != nil {
		t.Fatal(err)
	}
	if v.NodeID != first.NodeID || v.Weight != testnet.L1ValidatorWeight || v.Balance == 0 {
		t.Errorf("conversion validator = %+v", v)
	}
	cur, err := pc.GetCurrentValidators(ctx, l1.SubnetID, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := currentByNode(cur)
	if c, ok := got[first.NodeID]; !ok || c.Weight != testnet.L1ValidatorWeight {
		t.Errorf("L1 current validators %+v lack the conversion's %s", cur, first.NodeID)
	}
	if c, ok := got[reg.NodeID]; ok && (c.Weight != testnet.L1UpdatedWeight || c.Balance == nil || *c.Balance != 0) {
		t.Errorf("L1 current validator %s = %+v, want weight %d balance 0", reg.NodeID, c, testnet.L1UpdatedWeight)
	}
}

// TestCustomL1Steps runs the lifecycle one helper at a time and checks the
// node's state after each, including a warp message signed by two
// validators once both are in the epoch's validator set.
func TestCustomL1Steps(t *testing.T) {
	t.Parallel()
	n := testnet.GetCustom(t)
	ctx := testCtx(t, 3*time.Minute)
	pc := n.PClient()

	l1, err := n.CreateL1(ctx)
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, l1.ConvertSubnetToL1Tx)
	cur, err := pc.GetCurrentValidators(ctx, l1.SubnetID, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := l1.Validators()[0]
	if len(cur) != 1 || cur[0].NodeID != first.NodeID || cur[0].Weight != testnet.L1ValidatorWeight {
		t.Fatalf("L1 validators after conversion = %+v", cur)
	}

	reg, err := n.RegisterL1Validator(ctx, l1, testnet.L1RegisteredWeight, testnet.L1RegisteredBalance)
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, reg.TxID)
	v, _, err := pc.GetL1Validator(ctx, reg.ValidationID)
	if err != nil {
		t.Fatal(err)
	}
	if v.NodeID != reg.NodeID || v.Weight != testnet.L1RegisteredWeight || v.Balance == 0 || v.Balance > testnet.L1RegisteredBalance || v.MinNonce != 0 {
		t.Errorf("registered validator = %+v", v)
	}
	cur, err = pc.GetCurrentValidators(ctx, l1.SubnetID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := currentByNode(cur); len(got) != 2 || got[reg.NodeID].Weight != testnet.L1RegisteredWeight {
		t.Errorf("L1 validators after registration = %+v", cur)
	}

	// Once an epoch sees both validators, both sign.
	height, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.AdvanceEpoch(ctx, height); err != nil {
		t.Fatal(err)
	}
	setID, err := n.SetL1ValidatorWeight(ctx, l1, reg.ValidationID, 0, testnet.L1UpdatedWeight)
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, setID)
	if tx, ok := getPTx(ctx, t, n, setID).Unsigned.(*txs.SetL1ValidatorWeightTx); ok {
		msg, err := warp.ParseMessage(tx.Message)
		if err != nil {
			t.Fatal(err)
		}
		sig, ok := msg.Signature.(*warp.BitSetSignature)
		if !ok || set.BitsFromBytes(sig.Signers).Len() != 2 {
			t.Errorf("SetL1ValidatorWeightTx signature %s, want two signers", msg.Signature)
		}
	} else {
		t.Errorf("%s is not a SetL1ValidatorWeightTx", setID)
	}
	before, _, err := pc.GetL1Validator(ctx, reg.ValidationID)
	if err != nil {
		t.Fatal(err)
	}
	if before.Weight != testnet.L1UpdatedWeight || before.MinNonce != 1 {
		t.Errorf("validator after SetL1ValidatorWeightTx = %+v", before)
	}

	incID, err := n.IncreaseL1ValidatorBalance(ctx, reg.ValidationID, testnet.L1BalanceIncrease)
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, incID)
	after, _, err := pc.GetL1Validator(ctx, reg.ValidationID)
	if err != nil {
		t.Fatal(err)
	}
	// The balance pays a continuous fee, so it only nearly grows by the
	// increase.
	if after.Balance <= before.Balance || after.Balance > before.Balance+testnet.L1BalanceIncrease {
		t.Errorf("balance %d after increasing %d by %d", after.Balance, before.Balance, testnet.L1BalanceIncrease)
	}

	disID, err := n.DisableL1Validator(ctx, reg.ValidationID)
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, disID)
	v, _, err = pc.GetL1Validator(ctx, reg.ValidationID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Balance != 0 || v.Weight != testnet.L1UpdatedWeight {
		t.Errorf("disabled validator = %+v, want balance 0", v)
	}
}

// parseL1Message returns the L1 message a warp message carries and checks
// that it comes from l1's manager.
func parseL1Message(t *testing.T, l1 *testnet.L1, b []byte) any {
	t.Helper()
	msg, err := warp.ParseMessage(b)
	if err != nil {
		t.Fatal(err)
	}
	if msg.SourceChainID != l1.ManagerChainID || msg.NetworkID != testnet.CustomNetworkID {
		t.Errorf("warp message from chain %s on network %d", msg.SourceChainID, msg.NetworkID)
	}
	call, err := payload.ParseAddressedCall(msg.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if string(call.SourceAddress) != string(l1.ManagerAddress) {
		t.Errorf("warp message from address %x, want %x", call.SourceAddress, l1.ManagerAddress)
	}
	p, err := message.Parse(call.Payload)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func currentByNode(vdrs []platformvm.ClientPermissionlessValidator) map[ids.NodeID]platformvm.ClientPermissionlessValidator {
	m := make(map[ids.NodeID]platformvm.ClientPermissionlessValidator, len(vdrs))
	for _, v := range vdrs {
		m[v.NodeID] = v
	}
	return m
}
