-- A balance of 256 addresses at 10 million UTXOs read the uncounted rows'
-- keys off address_utxos_unsummed and then each row from the table, a
-- page apart (issue #21's target: p99 20 ms for the whole request).

-- The uncounted rows' index carries every column eachUTXO reads, so that
-- an index-only scan answers it where the pages are all-visible. Few rows
-- are uncounted, so the wider entries cost the writes little.
DROP INDEX address_utxos_unsummed;
CREATE INDEX address_utxos_unsummed ON address_utxos (chain, address, spent, summed) INCLUDE (utxo_id, origin, kind,
    asset_id, amount_key, locktime, stakeable_locktime, threshold, created_time) WHERE spent = 0 AND summed = 0;
