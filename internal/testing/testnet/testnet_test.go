package testnet_test

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/client"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/choices"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/status"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"
	"github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"

	avajson "github.com/ava-labs/avalanchego/utils/json"
	avmtxs "github.com/ava-labs/avalanchego/vms/avm/txs"

	"github.com/avaindex/avaindex/internal/testing/testnet"
)

func TestMain(m *testing.M) { os.Exit(testnet.Main(m)) }

func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestNetwork(t *testing.T) {
	n := testnet.Get(t)
	ctx := testCtx(t, time.Minute)

	u, err := url.Parse(n.URL)
	if err != nil {
		t.Fatal(err)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		t.Errorf("URL %s is not on loopback", n.URL)
	}
	if n.NetworkID != 12345 {
		t.Errorf("NetworkID = %d, want 12345", n.NetworkID)
	}
	if n.Address != "local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u" || n.PAddress() != "P-"+n.Address || n.XAddress() != "X-"+n.Address {
		t.Errorf("addresses %s %s %s", n.Address, n.PAddress(), n.XAddress())
	}
	if n.EthAddr != common.HexToAddress("0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC") {
		t.Errorf("EthAddr = %s", n.EthAddr)
	}
	if n.Key.Address() != n.Addr {
		t.Errorf("Addr %s is not the key's address", n.Addr)
	}
	if n.EVMChainID != 43112 {
		t.Errorf("EVMChainID = %d, want 43112", n.EVMChainID)
	}
	if n.MinValidatorStake != 2000*units.Avax || n.MinDelegatorStake != 25*units.Avax {
		t.Errorf("min stakes = %d, %d; want 2000 and 25 AVAX", n.MinValidatorStake, n.MinDelegatorStake)
	}

	// The chain ids agree with what the node serves under the aliases.
	chains, err := n.PClient().GetBlockchains(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[ids.ID]string{}
	for _, c := range chains {
		names[c.ID] = c.Name
	}
	if n.XChainID == ids.Empty || names[n.XChainID] != "X-Chain" {
		t.Errorf("XChainID %s is %q on the P-chain", n.XChainID, names[n.XChainID])
	}
	if n.CChainID == ids.Empty || names[n.CChainID] != "C-Chain" {
		t.Errorf("CChainID %s is %q on the P-chain", n.CChainID, names[n.CChainID])
	}
	if n.PChainID != constants.PlatformChainID {
		t.Errorf("PChainID = %s", n.PChainID)
	}
	for _, alias := range []string{"P", "X", "C"} {
		id, err := n.ChainID(alias)
		if err != nil {
			t.Fatal(err)
		}
		got, err := n.InfoClient().GetBlockchainID(ctx, alias)
		if err != nil {
			t.Fatal(err)
		}
		if got != id {
			t.Errorf("ChainID(%s) = %s, node says %s", alias, id, got)
		}
	}
	desc, err := n.XClient().GetAssetDescription(ctx, n.AVAXAssetID.String())
	if err != nil {
		t.Fatal(err)
	}
	if desc.Symbol != "AVAX" || desc.Denomination != 9 {
		t.Errorf("AVAXAssetID %s describes %q/%d", n.AVAXAssetID, desc.Symbol, desc.Denomination)
	}
	staking, err := n.PClient().GetStakingAssetID(ctx, constants.PrimaryNetworkID)
	if err != nil {
		t.Fatal(err)
	}
	if staking != n.AVAXAssetID {
		t.Errorf("staking asset %s != AVAXAssetID %s", staking, n.AVAXAssetID)
	}

	// The key is funded on every chain.
	if b := pBalance(ctx, t, n, n.PAddress()); b < units.MegaAvax {
		t.Errorf("P balance of %s = %d", n.PAddress(), b)
	}
	if b := xBalance(ctx, t, n, n.XAddress(), "AVAX"); b < units.MegaAvax {
		t.Errorf("X balance of %s = %d", n.XAddress(), b)
	}
	if b := evmBalance(ctx, t, n, n.EthAddr); b.Sign() <= 0 {
		t.Errorf("C balance of %s = %s", n.EthAddr, b)
	}

	// Get returns the same network.
	if testnet.Get(t) != n {
		t.Error("second Get returned another network")
	}
}

func TestPBaseTx(t *testing.T) {
	n := testnet.Get(t)
	ctx := testCtx(t, 2*time.Minute)
	to := newAddr(t)
	const amount = 3 * units.Avax

	txID, err := n.PBaseTx(ctx, to, amount)
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, txID)
	if got := pBalance(ctx, t, n, n.FormatAddress("P", to)); got != amount {
		t.Errorf("recipient P balance = %d, want %d", got, amount)
	}
	tx := getPTx(ctx, t, n, txID)
	base, ok := tx.Unsigned.(*txs.BaseTx)
	if !ok {
		t.Fatalf("P tx %s is %T, want *txs.BaseTx", txID, tx.Unsigned)
	}
	if got := sumTo(base.Outs, to); got != amount {
		t.Errorf("BaseTx pays %d to the recipient, want %d", got, amount)
	}
}

