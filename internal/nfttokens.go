package internal

import (
	"math/big"

	"github.com/ava-labs/libevm/common"
)

// The NFT tokens, ERC-1155 balances and holders' counts that derive/nfts
// keeps from the NFT transfers, URI reads and metadata updates.

// NFTID is one token of an NFT contract, its id as the 32 bytes it is
// stored as.
type NFTID struct {
	Token common.Address
	ID    common.Hash
}

// NFTHeld is an ERC-1155 token id a holder holds some of.
type NFTHeld struct {
	Holder common.Address
	NFTID
}

// NFTTouch is what a batch did to a token: the first block that touched
// it (its mint block, when it is new), its owner after the batch when the
// batch moved an ERC-721 one, and the URI its contract told when the
// batch read it (URIRead), which queues its metadata.
type NFTTouch struct {
	NFTID
	Type    ERCType
	First   uint64
	Owner   *common.Address
	URIRead bool
	URI     *string
}

// NFTUnits is a holder's balance of an ERC-1155 token id.
type NFTUnits struct {
	NFTHeld
	Balance *big.Int
}

// NFTHolderDelta is a change of a holder's count of a contract's tokens:
// the ERC-721 tokens it owns, or the ERC-1155 token ids it holds some of.
type NFTHolderDelta struct {
	Contract common.Address
	Type     ERCType
	Holder   common.Address
	Delta    int64
}
