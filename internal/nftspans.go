package internal

import (
	"math"
	"math/big"

	"github.com/ava-labs/libevm/common"
)

// The holding spans of each NFT contract's holders: a holder's count of
// the contract's tokens and the blocks over which it held it, which
// derive/nfts keeps from the NFT transfers, so that the holders over a
// range read the spans that overlap it.

// NFTMove is an ERC-721 or ERC-1155 transfer as the spans count it: one
// token for ERC-721, the value's units for ERC-1155.
type NFTMove struct {
	Block    uint64
	Contract common.Address
	From, To common.Address
	Amount   *big.Int
}

// NFTHolder is a holder of a contract's tokens.
type NFTHolder struct {
	Contract, Holder common.Address
}

// OpenSpan is the To of a holder's current span.
const OpenSpan = math.MaxInt64

// NFTSpan is a holder's count of a contract's tokens over the blocks
// [From, To): after block From, up to block To's change.
type NFTSpan struct {
	NFTHolder
	From, To uint64
	Amount   *big.Int
}
