-- A balance (getBalancesByAddresses) sums an address set's UTXOs by asset
-- and by lock state. It read each UTXO's ids off address_utxos, then the
-- UTXO from p_utxos / x_utxos / c_atomic_utxos by id: two B-tree descents
-- per UTXO, half of a request's time. The list rows now carry what a
-- balance reads of an unspent UTXO besides what they had (origin, asset,
-- amount): its kind, locktime and stakeable locktime (0 when none), at the
-- end of address_utxos_amount, so that a balance is one index-only range
-- per address. The table reads of a balance are left to the few UTXOs
-- whose state is not in the row: P-chain stake outputs (their staking
-- period is the staker's), the X-chain's outputs of kind 'other' (decoded)
-- and, at a past time, consumed ones (when, is in the UTXO's table).
--
-- The appliers write the columns with the row (utxolists.go); kind is
-- NULL on a row the backfill below has not filled yet, which a balance
-- then reads from the UTXO's table as before.

ALTER TABLE address_utxos ADD COLUMN kind TEXT;
ALTER TABLE address_utxos ADD COLUMN locktime BIGINT;
ALTER TABLE address_utxos ADD COLUMN stakeable_locktime BIGINT;

-- Wider, not another index: the appliers' writes maintain as many entries
-- as before.
DROP INDEX address_utxos_amount;
CREATE INDEX address_utxos_amount ON address_utxos (chain, address, spent, amount_key, utxo_id, created_time, threshold,
    origin, asset_id, kind, locktime, stakeable_locktime);

-- The rows stored before this migration gain the columns by the backfill
-- (utxolists.go, balanceColumnParts), a range of created heights per
-- transaction.
INSERT INTO settings (key, value) VALUES ('backfill:address_utxo_balances', '');
