// Package xchain decodes X-chain blocks and txs with avalanchego's avm
// parser, and derives what txs do to the UTXO set.
package xchain

import (
	"fmt"
	"reflect"

	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"

	"github.com/avaindex/avaindex/internal"
)

// Decode parses the avm bytes of the block the node accepted at height.
func Decode(height uint64, b []byte) (*internal.XBlock, error) {
	blk, err := builder.Parser.ParseBlock(b)
	if err != nil {
		return nil, fmt.Errorf("parsing X-chain block at height %d: %w", height, err)
	}
	if blk.Height() != height {
		return nil, fmt.Errorf("X-chain block %s claims height %d, expected %d", blk.ID(), blk.Height(), height)
	}
	xb := &internal.XBlock{
		Height:    height,
		ID:        blk.ID(),
		ParentID:  blk.Parent(),
		Timestamp: blk.Timestamp(),
		Bytes:     b,
	}
	for _, tx := range blk.Txs() {
		xb.Txs = append(xb.Txs, internal.XTx{
			ID:    tx.ID(),
			Type:  TxType(tx),
			Bytes: tx.Bytes(),
		})
	}
	return xb, nil
}

// TxType is the avm type name of tx, e.g. "CreateAssetTx".
func TxType(tx *txs.Tx) string {
	return reflect.Indirect(reflect.ValueOf(tx.Unsigned)).Type().Name()
}