func TestSubnetChainAndL1Conversion(t *testing.T) {
	n := testnet.Get(t)
	ctx := testCtx(t, 2*time.Minute)
	pc := n.PClient()

	if got := testnet.SubnetEVMID.String(); got != "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy" {
		t.Errorf("SubnetEVMID = %s", got)
	}

	subnetID, err := n.CreateSubnet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, subnetID)
	subnet, err := pc.GetSubnet(ctx, subnetID)
	if err != nil {
		t.Fatal(err)
	}
	if !subnet.IsPermissioned || subnet.Threshold != 1 || !slices.Equal(subnet.ControlKeys, []ids.ShortID{n.Addr}) {
		t.Errorf("new subnet = %+v", subnet)
	}

	chainID, err := n.CreateChain(ctx, subnetID, "testnet chain")
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, chainID)
	chains, err := pc.GetBlockchains(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(chains, func(c platformvm.APIBlockchain) bool { return c.ID == chainID })
	if i < 0 {
		t.Fatalf("chain %s not listed by platform.getBlockchains", chainID)
	}
	if c := chains[i]; c.SubnetID != subnetID || c.VMID != testnet.SubnetEVMID || c.Name != "testnet chain" {
		t.Errorf("listed chain = %+v", c)
	}
	cc, ok := getPTx(ctx, t, n, chainID).Unsigned.(*txs.CreateChainTx)
	if !ok || !bytes.Equal(cc.GenesisData, testnet.SubnetEVMGenesis) {
		t.Errorf("CreateChainTx %s not as issued", chainID)
	}

	conv, err := n.ConvertSubnetToL1(ctx, subnetID, chainID)
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, conv.TxID)
	subnet, err = pc.GetSubnet(ctx, subnetID)
	if err != nil {
		t.Fatal(err)
	}
	if subnet.IsPermissioned || subnet.ManagerChainID != chainID || !bytes.Equal(subnet.ManagerAddress, conv.ManagerAddress) || subnet.ConversionID == ids.Empty {
		t.Errorf("converted subnet = %+v", subnet)
	}
	if conv.ValidationID != subnetID.Append(0) {
		t.Errorf("ValidationID = %s", conv.ValidationID)
	}
	vdr, _, err := pc.GetL1Validator(ctx, conv.ValidationID)
	if err != nil {
		t.Fatal(err)
	}
	if vdr.SubnetID != subnetID || vdr.NodeID != conv.NodeID || vdr.Weight != testnet.L1ValidatorWeight ||
		vdr.Balance == 0 || vdr.Balance > testnet.L1ValidatorBalance || vdr.PublicKey == nil {
		t.Errorf("L1 validator = %+v", vdr)
	}
	l1, err := pc.GetCurrentValidators(ctx, subnetID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(l1) != 1 || l1[0].NodeID != conv.NodeID {
		t.Errorf("L1 current validators = %+v", l1)
	}
}

