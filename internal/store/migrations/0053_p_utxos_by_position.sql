-- Every P-chain UTXO paid for two indexes of random keys (tx ids),
-- p_utxos_created_tx on insert and p_utxos_consumed_tx when spent, so a
-- batch's commit wrote about a page of each per UTXO. Their readers find
-- the UTXOs by their txs' positions instead: the address history joins a
-- range's txs to the UTXOs they created (p_utxos_created) and spent
-- (p_utxos_consumed, in chain order), and a tx's page reads the UTXOs
-- whose tx_id is the tx (p_utxos_tx) plus the few that name another tx,
-- reward UTXOs (tx_id is the staker's tx) and genesis allocations, kept in
-- a partial index of their own.
DROP INDEX p_utxos_created_tx;
DROP INDEX p_utxos_consumed_tx;
CREATE INDEX p_utxos_created_other ON p_utxos (created_tx_id) WHERE created_tx_id <> tx_id;
CREATE INDEX p_utxos_consumed ON p_utxos (consumed_height, consumed_idx);
