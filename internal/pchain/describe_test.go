package pchain

import (
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/stakeable"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
)

var (
	dAsset = ids.ID{'a'}
	dAddr  = ids.ShortID{7}
)

func dOut(amount uint64) *avax.TransferableOutput {
	return &avax.TransferableOutput{Asset: avax.Asset{ID: dAsset}, Out: &secp256k1fx.TransferOutput{
		Amt: amount, OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{dAddr}}}}
}

func dIn(txID ids.ID, amount uint64) *avax.TransferableInput {
	return &avax.TransferableInput{UTXOID: avax.UTXOID{TxID: txID, OutputIndex: 2}, Asset: avax.Asset{ID: dAsset},
		In: &secp256k1fx.TransferInput{Amt: amount}}
}

func dTx(t *testing.T, u txs.UnsignedTx) []byte {
	t.Helper()
	tx := &txs.Tx{Unsigned: u}
	if err := tx.Initialize(txs.Codec); err != nil {
		t.Fatal(err)
	}
	return tx.Bytes()
}

func TestDescribeTx(t *testing.T) {
	base := txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: 12345, Ins: []*avax.TransferableInput{dIn(ids.ID{1}, 100)},
		Outs: []*avax.TransferableOutput{dOut(60)}, Memo: []byte("m")}}
	exp := dTx(t, &txs.ExportTx{BaseTx: base, DestinationChain: ids.ID{'x'},
		ExportedOutputs: []*avax.TransferableOutput{dOut(30)}})
	d, err := DescribeTx(exp, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Type != "ExportTx" || string(d.Memo) != "m" || d.Outs != 1 || d.In[dAsset] != 100 || d.Out[dAsset] != 60 ||
		d.Exported[dAsset] != 30 || len(d.Staked) != 0 || d.DestinationChain != (ids.ID{'x'}) ||
		len(d.Inputs) != 1 || d.Inputs[0] != dIn(ids.ID{1}, 0).InputID() {
		t.Errorf("ExportTx: %+v", d)
	}

	sk := signer.ProofOfPossession{PublicKey: [48]byte{1}, ProofOfPossession: [96]byte{2}}
	owner := message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{dAddr}}
	subnet := ids.ID{'s'}
	conv := dTx(t, &txs.ConvertSubnetToL1Tx{BaseTx: base, Subnet: subnet, ChainID: ids.ID{'c'}, Address: []byte{9, 9},
		Validators: []*txs.ConvertSubnetToL1Validator{
			{NodeID: ids.NodeID{3}.Bytes(), Weight: 5, Balance: 20, Signer: sk, RemainingBalanceOwner: owner, DeactivationOwner: owner},
			{NodeID: ids.NodeID{4}.Bytes(), Weight: 6, Balance: 10, Signer: sk, RemainingBalanceOwner: owner, DeactivationOwner: owner},
		}, SubnetAuth: &secp256k1fx.Input{}})
	if d, err = DescribeTx(conv, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if d.SubnetID != subnet || d.ManagerChainID != (ids.ID{'c'}) || string(d.ManagerAddress) != "\x09\x09" || d.L1Balance != 30 ||
		len(d.L1Validators) != 2 || d.L1Validators[1].ValidationID != subnet.Append(1) || d.L1Validators[1].NodeID != (ids.NodeID{4}) ||
		d.L1Validators[0].Weight != 5 || d.L1Validators[0].PublicKey[0] != 1 || d.L1Validators[0].ProofOfPossession[0] != 2 {
		t.Errorf("ConvertSubnetToL1Tx: %+v", d)
	}

	vdr := dTx(t, &txs.AddPermissionlessValidatorTx{BaseTx: base,
		Validator: txs.Validator{NodeID: ids.NodeID{5}, Start: 0, End: 2_000_000_000, Wght: 40},
		Subnet:    ids.Empty, Signer: &signer.Empty{},
		StakeOuts: []*avax.TransferableOutput{{Asset: avax.Asset{ID: dAsset}, Out: &stakeable.LockOut{Locktime: 9,
			TransferableOut: &secp256k1fx.TransferOutput{Amt: 40, OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{dAddr}}}}}},
		ValidatorRewardsOwner: &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{dAddr}},
		DelegatorRewardsOwner: &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{{8}}},
		DelegationShares:      20_000})
	at := time.Unix(1_800_000_000, 0)
	if d, err = DescribeTx(vdr, at); err != nil {
		t.Fatal(err)
	}
	if d.Staked[dAsset] != 40 || d.Staker == nil || d.NodeID != (ids.NodeID{5}) || d.Staker.StartTime != uint64(at.Unix()) ||
		d.Staker.EndTime != 2_000_000_000 || d.Staker.DelegationShares != 20_000 || d.Staker.DelegationRewardOwner.Addresses[0] != (ids.ShortID{8}) {
		t.Errorf("AddPermissionlessValidatorTx: %+v, staker %+v", d, d.Staker)
	}
}

func TestDescribeUTXO(t *testing.T) {
	u := &avax.UTXO{UTXOID: avax.UTXOID{TxID: ids.ID{1}}, Asset: avax.Asset{ID: dAsset}, Out: &stakeable.LockOut{Locktime: 9,
		TransferableOut: &secp256k1fx.TransferOutput{Amt: 40, OutputOwners: secp256k1fx.OutputOwners{Locktime: 3, Threshold: 1, Addrs: []ids.ShortID{dAddr}}}}}
	b, err := txs.Codec.Marshal(txs.CodecVersion, u)
	if err != nil {
		t.Fatal(err)
	}
	info, err := DescribeUTXO(b)
	if err != nil || info.Amount != 40 || info.StakeableLocktime != 9 || info.Locktime != 3 || info.Threshold != 1 ||
		len(info.Addresses) != 1 || info.Addresses[0] != dAddr || info.AssetID != dAsset {
		t.Errorf("DescribeUTXO = %+v, %v", info, err)
	}
	if _, err := DescribeUTXO([]byte{1, 2}); err == nil {
		t.Error("DescribeUTXO of garbage succeeded")
	}
}
