-- The per-address transaction history of the Data API
-- (GET /v1/networks/{network}/blockchains/{blockchainId}/transactions with
-- addresses), derived from the UTXO tables (0003, 0007, 0010) and the
-- staker lists (0020) by an applier of each chain in the blocks'
-- transaction (addresstxs.go).
--
-- A chain's list holds the chain's txs that created or consumed a UTXO an
-- address owns (imported UTXOs included, whichever chain's indexer
-- reached them first), and on the P-chain the staking txs whose reward
-- owners name it; on the C-chain also the EVM addresses an atomic tx
-- debits or credits. One row per (list, address, tx), carrying the order
-- (block time, then the tx's position) and the type filter, so that each
-- address's history is one range of an index in either order; a page
-- merges those ranges (keyset.go), as the UTXO lists do.

CREATE TABLE address_txs (
    chain   TEXT   NOT NULL, -- the list: 'P', 'X' or 'C'
    address BYTEA  NOT NULL, -- 20 bytes: a secp256k1fx address, or an EVM address on 'C'
    tx_time BIGINT NOT NULL, -- the accepting block's time (a DAG tx's acceptance time), unix seconds
    -- The tx's position, 8 bytes big-endian (block height << 32 | index
    -- in the block; a DAG tx's X/tx index at height 0), then its id.
    tx_key  BYTEA  NOT NULL,
    tx_type TEXT   NOT NULL,
    PRIMARY KEY (chain, address, tx_key)
);

-- The trailing column lets a page's merge filter on the tx type from the
-- index alone.
CREATE INDEX address_txs_list ON address_txs (chain, address, tx_time, tx_key, tx_type);

-- The rows of txs stored before this table existed are written by the
-- backfill (internal/derive, store/backfill.go) from the stored UTXOs; the EVM
-- addresses of the C-chain's atomic txs, which only the decoded txs name,
-- by a rederive of the C-chain the backfill asks for.
INSERT INTO settings (key, value) VALUES ('backfill:address_txs', '');

-- The P- and X-chain blocks each node proposed (GET .../nodes/{nodeId}/blocks),
-- read from the proposervm wrapper of the containers mirrored from the
-- node's P/block and X/block indexes (0002) when they are stored
-- (proposers.go). A block no node signed (an option block, a block built
-- before the proposer window, a container of the chain before the
-- proposervm) has no row.
CREATE TABLE block_proposers (
    index_name     TEXT   NOT NULL, -- 'P/block' or 'X/block'
    node_id        BYTEA  NOT NULL,
    idx            BIGINT NOT NULL, -- the container's index: the blocks' order
    block_id       BYTEA  NOT NULL, -- the inner (platformvm, avm) block's id
    proposer_id    BYTEA  NOT NULL, -- the proposervm block's id (the container's)
    parent_id      BYTEA  NOT NULL, -- the proposervm parent
    p_chain_height BIGINT NOT NULL,
    timestamp      BIGINT NOT NULL, -- the proposervm timestamp, unix seconds
    PRIMARY KEY (index_name, node_id, idx)
);

INSERT INTO settings (key, value) VALUES ('backfill:block_proposers', '');
