-- X-chain (post-Cortina) blocks and transactions, shaped like the P-chain's,
-- and the atomic transactions found in C-chain blocks.

CREATE TABLE x_blocks (
    height    BIGINT PRIMARY KEY,
    id        BYTEA  NOT NULL UNIQUE,
    parent_id BYTEA  NOT NULL,
    type      TEXT   NOT NULL,
    timestamp BIGINT NOT NULL,
    bytes     BYTEA  NOT NULL
);

CREATE TABLE x_txs (
    id           BYTEA   PRIMARY KEY,
    block_height BIGINT  NOT NULL REFERENCES x_blocks (height),
    idx          INTEGER NOT NULL,
    type         TEXT    NOT NULL,
    bytes        BYTEA   NOT NULL
);

CREATE INDEX x_txs_block_height ON x_txs (block_height, idx);

CREATE TABLE c_atomic_txs (
    id           BYTEA   PRIMARY KEY,
    block_height BIGINT  NOT NULL,
    block_hash   BYTEA   NOT NULL,
    idx          INTEGER NOT NULL, -- position in the block's extra data
    type         TEXT    NOT NULL, -- ImportTx or ExportTx
    timestamp    BIGINT  NOT NULL,
    bytes        BYTEA   NOT NULL
);

CREATE INDEX c_atomic_txs_block_height ON c_atomic_txs (block_height, idx);

-- The id (or hash) of the block at each cursor, so that a follower can
-- check that the next block links to what was stored.
ALTER TABLE cursors ADD COLUMN block_id BYTEA;
