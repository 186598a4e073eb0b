// Package pchain decodes P-chain blocks with avalanchego's own codecs and
// renders them in the node's JSON form.
package pchain

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"

	"github.com/avaindex/avaindex/internal"
)

// Decode parses the platformvm bytes of the block the node accepted at
// height.
func Decode(height uint64, b []byte) (*internal.PBlock, error) {
	blk, err := block.Parse(block.Codec, b)
	if err != nil {
		return nil, fmt.Errorf("parsing P-chain block at height %d: %w", height, err)
	}
	if blk.Height() != height {
		return nil, fmt.Errorf("P-chain block %s claims height %d, expected %d", blk.ID(), blk.Height(), height)
	}
	pb := &internal.PBlock{
		Height:   height,
		ID:       blk.ID(),
		ParentID: blk.Parent(),
		Type:     typeName(blk),
		Bytes:    b,
	}
	// Only Banff and later blocks carry a timestamp of their own.
	if tb, ok := blk.(interface{ Timestamp() time.Time }); ok {
		pb.Timestamp = tb.Timestamp()
	}
	for _, tx := range blk.Txs() {
		pb.Txs = append(pb.Txs, internal.PTx{
			ID:    tx.ID(),
			Type:  typeName(tx.Unsigned),
			Bytes: tx.Bytes(),
		})
	}
	return pb, nil
}

func typeName(v any) string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// Formatter renders blocks as the node does for encoding "json": addresses
// are bech32 with the P-chain alias and the network's prefix.
type Formatter struct {
	ctx *snow.Context
}

// NewFormatter returns a formatter for the network with id networkID.
func NewFormatter(networkID uint32) (*Formatter, error) {
	aliaser := ids.NewAliaser()
	if err := aliaser.Alias(constants.PlatformChainID, "P"); err != nil {
		return nil, err
	}
	return &Formatter{ctx: &snow.Context{
		NetworkID: networkID,
		SubnetID:  constants.PrimaryNetworkID,
		ChainID:   constants.PlatformChainID,
		BCLookup:  aliaser,
	}}, nil
}

// BlockJSON returns the node's JSON form of the block with bytes b.
func (f *Formatter) BlockJSON(b []byte) (json.RawMessage, error) {
	blk, err := block.Parse(block.Codec, b)
	if err != nil {
		return nil, fmt.Errorf("parsing stored P-chain block: %w", err)
	}
	blk.InitCtx(f.ctx)
	return json.Marshal(blk)
}
