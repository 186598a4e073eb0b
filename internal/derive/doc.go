// Package derive is the derivation layer between the chain packages,
// which decode, and the store, which persists and decodes nothing: a
// rederive (Rederive, RunPendingRederives: what is stored of a chain
// decoded and derived again, as the indexer does, and handed to the
// store's appliers in batches, with progress) and the decoders of stored blocks that the store's metrics
// catch-up reads at Open (MetricDecoders).
package derive
