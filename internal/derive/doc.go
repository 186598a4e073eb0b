// Package derive is the derivation layer between the chain packages,
// which decode, and the store, which persists and decodes nothing: the
// derivation work a migration leaves (Backfiller: the backfills it asks
// for, each in chunks committed with its cursor, and the chain metrics'
// catch-up of the stored P- and X-chain blocks, which it decodes; with
// progress, and PendingWork for /readyz), and a rederive (Rederive,
// RunPendingRederives: what is stored of a chain decoded and derived
// again, as the indexer does, and handed to the store's appliers in
// batches, with progress). All of it runs under the indexer lease, before
// the indexer.
package derive
