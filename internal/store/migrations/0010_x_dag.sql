-- The X-chain's pre-Cortina transactions. Until Cortina, mainnet's and
-- fuji's X-chains ran as a DAG: their txs are in no block, and a node run
-- with --index-enabled serves them, in acceptance order, as the X/tx index
-- that avaindex mirrors into containers (0002).
--
-- x_dag_txs is a sibling of x_txs, not x_txs itself: x_txs rows are keyed
-- to a block (block_height NOT NULL REFERENCES x_blocks) and the linear
-- chain's checks count a block's txs there. A DAG tx's place is its index
-- in the X/tx index (idx) and its time the container's acceptance time.
-- Its bytes are not copied: they are the container's (index_name 'X/tx',
-- same idx), which is never rewritten. The cursors row 'X/dag' is the last
-- container decoded.
--
-- Positions in x_utxos and the *_imported_utxos tables: a DAG tx is at
-- height 0, idx = its X/tx index. Block 0 of a DAG chain is the
-- linearization and holds no tx, so (0, idx >= 0) names a DAG tx; the
-- genesis stays at (0, -1), and on a DAG chain its time is the network's
-- genesis time.

CREATE TABLE x_dag_txs (
    idx       BIGINT PRIMARY KEY, -- position in the X/tx index
    id        BYTEA  NOT NULL UNIQUE,
    type      TEXT   NOT NULL,    -- avm tx type, e.g. 'CreateAssetTx'
    timestamp BIGINT NOT NULL     -- acceptance time, unix seconds
);

-- X-chain spends stored before the UTXO they spend: post-Cortina blocks
-- spend UTXOs of DAG txs, and blocks and DAG txs are applied concurrently
-- in any order. When the UTXO is stored it is marked consumed from here
-- and the row is deleted, so rows left name spends of UTXOs not indexed
-- (yet): e.g. the DAG history of a node without --index-enabled.
CREATE TABLE x_early_spends (
    utxo_id         BYTEA   PRIMARY KEY,
    consumed_tx_id  BYTEA   NOT NULL,
    consumed_height BIGINT  NOT NULL,
    consumed_idx    INTEGER NOT NULL,
    consumed_time   BIGINT  NOT NULL
);
