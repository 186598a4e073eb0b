-- The per-address list of stakers of the Data API's active staking txs
-- (GET /v1/networks/{network}/blockchains/p-chain/transactions:listStaking
-- with addresses), derived from p_stakers and p_staker_owners (0005) by
-- the P-chain's staking applier in the blocks' transaction.
--
-- One row per (staker, address among its reward owners' addresses: the
-- validation and delegation reward owners of a validator, the reward owner
-- of a delegator), carrying the order (start time, tx id) and the filters,
-- so that each address's current stakers are one range of an index; a page
-- merges those ranges (keyset.go), as the UTXO lists do. removed is set
-- when the staker's RewardValidatorTx is accepted. Permissioned subnet
-- validators have no reward owner and no row.

CREATE TABLE p_staker_addresses (
    tx_id      BYTEA   NOT NULL, -- the tx that added the staker
    address    BYTEA   NOT NULL,
    start_time BIGINT  NOT NULL, -- p_stakers.start_time
    tx_type    TEXT    NOT NULL,
    removed    INTEGER NOT NULL, -- 0 current (or pending), 1 removed
    PRIMARY KEY (tx_id, address)
);

-- The trailing column lets a page's merge filter on the tx type from the
-- index alone.
CREATE INDEX p_staker_addresses_list ON p_staker_addresses (address, removed, start_time, tx_id, tx_type);

-- The rows of stakers stored before this table existed are written by the
-- backfill this row asks for (internal/derive, store/backfill.go):
-- p_staker_owners keeps each owner's addresses concatenated.
INSERT INTO settings (key, value) VALUES ('backfill:p_staker_addresses', '');
