// Package pchain decodes P-chain blocks with avalanchego's own codecs and
// renders them in the node's JSON form.
//
// Each block is decoded once into a Block whose txs carry the parsed tx and
// what it does to the UTXO set, with the genesis at height 0, the proposal
// an option block decides, and the reward UTXOs. Over those values it also
// holds the staking, subnet, L1-fee and reward derivations (RewardState,
// L1Fees: what the executor computes and no block carries), which Batch
// hands the store as an internal.PBatch (the values' types are package
// internal's, named here by aliases: domain.go), and describe.go, a
// stored tx or UTXO decoded for display (the Data API's transactions).
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
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"

	"github.com/avaindex/avaindex/internal"
)

// Block is a P-chain block decoded once: its identity and bytes, its txs
// parsed with what each does to the UTXO set, and what the appliers need
// from beyond the block: the genesis at height 0, the proposal block that
// an option block decides, and the reward UTXOs of its RewardValidatorTxs.
type Block struct {
	Height   uint64
	ID       ids.ID
	ParentID ids.ID
	// Type is the platformvm block kind, e.g. "BanffStandardBlock".
	Type string
	// Timestamp is the block's own timestamp; zero for pre-Banff blocks,
	// which carry none.
	Timestamp time.Time
	Bytes     []byte
	Txs       []*Tx
	// Genesis is the P-chain's genesis, on the height-0 block when
	// avaindex knows it (see GenesisFor); nil otherwise.
	Genesis *Genesis
	// Proposal is, on a commit or abort block, the proposal block it
	// decides (see LinkProposals).
	Proposal *Block
	// Rewards holds, for each RewardValidatorTx of the block, keyed by the
	// staker tx it rewards, the reward UTXOs the node reports for it (see
	// SetRewardUTXOs); nil when they were not fetched.
	Rewards map[ids.ID][]*UTXO
}

// Tx is one P-chain tx, decoded once: as stored, parsed, and what it does
// to the UTXO set.
type Tx struct {
	internal.PTx
	Tx    *txs.Tx
	UTXOs *TxUTXOs
}

// NewTx decodes the parsed tx.
func NewTx(tx *txs.Tx) (*Tx, error) {
	eff, err := UTXOsOfTx(tx)
	if err != nil {
		return nil, err
	}
	return &Tx{PTx: internal.PTx{ID: tx.ID(), Type: typeName(tx.Unsigned), Bytes: tx.Bytes()}, Tx: tx, UTXOs: eff}, nil
}

// Decode parses the platformvm bytes of the block the node accepted at
// height. The height-0 block carries the genesis when it is known.
func Decode(height uint64, b []byte) (*Block, error) {
	blk, err := block.Parse(block.Codec, b)
	if err != nil {
		return nil, fmt.Errorf("parsing P-chain block at height %d: %w", height, err)
	}
	if blk.Height() != height {
		return nil, fmt.Errorf("P-chain block %s claims height %d, expected %d", blk.ID(), blk.Height(), height)
	}
	pb := &Block{
		Height:   height,
		ID:       blk.ID(),
		ParentID: blk.Parent(),
		Type:     typeName(blk),
		Bytes:    b,
	}
	// Only Banff and later blocks carry a timestamp of their own.
	if tb, ok := blk.(interface{ Timestamp() time.Time }); ok {
		pb.Timestamp = tb.Timestamp().UTC()
	}
	for _, tx := range blk.Txs() {
		t, err := NewTx(tx)
		if err != nil {
			return nil, fmt.Errorf("P-chain block %d: %w", height, err)
		}
		pb.Txs = append(pb.Txs, t)
	}
	if height == 0 {
		g, ok, err := GenesisFor(pb.ParentID)
		if err != nil {
			return nil, err
		}
		if ok {
			pb.Genesis = g
		}
	}
	return pb, nil
}

// IsOption reports whether b is a commit or abort block: one that decides
// the proposal block before it.
func (b *Block) IsOption() bool {
	switch b.Type {
	case "BanffCommitBlock", "ApricotCommitBlock", "BanffAbortBlock", "ApricotAbortBlock":
		return true
	}
	return false
}

// Committed reports whether b is a commit block.
func (b *Block) Committed() bool {
	return b.Type == "BanffCommitBlock" || b.Type == "ApricotCommitBlock"
}

// LinkProposals sets the Proposal of every option block of blocks
// (consecutive heights, ascending) but the genesis: the block before it in
// blocks, or else lookup's block at that height, which must have the id
// the option block names as its parent.
func LinkProposals(blocks []*Block, lookup func(height uint64, id ids.ID) (*Block, error)) error {
	for i, b := range blocks {
		if b.Height == 0 || !b.IsOption() {
			continue
		}
		var prop *Block
		if i > 0 {
			prop = blocks[i-1]
		} else {
			var err error
			if prop, err = lookup(b.Height-1, b.ParentID); err != nil {
				return fmt.Errorf("proposal block %d decided by %s %s: %w", b.Height-1, b.Type, b.ID, err)
			}
		}
		if prop == nil || prop.Height != b.Height-1 || prop.ID != b.ParentID {
			return fmt.Errorf("%s %s at height %d: the block before it is not its parent %s", b.Type, b.ID, b.Height, b.ParentID)
		}
		b.Proposal = prop
	}
	return nil
}

// RewardedStakers returns the staker tx ids that the RewardValidatorTxs of
// b reward, in block order.
func (b *Block) RewardedStakers() []ids.ID {
	var out []ids.ID
	for _, t := range b.Txs {
		if s := t.UTXOs.RewardedStaker; s != ids.Empty {
			out = append(out, s)
		}
	}
	return out
}

// SetRewardUTXOs decodes raw, the reward UTXOs the node reports for staker
// (platform.getRewardUTXOs, in the node's encoding), into b.Rewards.
func (b *Block) SetRewardUTXOs(staker ids.ID, raw [][]byte) error {
	us := make([]*UTXO, 0, len(raw))
	for i, rb := range raw {
		u, err := ParseUTXO(rb)
		if err != nil {
			return fmt.Errorf("block %d: reward UTXO %d of staker %s: %w", b.Height, i, staker, err)
		}
		if u.UTXO.TxID != staker {
			return fmt.Errorf("block %d: reward UTXO %s is not of staker %s", b.Height, &u.UTXO.UTXOID, staker)
		}
		us = append(us, u)
	}
	if b.Rewards == nil {
		b.Rewards = map[ids.ID][]*UTXO{}
	}
	b.Rewards[staker] = us
	return nil
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