func TestStakingRewards(t *testing.T) {
	n := testnet.Get(t)
	ctx := testCtx(t, 2*time.Minute)
	pc := n.PClient()

	vdr, err := n.AddValidator(ctx, 12*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, vdr.TxID)
	del, err := n.AddDelegator(ctx, vdr.NodeID, vdr.End)
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, del.TxID)

	current, err := pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, []ids.NodeID{vdr.NodeID})
	if err != nil {
		t.Fatal(err)
	}
	if len(current) != 1 {
		t.Fatalf("validator %s: current validators = %+v", vdr.NodeID, current)
	}
	v := current[0]
	if v.TxID != vdr.TxID || v.Weight != n.MinValidatorStake || v.EndTime != uint64(vdr.End.Unix()) || v.Signer == nil {
		t.Errorf("current validator = %+v, want tx %s weight %d end %d", v.ClientStaker, vdr.TxID, n.MinValidatorStake, vdr.End.Unix())
	}
	if len(v.Delegators) != 1 || v.Delegators[0].TxID != del.TxID || v.Delegators[0].Weight != n.MinDelegatorStake {
		t.Errorf("delegators = %+v, want %s", v.Delegators, del.TxID)
	}

	for _, s := range []*testnet.Staker{del, vdr} {
		r, err := n.WaitRewarded(ctx, s.TxID)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Committed {
			t.Errorf("staker %s: reward tx %s aborted", s.TxID, r.TxID)
		}
		requirePCommitted(ctx, t, n, r.TxID)
		rtx, ok := getPTx(ctx, t, n, r.TxID).Unsigned.(*txs.RewardValidatorTx)
		if !ok || rtx.TxID != s.TxID {
			t.Errorf("reward tx %s does not reward %s", r.TxID, s.TxID)
		}
		utxos, err := pc.GetRewardUTXOs(ctx, &api.GetTxArgs{TxID: s.TxID})
		if err != nil {
			t.Fatal(err)
		}
		if len(utxos) == 0 {
			t.Errorf("staker %s got no reward UTXOs", s.TxID)
		}
	}
	if time.Now().Before(vdr.End) {
		t.Errorf("rewarded before the validator's end time %s", vdr.End)
	}
	current, err = pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, []ids.NodeID{vdr.NodeID})
	if err != nil {
		t.Fatal(err)
	}
	if len(current) != 0 {
		t.Errorf("validator still current after its reward: %+v", current)
	}
}

func TestAtomicPX(t *testing.T) {
	n := testnet.Get(t)
	ctx := testCtx(t, 2*time.Minute)
	const amount = 5 * units.Avax
	xFee, _, err := n.XClient().GetTxFee(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// P -> X.
	xBefore := xBalance(ctx, t, n, n.XAddress(), "AVAX")
	exportID, err := n.ExportP(ctx, n.XChainID, amount)
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, exportID)
	exp, ok := getPTx(ctx, t, n, exportID).Unsigned.(*txs.ExportTx)
	if !ok || exp.DestinationChain != n.XChainID || sumTo(exp.ExportedOutputs, n.Addr) != amount {
		t.Fatalf("P export %s not as issued", exportID)
	}
	if !slices.Contains(xAtomicUTXOTxs(ctx, t, n, "P"), exportID) {
		t.Fatalf("X-chain sees no atomic UTXO from P export %s", exportID)
	}
	importID, err := n.ImportX(ctx, n.PChainID)
	if err != nil {
		t.Fatal(err)
	}
	requireXAccepted(ctx, t, n, importID)
	imp, ok := getXTx(ctx, t, n, importID).Unsigned.(*avmtxs.ImportTx)
	if !ok || imp.SourceChain != n.PChainID {
		t.Fatalf("X import %s not as issued", importID)
	}
	if !consumes(imp.ImportedIns, exportID) {
		t.Errorf("X import %s does not consume export %s", importID, exportID)
	}
	imported := sumIns(imp.ImportedIns)
	if got := xBalance(ctx, t, n, n.XAddress(), "AVAX"); got != xBefore+imported-xFee {
		t.Errorf("X balance %d -> %d, want +%d-%d", xBefore, got, imported, xFee)
	}
	if slices.Contains(xAtomicUTXOTxs(ctx, t, n, "P"), exportID) {
		t.Errorf("atomic UTXO of %s still there after import", exportID)
	}

	// X -> P.
	xBefore = xBalance(ctx, t, n, n.XAddress(), "AVAX")
	exportID, err = n.ExportX(ctx, n.PChainID, amount)
	if err != nil {
		t.Fatal(err)
	}
	requireXAccepted(ctx, t, n, exportID)
	if got := xBalance(ctx, t, n, n.XAddress(), "AVAX"); got != xBefore-amount-xFee {
		t.Errorf("X balance %d -> %d after exporting %d", xBefore, got, amount)
	}
	if !slices.Contains(pAtomicUTXOTxs(ctx, t, n, "X"), exportID) {
		t.Fatalf("P-chain sees no atomic UTXO from X export %s", exportID)
	}
	importID, err = n.ImportP(ctx, n.XChainID)
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, importID)
	pimp, ok := getPTx(ctx, t, n, importID).Unsigned.(*txs.ImportTx)
	if !ok || pimp.SourceChain != n.XChainID || !consumes(pimp.ImportedInputs, exportID) {
		t.Fatalf("P import %s not as issued", importID)
	}
	if out := sumTo(pimp.Outs, n.Addr); out == 0 || out >= sumIns(pimp.ImportedInputs) {
		t.Errorf("P import pays %d of %d imported", out, sumIns(pimp.ImportedInputs))
	}
	if slices.Contains(pAtomicUTXOTxs(ctx, t, n, "X"), exportID) {
		t.Errorf("atomic UTXO of %s still there after import", exportID)
	}
}

