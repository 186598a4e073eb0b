package pchain

import (
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
)

func TestExtractState(t *testing.T) {
	base := func(memo string) txs.BaseTx {
		return txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.UnitTestID, BlockchainID: constants.PlatformChainID, Memo: []byte(memo)}}
	}
	signed := func(u txs.UnsignedTx) *txs.Tx {
		tx, err := txs.NewSigned(u, txs.Codec, nil)
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	owner := &secp256k1fx.OutputOwners{Threshold: 1, Locktime: 3, Addrs: []ids.ShortID{{7}}}
	create := signed(&txs.CreateSubnetTx{BaseTx: base("s"), Owner: owner})
	chain := signed(&txs.CreateChainTx{BaseTx: base("c"), SubnetID: create.ID(), ChainName: "c", VMID: ids.ID{1},
		SubnetAuth: &secp256k1fx.Input{}})
	transform := signed(&txs.TransformSubnetTx{BaseTx: base("t"), Subnet: create.ID(), AssetID: ids.ID{2},
		SubnetAuth: &secp256k1fx.Input{}})
	plain := signed(&txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.UnitTestID, BlockchainID: constants.PlatformChainID}})
	ts := time.Unix(1_700_000_000, 0).UTC()
	ptx := func(tx *txs.Tx, typ string) *Tx {
		d, err := NewTx(tx)
		if err != nil || d.Type != typ {
			t.Fatalf("NewTx = %+v, %v; want a %s", d, err, typ)
		}
		return d
	}
	blocks := []*Block{{Height: 4, Timestamp: ts, Txs: []*Tx{
		ptx(plain, "BaseTx"), ptx(create, "CreateSubnetTx"), ptx(chain, "CreateChainTx"), ptx(transform, "TransformSubnetTx"),
	}}}
	ch, err := ExtractState(blocks)
	if err != nil {
		t.Fatal(err)
	}
	at := func(i int) Pos { return Pos{Height: 4, Index: i, Time: ts} }
	if len(ch.Subnets) != 1 || ch.Subnets[0].ID != create.ID() || ch.Subnets[0].Created != at(1) ||
		ch.Subnets[0].Owner.Threshold != 1 || ch.Subnets[0].Owner.Locktime != 3 || ch.Subnets[0].Owner.Addresses[0] != (ids.ShortID{7}) {
		t.Errorf("Subnets = %+v", ch.Subnets)
	}
	if len(ch.Chains) != 1 || ch.Chains[0].ID != chain.ID() || ch.Chains[0].SubnetID != create.ID() || ch.Chains[0].Created != at(2) {
		t.Errorf("Chains = %+v", ch.Chains)
	}
	if len(ch.Transforms) != 1 || ch.Transforms[0] != (Transform{SubnetID: create.ID(), TxID: transform.ID(), At: at(3)}) {
		t.Errorf("Transforms = %+v", ch.Transforms)
	}
	if len(ch.Owners)+len(ch.Conversions) != 0 {
		t.Errorf("unexpected changes %+v", ch)
	}
	if empty, err := ExtractState([]*Block{{Height: 1, Txs: []*Tx{ptx(plain, "BaseTx")}}}); err != nil || !empty.Empty() {
		t.Errorf("a block without state txs: %+v, %v", empty, err)
	}
}
