// Package derive is the derivation layer between the chain packages,
// which decode, and the store, which persists and decodes nothing: the
// derivation work a migration leaves (Backfiller: the backfills it asks
// for, each in chunks committed with its cursor, and the chain metrics'
// catch-up of the stored P- and X-chain blocks, which it decodes; with
// progress, and PendingWork for /readyz), and a rederive (Rederive,
// RunPendingRederives: what is stored of a chain decoded and derived
// again, as the indexer does, in batches, each through the chain's list,
// with progress). All of it runs under the indexer lease, before the
// indexer.
//
// What a batch of blocks derives is in its subpackages, which import
// neither the store nor this package: a list per chain (pstate, xstate,
// cstate, evmstate), whose steps are the nouns' packages (addresstxs,
// balances, burned, erc20, metrics, nfts, rewards, sharedmemory,
// staking, utxoset, webhookevents) over writer interfaces the store's
// batch transactions satisfy.
package derive
