package pchain

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/stakeable"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
)

// fuzzSeedBlocks are real P-chain blocks of each kind, built with
// avalanchego's constructors, holding txs of many types: the fuzzers'
// seeds, each with its height.
func fuzzSeedBlocks(tb testing.TB) map[uint64][][]byte {
	tb.Helper()
	gb, _, err := genesis.FromConfig(genesis.GetConfig(constants.LocalID))
	if err != nil {
		tb.Fatal(err)
	}
	asset := ids.ID{0xaa}
	owners := secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{{1}, {2}}}
	out := func(n uint64) *avax.TransferableOutput {
		return &avax.TransferableOutput{Asset: avax.Asset{ID: asset}, Out: &secp256k1fx.TransferOutput{Amt: n, OutputOwners: owners}}
	}
	locked := &avax.TransferableOutput{Asset: avax.Asset{ID: asset}, Out: &stakeable.LockOut{Locktime: 9,
		TransferableOut: &secp256k1fx.TransferOutput{Amt: 4, OutputOwners: owners}}}
	in := func(tx byte, n uint64) *avax.TransferableInput {
		return &avax.TransferableInput{UTXOID: avax.UTXOID{TxID: ids.ID{tx}, OutputIndex: 1}, Asset: avax.Asset{ID: asset},
			In: &secp256k1fx.TransferInput{Amt: n, Input: secp256k1fx.Input{SigIndices: []uint32{0}}}}
	}
	base := avax.BaseTx{NetworkID: constants.LocalID, BlockchainID: constants.PlatformChainID,
		Ins: []*avax.TransferableInput{in(1, 10)}, Outs: []*avax.TransferableOutput{out(3), locked}, Memo: []byte("memo")}
	var signed []*txs.Tx
	for _, u := range []txs.UnsignedTx{
		&txs.BaseTx{BaseTx: base},
		&txs.CreateSubnetTx{BaseTx: txs.BaseTx{BaseTx: base}, Owner: &owners},
		&txs.CreateChainTx{BaseTx: txs.BaseTx{BaseTx: base}, SubnetID: ids.ID{5}, ChainName: "chain", VMID: ids.ID{6},
			GenesisData: []byte("{}"), SubnetAuth: &secp256k1fx.Input{SigIndices: []uint32{0}}},
		&txs.ImportTx{BaseTx: txs.BaseTx{BaseTx: base}, SourceChain: ids.ID{3}, ImportedInputs: []*avax.TransferableInput{in(2, 7)}},
		&txs.ExportTx{BaseTx: txs.BaseTx{BaseTx: base}, DestinationChain: ids.ID{4}, ExportedOutputs: []*avax.TransferableOutput{out(2)}},
		&txs.AddDelegatorTx{BaseTx: txs.BaseTx{BaseTx: base}, Validator: txs.Validator{NodeID: ids.BuildTestNodeID([]byte{7}), Start: 1, End: 2, Wght: 5},
			StakeOuts: []*avax.TransferableOutput{out(5)}, DelegationRewardsOwner: &owners},
		&txs.AddSubnetValidatorTx{BaseTx: txs.BaseTx{BaseTx: base}, SubnetValidator: txs.SubnetValidator{
			Validator: txs.Validator{NodeID: ids.BuildTestNodeID([]byte{8}), End: 9, Wght: 1}, Subnet: ids.ID{5}},
			SubnetAuth: &secp256k1fx.Input{SigIndices: []uint32{0}}},
		&txs.RewardValidatorTx{TxID: ids.ID{7}},
		&txs.AdvanceTimeTx{Time: 1_700_000_000},
	} {
		tx, err := txs.NewSigned(u, txs.Codec, nil)
		if err != nil {
			tb.Fatal(err)
		}
		signed = append(signed, tx)
	}
	ts := time.Unix(1_700_000_000, 0)
	parent := ids.ID{9}
	seeds := map[uint64][][]byte{}
	add := func(h uint64) func(block.Block, error) {
		return func(b block.Block, err error) {
			if err != nil {
				tb.Fatal(err)
			}
			seeds[h] = append(seeds[h], b.Bytes())
		}
	}
	add(0)(block.NewApricotCommitBlock(hashing.ComputeHash256Array(gb), 0))
	reward, advance := signed[7], signed[8]
	standard := signed[:7]
	add(5)(block.NewBanffStandardBlock(ts, parent, 5, standard))
	add(6)(block.NewBanffProposalBlock(ts, parent, 6, reward, standard[:1]))
	add(7)(block.NewBanffCommitBlock(ts, parent, 7))
	add(7)(block.NewBanffAbortBlock(ts, parent, 7))
	add(8)(block.NewApricotStandardBlock(parent, 8, standard))
	add(9)(block.NewApricotProposalBlock(parent, 9, advance))
	add(10)(block.NewApricotAtomicBlock(parent, 10, signed[3]))
	add(11)(block.NewApricotAbortBlock(parent, 11))
	return seeds
}

