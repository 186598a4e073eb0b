-- The X-chain's UTXOs over their whole life, the atomic UTXOs the C-chain
-- exports, and the atomic UTXOs X and C import. Shaped like 0003's P-chain
-- tables, with the same conventions: uint64 values stored as their int64
-- bits, times in unix seconds, a position (height, idx) is a tx's block
-- height and its index in the block (-1 for the X-chain's genesis).
--
-- Exported UTXOs (p_utxos kind 'exported', x_utxos kind 'exported',
-- c_atomic_utxos) are marked consumed by the import that takes them out of
-- the destination chain's shared memory: consumed_* then name that import
-- and its position on the destination chain (peer_chain_id). An import
-- applied before its export is kept in the importing chain's
-- *_imported_utxos table and marks the export when it is stored. A UTXO id
-- names one UTXO across chains (it hashes its tx id), so exports and
-- imports are matched by id alone.

CREATE TABLE x_utxos (
    id             BYTEA   PRIMARY KEY, -- avax.UTXOID.InputID()
    tx_id          BYTEA   NOT NULL,
    output_index   BIGINT  NOT NULL,
    -- 'regular' (secp256k1fx transfer outputs), 'other' (mint, NFT and
    -- property outputs; amount 0), 'exported' (put into another chain's
    -- shared memory; never part of the X-chain's UTXO set).
    kind           TEXT    NOT NULL,
    peer_chain_id  BYTEA,               -- 'exported': the destination chain
    asset_id       BYTEA   NOT NULL,
    amount         BIGINT  NOT NULL,
    locktime       BIGINT  NOT NULL,
    threshold      BIGINT  NOT NULL,
    bytes          BYTEA   NOT NULL,    -- avax.UTXO as the avm encodes it
    created_tx_id  BYTEA   NOT NULL,
    created_height BIGINT  NOT NULL,
    created_idx    INTEGER NOT NULL,
    created_time   BIGINT  NOT NULL,
    consumed_tx_id  BYTEA,              -- NULL while unspent (or not imported)
    consumed_height BIGINT,
    consumed_idx    INTEGER,
    consumed_time   BIGINT
);

CREATE INDEX x_utxos_tx ON x_utxos (tx_id, output_index);
CREATE INDEX x_utxos_created ON x_utxos (created_height, created_idx);

CREATE TABLE x_utxo_addresses (
    address BYTEA NOT NULL,
    utxo_id BYTEA NOT NULL REFERENCES x_utxos (id),
    PRIMARY KEY (address, utxo_id)
);

-- UTXOs of other chains' shared memory consumed by X-chain ImportTxs.
CREATE TABLE x_imported_utxos (
    id              BYTEA   PRIMARY KEY,
    source_chain_id BYTEA   NOT NULL,
    tx_id           BYTEA   NOT NULL,
    output_index    BIGINT  NOT NULL,
    asset_id        BYTEA   NOT NULL,
    amount          BIGINT  NOT NULL,
    consumed_tx_id  BYTEA   NOT NULL,
    consumed_height BIGINT  NOT NULL,
    consumed_idx    INTEGER NOT NULL,
    consumed_time   BIGINT  NOT NULL
);

CREATE INDEX x_imported_utxos_consumed ON x_imported_utxos (consumed_height, consumed_idx);

-- UTXOs C-chain ExportTxs put into another chain's shared memory. created_*
-- is the C-chain block and the tx's index in its atomic txs.
CREATE TABLE c_atomic_utxos (
    id             BYTEA   PRIMARY KEY,
    tx_id          BYTEA   NOT NULL,
    output_index   BIGINT  NOT NULL,
    peer_chain_id  BYTEA   NOT NULL,    -- the destination chain
    asset_id       BYTEA   NOT NULL,
    amount         BIGINT  NOT NULL,
    locktime       BIGINT  NOT NULL,
    threshold      BIGINT  NOT NULL,
    bytes          BYTEA   NOT NULL,    -- avax.UTXO as coreth's atomic codec encodes it
    created_tx_id  BYTEA   NOT NULL,
    created_height BIGINT  NOT NULL,
    created_idx    INTEGER NOT NULL,
    created_time   BIGINT  NOT NULL,
    consumed_tx_id  BYTEA,
    consumed_height BIGINT,
    consumed_idx    INTEGER,
    consumed_time   BIGINT
);

CREATE INDEX c_atomic_utxos_created ON c_atomic_utxos (created_height, created_idx);

CREATE TABLE c_atomic_utxo_addresses (
    address BYTEA NOT NULL,
    utxo_id BYTEA NOT NULL REFERENCES c_atomic_utxos (id),
    PRIMARY KEY (address, utxo_id)
);

-- UTXOs of other chains' shared memory consumed by C-chain ImportTxs.
CREATE TABLE c_imported_utxos (
    id              BYTEA   PRIMARY KEY,
    source_chain_id BYTEA   NOT NULL,
    tx_id           BYTEA   NOT NULL,
    output_index    BIGINT  NOT NULL,
    asset_id        BYTEA   NOT NULL,
    amount          BIGINT  NOT NULL,
    consumed_tx_id  BYTEA   NOT NULL,
    consumed_height BIGINT  NOT NULL,
    consumed_idx    INTEGER NOT NULL,
    consumed_time   BIGINT  NOT NULL
);

CREATE INDEX c_imported_utxos_consumed ON c_imported_utxos (consumed_height, consumed_idx);
