-- A balance now (getBalancesByAddresses without blockTimestamp) read
-- every unspent UTXO of the addresses off address_utxos_amount: 120,000
-- rows for the heaviest address of a 10-million-UTXO store, far over the
-- issue's 20 ms (#21). It now reads per-address sums instead.

-- The unspent UTXOs of one owner, alike in all a balance judges: origin,
-- asset, kind and locks (stakeable_locktime 0 when none), summed: the
-- amounts' low and high 32 bits apart (amount = amount_hi * 2^32 +
-- amount_lo), so that SQL adds to them without overflow on both stores,
-- and their number. Kept by the appliers with the list rows
-- (addressbalances.go); a group whose UTXOs were all spent loses its row.
CREATE TABLE address_balances (
    chain              TEXT   NOT NULL, -- the list, as address_utxos.chain
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
);

-- Which list rows the sums count: 1 for the UTXO of one owner whose state
-- the row holds (not a P-chain stake output, whose staking period is its
-- staker's, nor an X-chain output of kind 'other', decoded), 0 for the
-- others, which a balance still reads one by one (a UTXO of several
-- owners would be counted once per owner asked for); NULL on a row stored
-- before this migration, until the backfill below reaches it.
ALTER TABLE address_utxos ADD COLUMN summed INTEGER;

-- The unspent rows the sums do not count: a balance's other read. spent
-- and summed are in the key, constant as they are, so that SQLite's
-- planner, which keeps no statistics here, prefers it to
-- address_utxos_amount (three equal columns to its four).
CREATE INDEX address_utxos_unsummed ON address_utxos (chain, address, spent, summed) WHERE spent = 0 AND summed = 0;

-- Stores indexed before: summed and the sums from address_utxos
-- (addressbalances.go, addressBalanceParts); until it is done a balance
-- reads the rows as before.
INSERT INTO settings (key, value) VALUES ('backfill:address_balances', '');