// FuzzDecode decodes arbitrary bytes as the P-chain block at a height.
// Bytes that decode are a block whose id is their hash, whose txs' ids
// are their bytes' hashes, whose produced UTXOs encode and decode back to
// themselves, and which the node's JSON form renders; the txs describe
// for the Data API without panicking.
func FuzzDecode(f *testing.F) {
	for h, bs := range fuzzSeedBlocks(f) {
		for _, b := range bs {
			f.Add(h, b)
		}
	}
	format, err := NewFormatter(constants.LocalID)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, height uint64, b []byte) {
		blk, err := Decode(height, b)
		if err != nil {
			if blk != nil {
				t.Fatalf("Decode returned a block with error %v", err)
			}
			return
		}
		if blk.Height != height || blk.ID != hashing.ComputeHash256Array(b) || !bytes.Equal(blk.Bytes, b) || blk.Type == "" {
			t.Fatalf("Decode(%d) = %+v", height, blk)
		}
		if height == 0 && blk.Genesis == nil && blk.ParentID == hashing.ComputeHash256Array(mustLocalGenesis(t)) {
			t.Fatal("the local genesis was not attached to block 0")
		}
		for _, tx := range blk.Txs {
			raw := tx.Tx.Bytes()
			// A block inlines its txs without their codec version.
			if tx.ID != hashing.ComputeHash256Array(raw) || !bytes.Equal(tx.Bytes, raw) || len(raw) < 2 || !bytes.Contains(b, raw[2:]) ||
				tx.UTXOs == nil || tx.UTXOs.TxID != tx.ID {
				t.Fatalf("tx %s of block %s: %+v", tx.ID, blk.ID, tx)
			}
			again, err := ParseTx(raw)
			if err != nil || again.ID() != tx.ID {
				t.Fatalf("tx %s does not parse back: %v", tx.ID, err)
			}
			for _, p := range tx.UTXOs.Produced {
				if p.UTXO.TxID != tx.ID {
					t.Fatalf("tx %s produces %s", tx.ID, p.ID())
				}
				back, err := ParseUTXO(p.Bytes)
				if err != nil || back.ID() != p.ID() || back.Amount != p.Amount || back.AssetID != p.AssetID {
					t.Fatalf("UTXO %s of tx %s does not decode back: %v", p.ID(), tx.ID, err)
				}
				_, _ = DescribeUTXO(p.Bytes)
			}
			_, _ = DescribeParsedTx(tx.Tx, blk.Timestamp)
		}
		js, err := format.BlockJSON(b)
		if err != nil || !json.Valid(js) {
			t.Fatalf("block %s decodes but does not render: %v", blk.ID, err)
		}
	})
}

var localGenesis []byte

func mustLocalGenesis(t *testing.T) []byte {
	if localGenesis == nil {
		gb, _, err := genesis.FromConfig(genesis.GetConfig(constants.LocalID))
		if err != nil {
			t.Fatal(err)
		}
		localGenesis = gb
	}
	return localGenesis
}

// FuzzParseUTXO decodes arbitrary bytes as a P-chain UTXO (the node's
// getUTXOs and getRewardUTXOs bytes): a UTXO that decodes encodes back to
// the same bytes.
func FuzzParseUTXO(f *testing.F) {
	for h, bs := range fuzzSeedBlocks(f) {
		for _, b := range bs {
			blk, err := Decode(h, b)
			if err != nil {
				continue
			}
			for _, tx := range blk.Txs {
				for _, p := range tx.UTXOs.Produced {
					f.Add(p.Bytes)
				}
			}
		}
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := ParseUTXO(b)
		if err != nil {
			return
		}
		if !bytes.Equal(u.Bytes, b) {
			t.Fatalf("UTXO %s re-encodes as %x, not %x", u.ID(), u.Bytes, b)
		}
		_, _ = DescribeUTXO(b)
	})
}
