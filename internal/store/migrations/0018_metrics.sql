-- The chain metrics of the Metrics API, rolled up from the blocks as they
-- are indexed (store/metrics.go) so that a series is read from a few
-- hundred rows and never from the blocks. A chain is keyed by its cursor
-- name for the primary network's chains ('P', 'X') and by its EVM chain
-- id in decimal for the EVM chains. Times are unix seconds, UTC.

-- One row per chain: how far its blocks are rolled up, and its totals.
CREATE TABLE metric_chains (
    chain_key     TEXT   PRIMARY KEY,
    next_height   BIGINT NOT NULL, -- blocks below it are rolled up
    first_ts      BIGINT NOT NULL, -- the first block after the genesis; 0 while none
    last_ts       BIGINT NOT NULL, -- the last block rolled up; 0 while none
    txs           BIGINT NOT NULL,
    addresses     BIGINT NOT NULL, -- distinct addresses ever seen
    contracts     BIGINT NOT NULL,
    deployers     BIGINT NOT NULL, -- distinct contract deployers ever seen
    updated_at    BIGINT NOT NULL  -- wall clock of the last rollup
);

-- One row per chain, period ('hour', 'day', 'week' from Monday, 'month')
-- and period start with at least one block. The cumulative columns are the
-- chain's totals after the period's last block.
CREATE TABLE metric_rollups (
    chain_key     TEXT             NOT NULL,
    period        TEXT             NOT NULL,
    start         BIGINT           NOT NULL,
    blocks        BIGINT           NOT NULL,
    txs           BIGINT           NOT NULL,
    gas_used      BIGINT           NOT NULL,
    gas_price_sum DOUBLE PRECISION NOT NULL, -- wei, over the txs
    gas_price_max DOUBLE PRECISION NOT NULL,
    fees          DOUBLE PRECISION NOT NULL, -- wei: gas used times gas price
    max_tps       DOUBLE PRECISION NOT NULL, -- a block's txs over the seconds since the block before it
    max_gps       DOUBLE PRECISION NOT NULL,
    first_ts      BIGINT           NOT NULL, -- the period's first block
    last_ts       BIGINT           NOT NULL, -- the period's last block
    prev_ts       BIGINT           NOT NULL, -- the block before the period's first; 0 for the genesis
    addresses     BIGINT           NOT NULL, -- distinct, exact (metric_addresses)
    senders       BIGINT           NOT NULL,
    contracts     BIGINT           NOT NULL,
    deployers     BIGINT           NOT NULL,
    cum_txs       BIGINT           NOT NULL,
    cum_addresses BIGINT           NOT NULL,
    cum_contracts BIGINT           NOT NULL,
    cum_deployers BIGINT           NOT NULL,
    PRIMARY KEY (chain_key, period, start)
);

-- Every address a chain's blocks touched, with the start of the hour it
-- was last seen in as any address, as a sender and as a contract deployer
-- (-1: never). A
-- chain's blocks come in time order, so an address is new to a period
-- exactly when it was last seen (in that role) before the period: the
-- distinct counts stay exact with one row per address, and a first
-- sighting is one more for the cumulative counts.
CREATE TABLE metric_addresses (
    address       BYTEA  NOT NULL,
    chain_key     TEXT   NOT NULL,
    last_seen     BIGINT NOT NULL,
    last_sent     BIGINT NOT NULL,
    last_deployed BIGINT NOT NULL,
    -- The address first: a batch looks its addresses up by a list of them.
    PRIMARY KEY (address, chain_key)
);
