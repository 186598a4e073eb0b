-- Indexes for the Data API's transaction reads: the UTXOs a tx emitted and
-- consumed (a tx's page, GET .../transactions/{txHash}), the X-chain txs
-- that moved an asset, newest first (GET .../assets/{assetId}/transactions),
-- and the current stakers by start time (GET .../transactions:listStaking).

CREATE INDEX p_utxos_created_tx ON p_utxos (created_tx_id);
CREATE INDEX p_utxos_consumed_tx ON p_utxos (consumed_tx_id);
CREATE INDEX p_imported_utxos_consumed_tx ON p_imported_utxos (consumed_tx_id);

CREATE INDEX x_utxos_created_tx ON x_utxos (created_tx_id);
CREATE INDEX x_utxos_consumed_tx ON x_utxos (consumed_tx_id);
CREATE INDEX x_imported_utxos_consumed_tx ON x_imported_utxos (consumed_tx_id);

CREATE INDEX c_atomic_utxos_created_tx ON c_atomic_utxos (created_tx_id);
CREATE INDEX c_imported_utxos_consumed_tx ON c_imported_utxos (consumed_tx_id);

CREATE INDEX x_utxos_asset_created ON x_utxos (asset_id, created_height, created_idx);
CREATE INDEX x_utxos_asset_consumed ON x_utxos (asset_id, consumed_height, consumed_idx);
CREATE INDEX x_imported_utxos_asset ON x_imported_utxos (asset_id, consumed_height, consumed_idx);

CREATE INDEX p_stakers_current_start ON p_stakers (start_time, tx_id) WHERE removed_tx_id IS NULL;