func TestXBaseTxAndAsset(t *testing.T) {
	n := testnet.Get(t)
	ctx := testCtx(t, 2*time.Minute)
	to := newAddr(t)
	const amount = 2 * units.Avax

	txID, err := n.XBaseTx(ctx, to, amount)
	if err != nil {
		t.Fatal(err)
	}
	requireXAccepted(ctx, t, n, txID)
	if got := xBalance(ctx, t, n, n.FormatAddress("X", to), "AVAX"); got != amount {
		t.Errorf("recipient X balance = %d, want %d", got, amount)
	}

	assetID, err := n.CreateAsset(ctx, "Test Coin", "TSTC", 3, 5000)
	if err != nil {
		t.Fatal(err)
	}
	requireXAccepted(ctx, t, n, assetID)
	desc, err := n.XClient().GetAssetDescription(ctx, assetID.String())
	if err != nil {
		t.Fatal(err)
	}
	if desc.AssetID != assetID || desc.Name != "Test Coin" || desc.Symbol != "TSTC" || desc.Denomination != 3 {
		t.Errorf("asset description = %+v", desc)
	}
	if got := xBalance(ctx, t, n, n.XAddress(), assetID.String()); got != 5000 {
		t.Errorf("key holds %d of the new asset, want 5000", got)
	}
}

func TestAtomicC(t *testing.T) {
	n := testnet.Get(t)
	ctx := testCtx(t, 2*time.Minute)
	const amount = 7 * units.Avax
	wei := new(big.Int).Mul(new(big.Int).SetUint64(amount), big.NewInt(1e9))

	// C -> P.
	before := evmBalance(ctx, t, n, n.EthAddr)
	exportID, err := n.ExportC(ctx, n.PChainID, amount)
	if err != nil {
		t.Fatal(err)
	}
	requireCAccepted(ctx, t, n, exportID)
	cexp, ok := getCTx(ctx, t, n, exportID).UnsignedAtomicTx.(*atomic.UnsignedExportTx)
	if !ok || cexp.DestinationChain != n.PChainID || sumTo(cexp.ExportedOutputs, n.Addr) != amount {
		t.Fatalf("C export %s not as issued", exportID)
	}
	if spent := new(big.Int).Sub(before, evmBalance(ctx, t, n, n.EthAddr)); spent.Cmp(wei) <= 0 {
		t.Errorf("C export spent %s wei, want more than %s", spent, wei)
	}
	if !slices.Contains(pAtomicUTXOTxs(ctx, t, n, "C"), exportID) {
		t.Fatalf("P-chain sees no atomic UTXO from C export %s", exportID)
	}
	importID, err := n.ImportP(ctx, n.CChainID)
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, importID)
	if pimp, ok := getPTx(ctx, t, n, importID).Unsigned.(*txs.ImportTx); !ok || !consumes(pimp.ImportedInputs, exportID) {
		t.Errorf("P import %s does not consume C export %s", importID, exportID)
	}

	// P -> C.
	exportID, err = n.ExportP(ctx, n.CChainID, amount)
	if err != nil {
		t.Fatal(err)
	}
	requirePCommitted(ctx, t, n, exportID)
	if !slices.Contains(cAtomicUTXOTxs(ctx, t, n, "P"), exportID) {
		t.Fatalf("C-chain sees no atomic UTXO from P export %s", exportID)
	}
	before = evmBalance(ctx, t, n, n.EthAddr)
	importID, err = n.ImportC(ctx, n.PChainID)
	if err != nil {
		t.Fatal(err)
	}
	requireCAccepted(ctx, t, n, importID)
	cimp, ok := getCTx(ctx, t, n, importID).UnsignedAtomicTx.(*atomic.UnsignedImportTx)
	if !ok || cimp.SourceChain != n.PChainID || !consumes(cimp.ImportedInputs, exportID) {
		t.Fatalf("C import %s not as issued", importID)
	}
	gained := new(big.Int).Sub(evmBalance(ctx, t, n, n.EthAddr), before)
	importedWei := new(big.Int).Mul(new(big.Int).SetUint64(sumIns(cimp.ImportedInputs)), big.NewInt(1e9))
	if gained.Sign() <= 0 || gained.Cmp(importedWei) >= 0 {
		t.Errorf("C import credited %s wei of %s imported", gained, importedWei)
	}
	if slices.Contains(cAtomicUTXOTxs(ctx, t, n, "P"), exportID) {
		t.Errorf("atomic UTXO of %s still there after import", exportID)
	}
}

