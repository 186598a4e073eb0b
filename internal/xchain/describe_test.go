package xchain

import (
	"bytes"
	"testing"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	"github.com/ava-labs/avalanchego/vms/nftfx"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"
)

func TestDescribeTx(t *testing.T) {
	key, err := secp256k1.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	asset, other := ids.ID{'a'}, ids.ID{'o'}
	owners := secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{key.Address()}}
	in := func(txID ids.ID, a ids.ID, amt uint64) *avax.TransferableInput {
		return &avax.TransferableInput{UTXOID: avax.UTXOID{TxID: txID}, Asset: avax.Asset{ID: a},
			In: &secp256k1fx.TransferInput{Amt: amt, Input: secp256k1fx.Input{SigIndices: []uint32{0}}}}
	}
	create := &txs.CreateAssetTx{
		BaseTx: txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: 12345, Ins: []*avax.TransferableInput{in(ids.ID{1}, asset, 50), in(ids.ID{2}, other, 7)},
			Outs: []*avax.TransferableOutput{{Asset: avax.Asset{ID: asset}, Out: &secp256k1fx.TransferOutput{Amt: 40, OutputOwners: owners}}},
			Memo: []byte{0xab}}},
		Name: "Name", Symbol: "SYM", Denomination: 3,
		States: []*txs.InitialState{{FxIndex: 1, Outs: []verify.State{
			&nftfx.MintOutput{GroupID: 1, OutputOwners: owners},
		}}},
	}
	tx := &txs.Tx{Unsigned: create}
	if err := tx.SignSECP256K1Fx(builder.Parser.Codec(), [][]*secp256k1.PrivateKey{{key}, {key}}); err != nil {
		t.Fatal(err)
	}
	d, err := DescribeTx(tx.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if d.Type != "CreateAssetTx" || d.ID != tx.ID() || d.In[asset] != 50 || d.In[other] != 7 || d.Out[asset] != 40 || len(d.Out) != 1 ||
		len(d.Inputs) != 2 || d.Inputs[1] != in(ids.ID{2}, other, 0).InputID() || string(d.Memo) != "\xab" {
		t.Errorf("CreateAssetTx: %+v", d)
	}
	if a := d.Asset; a == nil || a.Name != "Name" || a.Symbol != "SYM" || a.Denomination != 3 || !a.NFT || !a.Variable {
		t.Errorf("asset: %+v", d.Asset)
	}
	for _, id := range d.Inputs {
		c := d.Credentials[id]
		if len(c) != 1 || !bytes.Equal(c[0].PublicKey, key.PublicKey().Bytes()) || len(c[0].Signature) != secp256k1.SignatureLen {
			t.Errorf("credentials of %s: %+v", id, c)
		}
	}
	if a, ok, err := DescribeAsset(tx.Bytes()); err != nil || !ok || a.Symbol != "SYM" {
		t.Errorf("DescribeAsset = %+v, %t, %v", a, ok, err)
	}

	u := tx.UTXOs()[1] // the NFT mint output
	b, err := builder.Parser.Codec().Marshal(txs.CodecVersion, u)
	if err != nil {
		t.Fatal(err)
	}
	info, err := DescribeUTXO(b)
	if err != nil || !info.Mint || info.GroupID == nil || *info.GroupID != 1 || info.Addresses[0] != key.Address() || info.Threshold != 1 {
		t.Errorf("DescribeUTXO(NFT mint) = %+v, %v", info, err)
	}
}

func TestGenesisAssets(t *testing.T) {
	gb, avaxID, err := genesis.FromConfig(genesis.GetConfig(constants.LocalID))
	if err != nil {
		t.Fatal(err)
	}
	x, err := genesis.VMGenesis(gb, constants.AVMID)
	if err != nil {
		t.Fatal(err)
	}
	assets, ok, err := GenesisAssets(x.ID())
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if a := assets[avaxID]; a == nil || a.Name != "Avalanche" || a.Symbol != "AVAX" || a.Denomination != 9 || a.NFT || a.Variable {
		t.Errorf("AVAX = %+v", a)
	}
	if _, ok, err := GenesisAssets(ids.ID{'n', 'o'}); ok || err != nil {
		t.Errorf("unknown X-chain: %t, %v", ok, err)
	}

	// A custom network's X-chain: missed without its genesis (the miss is
	// remembered, not the answer), found with it.
	cfg := *genesis.GetConfig(constants.LocalID)
	cfg.NetworkID = 54322
	cgb, customAVAX, err := genesis.FromConfig(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	cx, err := genesis.VMGenesis(cgb, constants.AVMID)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, ok, err := GenesisAssets(cx.ID()); ok || err != nil {
			t.Fatalf("custom X-chain without its genesis: %t, %v", ok, err)
		}
	}
	assets, ok, err = GenesisAssets(cx.ID(), cgb)
	if err != nil || !ok || assets[customAVAX] == nil || assets[customAVAX].Symbol != "AVAX" {
		t.Fatalf("custom X-chain with its genesis: %v, %t, %v", assets, ok, err)
	}
}
