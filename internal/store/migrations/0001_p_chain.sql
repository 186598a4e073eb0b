-- P-chain blocks, their transactions, the ingest cursors and service
-- settings. One text for SQLite and PostgreSQL: BYTEA, BIGINT and TEXT are
-- understood by both. Heights are uint64 in Go and stored as BIGINT (signed);
-- real heights are far below 2^63.

CREATE TABLE p_blocks (
    height    BIGINT PRIMARY KEY,
    id        BYTEA  NOT NULL UNIQUE,
    parent_id BYTEA  NOT NULL,
    type      TEXT   NOT NULL,
    timestamp BIGINT NOT NULL, -- unix seconds; 0 for blocks without one
    bytes     BYTEA  NOT NULL
);

CREATE TABLE p_txs (
    id           BYTEA   PRIMARY KEY,
    block_height BIGINT  NOT NULL REFERENCES p_blocks (height),
    idx          INTEGER NOT NULL, -- position in the block
    type         TEXT    NOT NULL,
    bytes        BYTEA   NOT NULL
);

CREATE INDEX p_txs_block_height ON p_txs (block_height, idx);

-- The last height applied for each chain ("P", "X", "C").
CREATE TABLE cursors (
    chain  TEXT   PRIMARY KEY,
    height BIGINT NOT NULL
);

CREATE TABLE settings (
    key   TEXT  PRIMARY KEY,
    value BYTEA NOT NULL
);