func TestEVM(t *testing.T) {
	n := testnet.Get(t)
	ctx := testCtx(t, 2*time.Minute)
	ec, err := n.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()

	to := newKey(t).EthAddress()
	value := big.NewInt(123_456_789)
	hash, err := n.SendEVM(ctx, to, value)
	if err != nil {
		t.Fatal(err)
	}
	r := receipt(ctx, t, n, hash)
	if r.Status != types.ReceiptStatusSuccessful {
		t.Errorf("transfer receipt status %d", r.Status)
	}
	if got := evmBalance(ctx, t, n, to); got.Cmp(value) != 0 {
		t.Errorf("recipient balance = %s, want %s", got, value)
	}
	tx, pending, err := ec.TransactionByHash(ctx, hash)
	if err != nil || pending || tx.To() == nil || *tx.To() != to || tx.ChainId().Uint64() != 43112 {
		t.Errorf("transfer tx %s: %v pending=%v", hash, err, pending)
	}

	hash, addr, err := n.DeployContract(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r = receipt(ctx, t, n, hash)
	if r.Status != types.ReceiptStatusSuccessful || r.ContractAddress != addr {
		t.Errorf("deploy receipt status %d contract %s, want 1 and %s", r.Status, r.ContractAddress, addr)
	}
	word := common.LeftPadBytes([]byte{42}, 32)
	if len(r.Logs) != 1 || r.Logs[0].Address != addr || !bytes.Equal(r.Logs[0].Data, word) {
		t.Errorf("deploy logs = %+v", r.Logs)
	}
	code, err := ec.CodeAt(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(code) == 0 || !bytes.Equal(code, testnet.TestContractRuntime) {
		t.Errorf("code at %s = %x", addr, code)
	}
	out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &addr}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, word) {
		t.Errorf("contract call returned %x", out)
	}
}

