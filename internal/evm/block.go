// Package evm decodes the blocks of EVM chains (the C-chain and Avalanche
// L1s) from the node's JSON-RPC answers: each block with its transactions
// and receipts, its logs, the internal transactions and balance changes of
// its traces, the token transfers and Teleporter messages of its logs, and
// the contracts its transactions deployed. It is pure: no SQL, no HTTP; the
// contract descriptions it needs (eth_call answers) are handed to it.
//
// The block's txs, logs, internal txs and deployments come from the call
// frames of the muxTracer's traces, balance changes from the prestate
// diffs (and atomic txs, native-minter mints); transfers are classified
// once the contracts' types are known (Classify), contracts described from
// eth_call answers (Describe); the genesis allocation is decoded here too.
// nft.go reads the NFT metadata events (ERC-4906, ERC-1155 URI), the tokens
// whose URI to read (NFTChanges) and the tokenURI/uri answers, with {id}
// substituted.
package evm

import (
	"math/big"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// Block is one accepted EVM block, decoded once: what the store keeps
// of it (internal.EVMBlockData) and what the follower still has to ask
// the node.
type Block struct {
	internal.EVMBlockData
	// Unresolved are addresses whose balance after the block the traces do
	// not tell (a contract that self-destructed to itself): the follower
	// asks the node (Resolve).
	Unresolved []common.Address

	// candidates are the indexes in Logs of possible token transfers.
	candidates []int
	// nftEvents are the indexes in Logs of NFT metadata events.
	nftEvents []int
}

// Resolve sets the balances after the block of the Unresolved addresses,
// as the node answered them.
func (b *Block) Resolve(balances map[common.Address]*big.Int) {
	for _, a := range b.Unresolved {
		if v, ok := balances[a]; ok {
			b.Balances = append(b.Balances, BalanceChange{Address: a, Balance: v})
		}
	}
	b.Unresolved = nil
	sortBalances(b.Balances)
}

// Log is one log of a block's receipts.
type Log = internal.EVMLog

// BalanceChange is an address's native balance after a block.
type BalanceChange = internal.EVMBalanceChange

// Data returns what the store keeps of blocks, in their order.
func Data(blocks []*Block) []*internal.EVMBlockData {
	out := make([]*internal.EVMBlockData, len(blocks))
	for i, b := range blocks {
		out[i] = &b.EVMBlockData
	}
	return out
}
