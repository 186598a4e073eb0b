package store

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	avmblock "github.com/ava-labs/avalanchego/vms/avm/block"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/xchain"
)

// xTx builds a signed-less avm tx as the X-chain's blocks carry it,
// decoded by xchain.
func xTx(t testing.TB, u txs.UnsignedTx) *xchain.Tx {
	t.Helper()
	tx := &txs.Tx{Unsigned: u}
	if err := tx.Initialize(builder.Parser.Codec()); err != nil {
		t.Fatal(err)
	}
	parsed, err := xchain.ParseTx(tx.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	x, err := xchain.NewTx(parsed)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func xBase(memo string, ins []*avax.TransferableInput, outs ...*avax.TransferableOutput) txs.BaseTx {
	return txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: 12345, BlockchainID: uXID, Ins: ins, Outs: outs, Memo: []byte(memo)}}
}

func xIn(txID ids.ID, idx uint32, asset ids.ID, amount uint64) *avax.TransferableInput {
	return &avax.TransferableInput{UTXOID: avax.UTXOID{TxID: txID, OutputIndex: idx}, Asset: avax.Asset{ID: asset},
		In: &secp256k1fx.TransferInput{Amt: amount, Input: secp256k1fx.Input{SigIndices: []uint32{0}}}}
}

func xOut(asset ids.ID, amount uint64, addrs ...ids.ShortID) *avax.TransferableOutput {
	return &avax.TransferableOutput{Asset: avax.Asset{ID: asset},
		Out: &secp256k1fx.TransferOutput{Amt: amount, OutputOwners: uOwners(addrs...)}}
}

// xBlocks builds the avm blocks from height 0 of a chain named by salt,
// block h holding txsPerBlock[h], decoded by xchain with the chain's
// genesis g (nil: not known).
func xBlocks(t testing.TB, salt string, g *xchain.Genesis, txsPerBlock ...[]*xchain.Tx) []*xchain.Block {
	t.Helper()
	var bs []*xchain.Block
	parent := testID(salt)
	for h, xs := range txsPerBlock {
		var ts []*txs.Tx
		for _, x := range xs {
			ts = append(ts, x.Tx)
		}
		blk, err := avmblock.NewStandardBlock(parent, uint64(h), time.Unix(1_700_000_000+int64(h), 0), ts, builder.Parser.Codec())
		if err != nil {
			t.Fatal(err)
		}
		b, err := xchain.Decode(uint64(h), blk.Bytes(), g)
		if err != nil {
			t.Fatal(err)
		}
		bs = append(bs, b)
		parent = b.ID
	}
	return bs
}

func utxoKey(txID ids.ID, idx uint32) ids.ID {
	return (&avax.UTXOID{TxID: txID, OutputIndex: idx}).InputID()
}

// xLife is a small X-chain from the local network's genesis: a BaseTx
// spending a genesis UTXO, then a CreateAssetTx spending the BaseTx's
// change.
type xLife struct {
	xChainID     ids.ID
	gen          *internal.UTXOOutput
	holder       ids.ShortID
	base, create *xchain.Tx
	blocks       []*xchain.Block
}

func newXLife(t testing.TB) *xLife {
	t.Helper()
	gb, avaxID, err := genesis.FromConfig(genesis.GetConfig(constants.LocalID))
	if err != nil {
		t.Fatal(err)
	}
	xChain, err := genesis.VMGenesis(gb, constants.AVMID)
	if err != nil {
		t.Fatal(err)
	}
	g, ok, err := xchain.GenesisFor(xChain.ID())
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	gen := g.UTXOs[0]
	holder := gen.Owners.Addrs[0]

	base := xTx(t, &txs.BaseTx{BaseTx: xBase("b", []*avax.TransferableInput{xIn(gen.UTXO.TxID, gen.UTXO.OutputIndex, avaxID, gen.Amount)},
		xOut(avaxID, 5, uAddrA), xOut(avaxID, gen.Amount-6, holder)).BaseTx})
	create := xTx(t, &txs.CreateAssetTx{
		BaseTx: xBase("c", []*avax.TransferableInput{xIn(base.ID, 1, avaxID, gen.Amount-6)}, xOut(avaxID, gen.Amount-7, holder)),
		Name:   "Test", Symbol: "TST",
		States: []*txs.InitialState{{FxIndex: 0, Outs: []verify.State{
			&secp256k1fx.TransferOutput{Amt: 1000, OutputOwners: uOwners(uAddrA)},
			&secp256k1fx.MintOutput{OutputOwners: uOwners(holder)},
		}}},
	})
	return &xLife{xChainID: xChain.ID(), gen: gen, holder: holder, base: base, create: create,
		blocks: xBlocks(t, "xl", g, nil, []*xchain.Tx{base}, []*xchain.Tx{create})}
}

// putXNetwork records the local network with the X-chain id, as the
// service does.
func putXNetwork(t testing.TB, s *sqlStore, xChainID ids.ID) {
	t.Helper()
	nb, _ := json.Marshal(internal.Network{ID: constants.LocalID, XChainID: xChainID})
	if err := s.PutSettingIfAbsent(context.Background(), NetworkSetting, nb); err != nil {
		t.Fatal(err)
	}
}

// TestXUTXOLife follows X-chain UTXOs from the local network's genesis
// through a BaseTx and a CreateAssetTx, with re-application.
func TestXUTXOLife(t *testing.T) {
	sc := newXLife(t)
	gen, holder, base, create, bs := sc.gen, sc.holder, sc.base, sc.create, sc.blocks
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		putXNetwork(t, s, sc.xChainID)
		for _, batch := range [][]*xchain.Block{bs[:2], bs[:2], bs[1:], bs} {
			if err := s.ApplyXBlocks(ctx, xchain.BlocksData(batch), deriveX); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.XUTXO(ctx, gen.ID())
		if err != nil {
			t.Fatal(err)
		}
		if got.ConsumedTxID != base.ID || got.ConsumedHeight != 1 || got.CreatedHeight != 0 || got.Kind != xchain.KindRegular {
			t.Errorf("genesis UTXO = %+v", got)
		}
		us, err := s.XUTXOsOf(ctx, []ids.ShortID{uAddrA})
		if err != nil {
			t.Fatal(err)
		}
		want := map[ids.ID]uint64{utxoKey(base.ID, 0): 5, utxoKey(create.ID, 1): 1000}
		if len(us) != len(want) {
			t.Fatalf("UTXOs of A: %+v, want %v", us, want)
		}
		for _, u := range us {
			if want[u.ID] != u.Amount {
				t.Errorf("UTXO %s of A: amount %d, want %d", u.ID, u.Amount, want[u.ID])
			}
			p, err := xchain.ParseUTXO(u.Bytes)
			if err != nil || p.ID() != u.ID {
				t.Errorf("UTXO %s bytes do not decode to it: %v", u.ID, err)
			}
		}
		mine, err := s.XUTXOsOf(ctx, []ids.ShortID{holder, holder})
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[ids.ID]string{}
		for _, u := range mine {
			kinds[u.ID] = u.Kind
		}
		if kinds[utxoKey(create.ID, 0)] != xchain.KindRegular || kinds[utxoKey(create.ID, 2)] != xchain.KindOther ||
			kinds[utxoKey(base.ID, 1)] != "" || kinds[gen.ID()] != "" {
			t.Errorf("holder's UTXOs: %v", kinds)
		}
		if _, err := s.XUTXO(ctx, ids.ID{9}); err == nil {
			t.Error("XUTXO of an unknown id succeeded")
		}
	})
}