func TestIssueAll(t *testing.T) {
	n := testnet.Get(t)
	ctx := testCtx(t, 3*time.Minute)

	start := time.Now()
	got, err := n.IssueAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("IssueAll took %s", took.Round(time.Millisecond))
	if took > 2*time.Minute {
		t.Errorf("IssueAll took %s, too slow", took)
	}

	pTxs := map[string]ids.ID{
		"PBaseTx":           got.PBaseTx,
		"CreateSubnetTx":    got.CreateSubnetTx,
		"CreateChainTx":     got.CreateChainTx,
		"ConvertSubnetToL1": got.ConvertSubnetToL1.TxID,
		"AddValidatorTx":    got.AddValidatorTx,
		"AddDelegatorTx":    got.AddDelegatorTx,
		"RewardValidatorTx": got.RewardValidatorTx,
		"RewardDelegatorTx": got.RewardDelegatorTx,
		"PExportToX":        got.PExportToX,
		"PImportFromX":      got.PImportFromX,
		"PExportToC":        got.PExportToC,
		"PImportFromC":      got.PImportFromC,
	}
	wantType := map[string]txs.UnsignedTx{
		"PBaseTx":           &txs.BaseTx{},
		"CreateSubnetTx":    &txs.CreateSubnetTx{},
		"CreateChainTx":     &txs.CreateChainTx{},
		"ConvertSubnetToL1": &txs.ConvertSubnetToL1Tx{},
		"AddValidatorTx":    &txs.AddPermissionlessValidatorTx{},
		"AddDelegatorTx":    &txs.AddPermissionlessDelegatorTx{},
		"RewardValidatorTx": &txs.RewardValidatorTx{},
		"RewardDelegatorTx": &txs.RewardValidatorTx{},
		"PExportToX":        &txs.ExportTx{},
		"PImportFromX":      &txs.ImportTx{},
		"PExportToC":        &txs.ExportTx{},
		"PImportFromC":      &txs.ImportTx{},
	}
	seen := map[ids.ID]string{}
	for name, id := range pTxs {
		if id == ids.Empty {
			t.Errorf("%s is empty", name)
			continue
		}
		if other, dup := seen[id]; dup {
			t.Errorf("%s and %s are both %s", name, other, id)
		}
		seen[id] = name
		requirePCommitted(ctx, t, n, id)
		if tx := getPTx(ctx, t, n, id); typeName(tx.Unsigned) != typeName(wantType[name]) {
			t.Errorf("%s %s is %T, want %T", name, id, tx.Unsigned, wantType[name])
		}
	}
	if got.SubnetID != got.CreateSubnetTx || got.ChainID != got.CreateChainTx || got.AssetID != got.CreateAssetTx {
		t.Errorf("created ids differ from their tx ids: %+v", got)
	}
	if got.Validator.NodeID != got.Delegator.NodeID {
		t.Errorf("delegator of %s, validator %s", got.Delegator.NodeID, got.Validator.NodeID)
	}
	if rtx := getPTx(ctx, t, n, got.RewardValidatorTx).Unsigned.(*txs.RewardValidatorTx); rtx.TxID != got.AddValidatorTx {
		t.Errorf("RewardValidatorTx rewards %s, want %s", rtx.TxID, got.AddValidatorTx)
	}
	if rtx := getPTx(ctx, t, n, got.RewardDelegatorTx).Unsigned.(*txs.RewardValidatorTx); rtx.TxID != got.AddDelegatorTx {
		t.Errorf("RewardDelegatorTx rewards %s, want %s", rtx.TxID, got.AddDelegatorTx)
	}
	utxos, err := n.PClient().GetRewardUTXOs(ctx, &api.GetTxArgs{TxID: got.AddValidatorTx})
	if err != nil || len(utxos) == 0 {
		t.Errorf("validator reward UTXOs: %d, %v", len(utxos), err)
	}

	for name, id := range map[string]ids.ID{
		"XBaseTx":       got.XBaseTx,
		"CreateAssetTx": got.CreateAssetTx,
		"XImportFromP":  got.XImportFromP,
		"XExportToP":    got.XExportToP,
	} {
		if id == ids.Empty {
			t.Errorf("%s is empty", name)
			continue
		}
		requireXAccepted(ctx, t, n, id)
	}
	if _, ok := getXTx(ctx, t, n, got.CreateAssetTx).Unsigned.(*avmtxs.CreateAssetTx); !ok {
		t.Errorf("CreateAssetTx %s has another type", got.CreateAssetTx)
	}
	for name, id := range map[string]ids.ID{"CExportToP": got.CExportToP, "CImportFromP": got.CImportFromP} {
		if id == ids.Empty {
			t.Errorf("%s is empty", name)
			continue
		}
		requireCAccepted(ctx, t, n, id)
	}
	if got := pBalance(ctx, t, n, n.FormatAddress("P", got.Recipient)); got != testnet.IssueAllTransfer {
		t.Errorf("recipient P balance %d", got)
	}
	if got := xBalance(ctx, t, n, n.FormatAddress("X", got.Recipient), "AVAX"); got != testnet.IssueAllTransfer {
		t.Errorf("recipient X balance %d", got)
	}
	if bal := evmBalance(ctx, t, n, got.EVMRecipient); bal.Cmp(testnet.IssueAllEVMTransfer()) != 0 {
		t.Errorf("EVM recipient balance %s", bal)
	}
	for _, h := range []common.Hash{got.EVMTransfer, got.ContractDeploy} {
		if r := receipt(ctx, t, n, h); r.Status != types.ReceiptStatusSuccessful {
			t.Errorf("EVM tx %s status %d", h, r.Status)
		}
	}
	ec, err := n.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	if code, err := ec.CodeAt(ctx, got.ContractAddress, nil); err != nil || len(code) == 0 {
		t.Errorf("no code at %s: %v", got.ContractAddress, err)
	}
	if l1, _, err := n.PClient().GetL1Validator(ctx, got.ConvertSubnetToL1.ValidationID); err != nil || l1.SubnetID != got.SubnetID {
		t.Errorf("L1 validator %s: %+v %v", got.ConvertSubnetToL1.ValidationID, l1, err)
	}
}

