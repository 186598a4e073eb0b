package internal

import (
	"math/big"

	"github.com/ava-labs/libevm/common"
)

// ERC-20 balances kept from the Transfer logs: each ERC-20 transfer
// debits its sender and credits its recipient, the zero address excepted
// (a mint, a burn: the token's supply). derive/erc20 applies the moves;
// the store keeps the results.

// ERC20Move is one ERC-20 transfer as the balances apply it.
type ERC20Move struct {
	Block           uint64
	Token, From, To common.Address
	Value           *big.Int
}

// ERC20Holder is an address's holding of one token.
type ERC20Holder struct {
	Address, Token common.Address
}

// ERC20Balance is a holder's balance after Block. As a holding (the
// latest balance) it also has the first block that moved it.
type ERC20Balance struct {
	ERC20Holder
	First, Block uint64
	Balance      *big.Int
}

// ERC20Token is what is kept of an ERC-20 token's balances.
type ERC20Token struct {
	Token common.Address
	// Block is the last block whose transfers of the token are applied.
	Block uint64
	// Supply is the supply the logs tell: mints less burns.
	Supply *big.Int
	// Unexplained is set when the token's logs do not explain its
	// balances (Reason says how): they are then the node's to answer.
	Unexplained bool
	Reason      string
}
