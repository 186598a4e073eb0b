-- The address history's applier (addresstxs.go) finds the owners of the
-- C-chain UTXOs a P- or X-chain tx imports by UTXO id; the table's key
-- leads with the address, so each batch built a temporary index of the
-- whole table (SQLite) or scanned it.
CREATE INDEX c_atomic_utxo_addresses_utxo ON c_atomic_utxo_addresses (utxo_id);
