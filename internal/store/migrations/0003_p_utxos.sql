-- The P-chain's UTXOs over their whole life, and the atomic UTXOs the
-- P-chain exports to or imports from other chains. One text for SQLite and
-- PostgreSQL. uint64 values (amounts, locktimes) are stored as their int64
-- bits; heights as BIGINT; times are unix seconds (the block's, 0 for
-- pre-Banff blocks, the genesis time at height 0). A position (height, idx)
-- is a tx's block height and its index in the block (-1 for genesis and
-- for outputs that no tx of the block creates itself).

CREATE TABLE p_utxos (
    id                 BYTEA   PRIMARY KEY, -- avalanchego's UTXO key: tx_id prefixed with output_index
    tx_id              BYTEA   NOT NULL,    -- UTXOID.TxID (the staker tx for stake and reward UTXOs)
    output_index       BIGINT  NOT NULL,
    -- 'regular' (a tx's outputs, genesis allocations), 'stake' (stake
    -- outputs of a staker tx), 'reward' (reward UTXOs of a
    -- RewardValidatorTx), 'exported' (put into another chain's shared
    -- memory; never part of the P-chain's UTXO set).
    kind               TEXT    NOT NULL,
    peer_chain_id      BYTEA,               -- 'exported': the destination chain
    asset_id           BYTEA   NOT NULL,
    amount             BIGINT  NOT NULL,
    locktime           BIGINT  NOT NULL,    -- the owners' locktime
    threshold          BIGINT  NOT NULL,
    stakeable_locktime BIGINT,              -- NULL unless a stakeable.LockOut
    bytes              BYTEA   NOT NULL,    -- avax.UTXO as the node encodes it (txs.Codec)
    created_tx_id      BYTEA   NOT NULL,    -- the tx that created it (the RewardValidatorTx for rewards)
    created_height     BIGINT  NOT NULL,
    created_idx        INTEGER NOT NULL,
    created_time       BIGINT  NOT NULL,
    -- Stake outputs are staked while their staker is active; released_*
    -- names the tx that returned them (the RewardValidatorTx, or the
    -- staker tx itself when a pre-Banff staker proposal was aborted).
    staked             BOOLEAN NOT NULL,
    released_tx_id     BYTEA,
    -- The height whose commit put the UTXO into the P-chain's UTXO set;
    -- NULL while staked and for exported outputs. The node lists an
    -- address's UTXOs newest first by this.
    spendable_height   BIGINT,
    consumed_tx_id     BYTEA,               -- NULL while unspent
    consumed_height    BIGINT,
    consumed_idx       INTEGER,
    consumed_time      BIGINT
);

CREATE INDEX p_utxos_tx ON p_utxos (tx_id, output_index);
CREATE INDEX p_utxos_created ON p_utxos (created_height, created_idx);

-- The owners' addresses (20 bytes) of each UTXO.
CREATE TABLE p_utxo_addresses (
    address BYTEA NOT NULL,
    utxo_id BYTEA NOT NULL REFERENCES p_utxos (id),
    PRIMARY KEY (address, utxo_id)
);

-- UTXOs of other chains' shared memory consumed by P-chain ImportTxs.
CREATE TABLE p_imported_utxos (
    id              BYTEA   PRIMARY KEY, -- the consumed UTXO's key
    source_chain_id BYTEA   NOT NULL,
    tx_id           BYTEA   NOT NULL,    -- UTXOID.TxID on the source chain
    output_index    BIGINT  NOT NULL,
    asset_id        BYTEA   NOT NULL,
    amount          BIGINT  NOT NULL,
    consumed_tx_id  BYTEA   NOT NULL,    -- the ImportTx
    consumed_height BIGINT  NOT NULL,
    consumed_idx    INTEGER NOT NULL,
    consumed_time   BIGINT  NOT NULL
);

CREATE INDEX p_imported_utxos_consumed ON p_imported_utxos (consumed_height, consumed_idx);
