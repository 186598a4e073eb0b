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

// Block is one accepted EVM block, decoded once, carrying everything the
// store's appliers write.
type Block struct {
	internal.EVMBlock
	Txs  []internal.EVMTx
	Logs []Log
	// InternalTxs are the call frames below each tx's top-level call, in
	// tx order then depth-first order; empty when not Traced.
	InternalTxs []internal.EVMInternalTx
	// Transfers are the token transfers of the logs, in log order.
	Transfers []internal.EVMTransfer
	// Contracts are the contracts the block's txs deployed (top level and
	// internal CREATE/CREATE2 that were not reverted), described.
	Contracts []internal.EVMContract
	// Seen are contracts whose logs are transfers but that no indexed
	// block deployed (a genesis allocation, or a deployment in an earlier
	// block of the same batch), described; a deployment row wins over them.
	Seen []internal.EVMContract
	// NFTURIs are the token URIs read for the block (at its height): of
	// the tokens it minted and whose metadata events it emitted, in log
	// order (NFTChanges, then the follower's reads).
	NFTURIs []internal.NFTURI
	// NFTRefreshes are its ERC-4906 BatchMetadataUpdate events.
	NFTRefreshes []internal.NFTRefresh
	// Teleporter are the block's Teleporter messages, in log order.
	Teleporter []internal.TeleporterMessage
	// Balances are the native balance changes of the block, one per
	// address, in address order.
	Balances []BalanceChange
	// Traced is true when internal txs and balances come from the node's
	// tracers (and, for block 0, from a known genesis): the block's
	// balances are exact.
	Traced bool
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
type Log struct {
	TxIndex uint32
	// Index is the log's position in the block.
	Index   uint32
	Address common.Address
	Topics  []common.Hash
	Data    []byte
}

// BalanceChange is an address's native balance after a block: Balance
// when the block tells it (a tx's trace, the genesis), otherwise Delta, to
// add to the balance after the previous block (an atomic import or export
// that no tx of the block touched). Exactly one of them is set.
type BalanceChange struct {
	Address common.Address
	Balance *big.Int
	Delta   *big.Int
}