// These need no network.

func TestRewardTxID(t *testing.T) {
	a, err := testnet.RewardTxID(ids.ID{1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := testnet.RewardTxID(ids.ID{2})
	if err != nil {
		t.Fatal(err)
	}
	if a == b || a == ids.Empty {
		t.Errorf("reward tx ids %s %s", a, b)
	}
	tx, err := txs.NewSigned(&txs.RewardValidatorTx{TxID: ids.ID{1}}, txs.Codec, nil)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := txs.Parse(txs.Codec, tx.Bytes())
	if err != nil || parsed.ID() != a {
		t.Errorf("parsed reward tx id %v, %v; want %s", parsed, err, a)
	}
}

// Helpers.

func newKey(t *testing.T) *secp256k1.PrivateKey {
	t.Helper()
	k, err := testnet.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newAddr(t *testing.T) ids.ShortID {
	t.Helper()
	k, err := testnet.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return k.Address()
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }

func requirePCommitted(ctx context.Context, t *testing.T, n *testnet.Network, txID ids.ID) {
	t.Helper()
	resp, err := n.PClient().GetTxStatus(ctx, txID)
	if err != nil {
		t.Fatalf("platform.getTxStatus %s: %v", txID, err)
	}
	if resp.Status != status.Committed {
		t.Fatalf("P tx %s status %s, want Committed", txID, resp.Status)
	}
}

func requireXAccepted(ctx context.Context, t *testing.T, n *testnet.Network, txID ids.ID) {
	t.Helper()
	st, err := n.XClient().GetTxStatus(ctx, txID)
	if err != nil {
		t.Fatalf("avm.getTxStatus %s: %v", txID, err)
	}
	if st != choices.Accepted {
		t.Fatalf("X tx %s status %s, want Accepted", txID, st)
	}
}

func requireCAccepted(ctx context.Context, t *testing.T, n *testnet.Network, txID ids.ID) {
	t.Helper()
	st, err := client.NewCChainClient(n.URL).GetAtomicTxStatus(ctx, txID)
	if err != nil {
		t.Fatalf("avax.getAtomicTxStatus %s: %v", txID, err)
	}
	if st != atomic.Accepted {
		t.Fatalf("C atomic tx %s status %s, want Accepted", txID, st)
	}
}

func getPTx(ctx context.Context, t *testing.T, n *testnet.Network, txID ids.ID) *txs.Tx {
	t.Helper()
	b, err := n.PClient().GetTx(ctx, txID)
	if err != nil {
		t.Fatalf("platform.getTx %s: %v", txID, err)
	}
	tx, err := txs.Parse(txs.Codec, b)
	if err != nil {
		t.Fatalf("parsing P tx %s: %v", txID, err)
	}
	if tx.ID() != txID {
		t.Fatalf("platform.getTx %s returned tx %s", txID, tx.ID())
	}
	return tx
}

func getXTx(ctx context.Context, t *testing.T, n *testnet.Network, txID ids.ID) *avmtxs.Tx {
	t.Helper()
	b, err := n.XClient().GetTx(ctx, txID)
	if err != nil {
		t.Fatalf("avm.getTx %s: %v", txID, err)
	}
	tx, err := builder.Parser.ParseTx(b)
	if err != nil {
		t.Fatalf("parsing X tx %s: %v", txID, err)
	}
	if tx.ID() != txID {
		t.Fatalf("avm.getTx %s returned tx %s", txID, tx.ID())
	}
	return tx
}

func getCTx(ctx context.Context, t *testing.T, n *testnet.Network, txID ids.ID) *atomic.Tx {
	t.Helper()
	b, err := client.NewCChainClient(n.URL).GetAtomicTx(ctx, txID)
	if err != nil {
		t.Fatalf("avax.getAtomicTx %s: %v", txID, err)
	}
	tx, err := atomic.ExtractAtomicTx(b, atomic.Codec)
	if err != nil {
		t.Fatalf("parsing C atomic tx %s: %v", txID, err)
	}
	if tx.ID() != txID {
		t.Fatalf("avax.getAtomicTx %s returned tx %s", txID, tx.ID())
	}
	return tx
}

func pBalance(ctx context.Context, t *testing.T, n *testnet.Network, addr string) uint64 {
	t.Helper()
	var out struct {
		Balance avajson.Uint64 `json:"balance"`
	}
	if err := n.Call(ctx, "/ext/bc/P", "platform.getBalance", map[string]any{"addresses": []string{addr}}, &out); err != nil {
		t.Fatal(err)
	}
	return uint64(out.Balance)
}

func xBalance(ctx context.Context, t *testing.T, n *testnet.Network, addr, asset string) uint64 {
	t.Helper()
	var out struct {
		Balance avajson.Uint64 `json:"balance"`
	}
	if err := n.Call(ctx, "/ext/bc/X", "avm.getBalance", map[string]any{"address": addr, "assetID": asset}, &out); err != nil {
		t.Fatal(err)
	}
	return uint64(out.Balance)
}

func evmBalance(ctx context.Context, t *testing.T, n *testnet.Network, addr common.Address) *big.Int {
	t.Helper()
	ec, err := n.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	b, err := ec.BalanceAt(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func receipt(ctx context.Context, t *testing.T, n *testnet.Network, hash common.Hash) *types.Receipt {
	t.Helper()
	ec, err := n.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	r, err := ec.TransactionReceipt(ctx, hash)
	if err != nil {
		t.Fatalf("receipt of %s: %v", hash, err)
	}
	return r
}

func xAtomicUTXOTxs(ctx context.Context, t *testing.T, n *testnet.Network, source string) []ids.ID {
	t.Helper()
	raw, _, _, err := n.XClient().GetAtomicUTXOs(ctx, []ids.ShortID{n.Addr}, source, 1024, ids.ShortEmpty, ids.Empty)
	if err != nil {
		t.Fatal(err)
	}
	return utxoTxIDs(t, raw, func(b []byte, u *avax.UTXO) error {
		_, err := builder.Parser.Codec().Unmarshal(b, u)
		return err
	})
}

func pAtomicUTXOTxs(ctx context.Context, t *testing.T, n *testnet.Network, source string) []ids.ID {
	t.Helper()
	raw, _, _, err := n.PClient().GetAtomicUTXOs(ctx, []ids.ShortID{n.Addr}, source, 1024, ids.ShortEmpty, ids.Empty)
	if err != nil {
		t.Fatal(err)
	}
	return utxoTxIDs(t, raw, func(b []byte, u *avax.UTXO) error {
		_, err := txs.Codec.Unmarshal(b, u)
		return err
	})
}

func cAtomicUTXOTxs(ctx context.Context, t *testing.T, n *testnet.Network, source string) []ids.ID {
	t.Helper()
	raw, _, _, err := client.NewCChainClient(n.URL).GetAtomicUTXOs(ctx, []ids.ShortID{n.Addr}, source, 1024, ids.ShortEmpty, ids.Empty)
	if err != nil {
		t.Fatal(err)
	}
	return utxoTxIDs(t, raw, func(b []byte, u *avax.UTXO) error {
		_, err := atomic.Codec.Unmarshal(b, u)
		return err
	})
}

func utxoTxIDs(t *testing.T, raw [][]byte, parse func([]byte, *avax.UTXO) error) []ids.ID {
	t.Helper()
	var out []ids.ID
	for _, b := range raw {
		var u avax.UTXO
		if err := parse(b, &u); err != nil {
			t.Fatalf("parsing UTXO: %v", err)
		}
		out = append(out, u.TxID)
	}
	return out
}

func sumTo(outs []*avax.TransferableOutput, to ids.ShortID) uint64 {
	var sum uint64
	for _, o := range outs {
		if out, ok := o.Out.(*secp256k1fx.TransferOutput); ok && slices.Equal(out.Addrs, []ids.ShortID{to}) {
			sum += out.Amt
		}
	}
	return sum
}

func sumIns(ins []*avax.TransferableInput) uint64 {
	var sum uint64
	for _, in := range ins {
		sum += in.Input().Amount()
	}
	return sum
}

func consumes(ins []*avax.TransferableInput, txID ids.ID) bool {
	for _, in := range ins {
		if in.TxID == txID {
			return true
		}
	}
	return false
}
