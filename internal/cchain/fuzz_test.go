package cchain

import (
	"bytes"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/libevm/common"
)

// Times on either side of the local network's Apricot Phase 5: extra data
// holds one atomic tx before it and a batch after it.
var (
	beforeAP5 = time.Unix(0, 0)
	afterAP5  = time.Unix(1_900_000_000, 0)
)

// FuzzAtomicTxs decodes arbitrary bytes as a C-chain block's extra data,
// before and after Apricot Phase 5. Extra data that decodes is atomic txs
// whose ids are their bytes' hashes, which encode back to the extra data,
// describe for the Data API, and whose exported UTXOs decode back.
func FuzzAtomicTxs(f *testing.F) {
	asset, dest := ids.ID{0xa}, ids.ID{0xd}
	owners := secp256k1fx.OutputOwners{Locktime: 2, Threshold: 1, Addrs: []ids.ShortID{{7}}}
	export := signed(f, &atomic.UnsignedExportTx{NetworkID: constants.LocalID, BlockchainID: ids.ID{0xc}, DestinationChain: dest,
		Ins: []atomic.EVMInput{{Address: common.Address{1}, Amount: 11, AssetID: asset, Nonce: 3}},
		ExportedOutputs: []*avax.TransferableOutput{
			{Asset: avax.Asset{ID: asset}, Out: &secp256k1fx.TransferOutput{Amt: 5, OutputOwners: owners}},
		}})
	imp := signed(f, &atomic.UnsignedImportTx{NetworkID: constants.LocalID, BlockchainID: ids.ID{0xc}, SourceChain: dest,
		ImportedInputs: []*avax.TransferableInput{{UTXOID: avax.UTXOID{TxID: ids.ID{1}, OutputIndex: 3}, Asset: avax.Asset{ID: asset},
			In: &secp256k1fx.TransferInput{Amt: 9, Input: secp256k1fx.Input{SigIndices: []uint32{0}}}}},
		Outs: []atomic.EVMOutput{{Address: common.Address{2}, Amount: 9, AssetID: asset}}})
	batch, err := atomic.Codec.Marshal(atomic.CodecVersion, []*atomic.Tx{export, imp})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(export.SignedBytes(), false)
	f.Add(imp.SignedBytes(), false)
	f.Add(batch, true)
	f.Add([]byte{}, true)
	f.Fuzz(func(t *testing.T, extra []byte, ap5 bool) {
		at := beforeAP5
		if ap5 {
			at = afterAP5
		}
		txs, err := AtomicTxs(constants.LocalID, at, extra)
		if err != nil {
			return
		}
		if len(extra) == 0 {
			if len(txs) != 0 {
				t.Fatalf("empty extra data gave %d txs", len(txs))
			}
			return
		}
		if len(txs) == 0 || !ap5 && len(txs) != 1 {
			t.Fatalf("%d txs in extra data %x (batch %v)", len(txs), extra, ap5)
		}
		var parsed []*atomic.Tx
		for _, tx := range txs {
			if tx.ID != hashing.ComputeHash256Array(tx.Bytes) || tx.Type != "ImportTx" && tx.Type != "ExportTx" {
				t.Fatalf("atomic tx %+v", tx.CAtomicTx)
			}
			p, err := atomic.ExtractAtomicTx(tx.Bytes, atomic.Codec)
			if err != nil || p.ID() != tx.ID {
				t.Fatalf("atomic tx %s does not parse back: %v", tx.ID, err)
			}
			parsed = append(parsed, p)
			if d, err := DescribeTx(tx.Bytes); err == nil && (d.ID != tx.ID || d.Type != tx.Type) {
				t.Fatalf("atomic tx %s describes as %s %s", tx.ID, d.Type, d.ID)
			}
			for i, e := range tx.Exported {
				if e.UTXO.TxID != tx.ID || e.UTXO.OutputIndex != uint32(i) || e.Kind != KindExported {
					t.Fatalf("atomic tx %s exports %+v", tx.ID, e)
				}
				info, err := DescribeUTXO(e.Bytes)
				if err != nil || info == nil {
					t.Fatalf("exported UTXO %s does not describe: %v", e.ID(), err)
				}
			}
		}
		// The extra data is the txs' encoding: nothing in it was skipped.
		var again []byte
		if ap5 {
			again, err = atomic.Codec.Marshal(atomic.CodecVersion, parsed)
		} else {
			again = parsed[0].SignedBytes()
		}
		if err != nil || !bytes.Equal(again, extra) {
			t.Fatalf("extra data %x re-encodes as %x (%v)", extra, again, err)
		}
	})
}
