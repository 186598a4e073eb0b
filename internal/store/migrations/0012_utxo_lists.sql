-- The per-address UTXO lists of the Data API (GET and POST
-- /v1/networks/{network}/blockchains/{blockchainId}/utxos), derived from
-- the UTXO tables (0003, 0007) by the appliers in the blocks' transaction.
--
-- A chain's list holds the UTXOs created on it and the atomic UTXOs
-- exported to it: an exported UTXO has rows on its source chain and on its
-- destination chain. One row per (UTXO, list, owner address), carrying the
-- sort keys and the filters, so that each address's part of a list is one
-- range of an index in either order; a page merges those ranges (see
-- keyset.go). A UTXO's rows are marked spent when it is consumed (imported,
-- for an exported UTXO).

CREATE TABLE address_utxos (
    utxo_id      BYTEA   NOT NULL,
    chain        TEXT    NOT NULL, -- the list: 'P', 'X' or 'C'
    address      BYTEA   NOT NULL,
    origin       TEXT    NOT NULL, -- the chain that created it: p_utxos, x_utxos or c_atomic_utxos
    created_time BIGINT  NOT NULL,
    -- The amount with its top bit flipped: BIGINT's signed order is then
    -- the amounts' unsigned order, above 2^63 too.
    amount_key   BIGINT  NOT NULL,
    asset_id     BYTEA   NOT NULL,
    threshold    INTEGER NOT NULL,
    spent        INTEGER NOT NULL, -- 0 unspent, 1 consumed
    PRIMARY KEY (utxo_id, chain, address)
);

-- One per sort key. The trailing columns let a page's merge read the index
-- alone (SQLite has no INCLUDE): the other key and the threshold.
CREATE INDEX address_utxos_time ON address_utxos (chain, address, spent, created_time, utxo_id, amount_key, threshold);
CREATE INDEX address_utxos_amount ON address_utxos (chain, address, spent, amount_key, utxo_id, created_time, threshold);

-- The rows of UTXOs stored before this table existed are written by the
-- backfill this row asks for (internal/derive, store/backfill.go), before
-- the indexer starts: an exported UTXO's destination list needs the
-- network's chain ids, which only the service knows.
INSERT INTO settings (key, value) VALUES ('backfill:address_utxos', '');
