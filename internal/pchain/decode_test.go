package pchain

import (
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
)

// decodeAt returns a function that decodes a block built for height h.
func decodeAt(t *testing.T, h uint64) func(block.Block, error) *Block {
	return func(blk block.Block, err error) *Block {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		b, err := Decode(h, blk.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// TestDecode decodes a local-network chain: the genesis on block 0, the
// txs with their UTXO effects, the proposal linked to its commit, and the
// reward UTXOs of the RewardValidatorTx.
func TestDecode(t *testing.T) {
	gb, _, err := genesis.FromConfig(genesis.GetConfig(constants.LocalID))
	if err != nil {
		t.Fatal(err)
	}
	b0 := decodeAt(t, 0)(block.NewApricotCommitBlock(hashing.ComputeHash256Array(gb), 0))
	g := b0.Genesis
	if g == nil || len(g.UTXOs) == 0 || len(g.Validators) == 0 || len(g.Stakes) != len(g.Validators) ||
		len(g.Stakers) != len(g.Validators) || g.InitialSupply == 0 || g.Timestamp == 0 {
		t.Fatalf("genesis of block 0: %+v", g)
	}
	for i, s := range g.Stakers {
		if s.StartTime != g.Timestamp || s.TxID != g.Validators[i].ID() || !g.Stakes[i].HasStake {
			t.Errorf("genesis staker %d: %+v", i, s)
		}
	}

	out := &avax.TransferableOutput{Asset: avax.Asset{ID: ids.ID{0xaa}},
		Out: &secp256k1fx.TransferOutput{Amt: 3, OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{{1}}}}}
	base, err := txs.NewSigned(&txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.LocalID, BlockchainID: constants.PlatformChainID,
		Outs: []*avax.TransferableOutput{out}}}, txs.Codec, nil)
	if err != nil {
		t.Fatal(err)
	}
	staker := ids.ID{7}
	reward, err := txs.NewSigned(&txs.RewardValidatorTx{TxID: staker}, txs.Codec, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Unix(1_700_000_000, 0)
	b1 := decodeAt(t, 1)(block.NewBanffProposalBlock(ts, b0.ID, 1, reward, []*txs.Tx{base}))
	b2 := decodeAt(t, 2)(block.NewBanffCommitBlock(ts, b1.ID, 2))
	if b1.Genesis != nil || b1.Type != "BanffProposalBlock" || !b1.Timestamp.Equal(ts) || b1.Timestamp.Location() != time.UTC ||
		len(b1.Txs) != 2 || b1.Txs[0].ID != base.ID() || b1.Txs[0].Type != "BaseTx" || b1.Txs[0].Tx == nil ||
		len(b1.Txs[0].UTXOs.Produced) != 1 || b1.Txs[1].Type != "RewardValidatorTx" {
		t.Fatalf("block 1 = %+v", b1)
	}
	if got := b1.RewardedStakers(); len(got) != 1 || got[0] != staker {
		t.Errorf("RewardedStakers = %v", got)
	}

	// Reward UTXOs must be the staker's.
	ru := func(txID ids.ID) []byte {
		b, err := txs.Codec.Marshal(txs.CodecVersion, &avax.UTXO{UTXOID: avax.UTXOID{TxID: txID, OutputIndex: 1},
			Asset: out.Asset, Out: out.Out})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if err := b1.SetRewardUTXOs(staker, [][]byte{ru(ids.ID{8})}); err == nil {
		t.Error("another tx's UTXO was taken as a reward UTXO")
	}
	if err := b1.SetRewardUTXOs(staker, [][]byte{{1, 2}}); err == nil {
		t.Error("bad reward UTXO bytes were accepted")
	}
	if err := b1.SetRewardUTXOs(staker, [][]byte{ru(staker)}); err != nil {
		t.Fatal(err)
	}
	if r := b1.Rewards[staker]; len(r) != 1 || r[0].Kind != KindReward || r[0].Amount != 3 {
		t.Errorf("reward UTXOs = %+v", r)
	}

	// The commit is linked to the block before it, in the batch or not.
	if err := LinkProposals([]*Block{b0, b1, b2}, nil); err != nil || b2.Proposal != b1 || b0.Proposal != nil {
		t.Errorf("in-batch link: %v, %v", b2.Proposal, err)
	}
	b2.Proposal = nil
	if err := LinkProposals([]*Block{b2}, func(h uint64, id ids.ID) (*Block, error) {
		if h != 1 || id != b1.ID {
			t.Errorf("lookup(%d, %s)", h, id)
		}
		return b1, nil
	}); err != nil || b2.Proposal != b1 {
		t.Errorf("looked-up link: %v, %v", b2.Proposal, err)
	}
	if err := LinkProposals([]*Block{b2}, func(uint64, ids.ID) (*Block, error) { return b0, nil }); err == nil {
		t.Error("a block that is not the commit's parent was linked")
	}
	if err := LinkProposals([]*Block{b0, b2}, nil); err == nil {
		t.Error("a batch whose block before the commit is not its parent was linked")
	}
}
