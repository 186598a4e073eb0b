-- A balance of 256 addresses at 10 million UTXOs read 8 ms p50 and 14 ms
-- p99 of rows off address_utxos_unsummed alone (issue #21's target: p99
-- 20 ms for the whole request): the index gave only the rows' keys, and
-- each row was then read from the table, a page apart.

-- address_balances is written and read by its key only (the appliers'
-- upserts, a balance's addresses looked up): one B-tree ordered by the
-- key (WITHOUT ROWID), so that an address's groups lie in one leaf.
CREATE TABLE address_balances_by_key (
    chain              TEXT   NOT NULL,
    address            BYTEA  NOT NULL,
    origin             TEXT   NOT NULL,
    asset_id           BYTEA  NOT NULL,
    kind               TEXT   NOT NULL,
    locktime           BIGINT NOT NULL,
    stakeable_locktime BIGINT NOT NULL,
    amount_lo          BIGINT NOT NULL,
    amount_hi          BIGINT NOT NULL,
    utxos              BIGINT NOT NULL,
    PRIMARY KEY (chain, address, origin, asset_id, kind, locktime, stakeable_locktime)
) WITHOUT ROWID;
INSERT INTO address_balances_by_key SELECT chain, address, origin, asset_id, kind, locktime, stakeable_locktime,
    amount_lo, amount_hi, utxos FROM address_balances ORDER BY chain, address, origin, asset_id, kind, locktime,
    stakeable_locktime;
DROP TABLE address_balances;
ALTER TABLE address_balances_by_key RENAME TO address_balances;

-- The uncounted rows' index carries every column eachUTXO reads (SQLite
-- has no INCLUDE: they extend the key), so that the read never leaves
-- it. Few rows are uncounted, so the wider entries cost the writes little.
DROP INDEX address_utxos_unsummed;
CREATE INDEX address_utxos_unsummed ON address_utxos (chain, address, spent, summed, utxo_id, origin, kind, asset_id,
    amount_key, locktime, stakeable_locktime, threshold, created_time) WHERE spent = 0 AND summed = 0;
