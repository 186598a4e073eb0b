-- Staking records derived from P-chain transactions (and the genesis): the
-- whole life of every primary-network validator and delegator, of every
-- permissioned (PoA) subnet validator and of every L1 validator.
--
-- uint64 quantities (weights, balances, times, nonces) are stored as BIGINT
-- holding the same 64 bits: values below 2^63, which is every real time
-- and stake, read the same in SQL; larger L1 weights read negative in SQL
-- and are converted back by the store.

-- One row per validator or delegator added by AddValidatorTx,
-- AddDelegatorTx, AddSubnetValidatorTx, AddPermissionlessValidatorTx or
-- AddPermissionlessDelegatorTx, or by the genesis.
CREATE TABLE p_stakers (
    tx_id             BYTEA   PRIMARY KEY, -- the tx that added it
    tx_type           TEXT    NOT NULL,
    kind              TEXT    NOT NULL,    -- validator | delegator | subnet_validator
    priority          INTEGER NOT NULL,    -- avalanchego's current-staker priority
    subnet_id         BYTEA   NOT NULL,
    node_id           BYTEA   NOT NULL,
    weight            BIGINT  NOT NULL,
    start_time        BIGINT  NOT NULL,    -- unix s: tx start pre-Durango, acceptance time after
    tx_start_time     BIGINT  NOT NULL,    -- the start written in the tx (0: none)
    end_time          BIGINT  NOT NULL,
    delegation_shares INTEGER NOT NULL,    -- millionths; 0 for delegators and PoA validators
    bls_public_key    BYTEA,               -- compressed; NULL without a BLS signer
    bls_pop           BYTEA,               -- proof of possession; NULL without a BLS signer
    added_height      BIGINT  NOT NULL,    -- accepting block (commit block for proposals); 0: genesis
    added_idx         INTEGER NOT NULL,
    -- The RewardValidatorTx (validators, delegators) or
    -- RemoveSubnetValidatorTx (PoA validators) that removed it, and the
    -- block that decided it. PoA validators whose end time passed are
    -- removed by time, with no tx: removed_tx_id stays NULL.
    removed_tx_id     BYTEA,
    removed_height    BIGINT,
    reward_committed  INTEGER              -- RewardValidatorTx: 1 committed (rewarded), 0 aborted
);

CREATE INDEX p_stakers_subnet_node ON p_stakers (subnet_id, node_id);
CREATE INDEX p_stakers_current ON p_stakers (subnet_id) WHERE removed_tx_id IS NULL;

-- Reward owners of stakers: role validation_reward and delegation_reward
-- (validators), reward (delegators). addresses is the owner's 20-byte
-- addresses concatenated in order.
CREATE TABLE p_staker_owners (
    tx_id     BYTEA   NOT NULL,
    role      TEXT    NOT NULL,
    locktime  BIGINT  NOT NULL,
    threshold INTEGER NOT NULL,
    addresses BYTEA   NOT NULL,
    PRIMARY KEY (tx_id, role)
);

-- Every change of an L1 validator, in chain order: convert and register
-- add it (with its node, key, owners, weight and balance), set_weight sets
-- weight and nonce (weight 0 removes it), increase_balance adds to its
-- balance (reactivating it), disable deactivates it. One tx changes one
-- validator, except ConvertSubnetToL1Tx, which adds several.
CREATE TABLE p_l1_validator_events (
    tx_id         BYTEA   NOT NULL,
    validation_id BYTEA   NOT NULL,
    height        BIGINT  NOT NULL,
    idx           INTEGER NOT NULL,
    kind          TEXT    NOT NULL,
    chain_time    BIGINT  NOT NULL, -- chain time of the block, unix s
    subnet_id     BYTEA,
    node_id       BYTEA,
    public_key    BYTEA,            -- compressed
    weight        BIGINT  NOT NULL,
    nonce         BIGINT  NOT NULL,
    balance       BIGINT  NOT NULL,
    PRIMARY KEY (tx_id, validation_id)
);

CREATE INDEX p_l1_validator_events_vid ON p_l1_validator_events (validation_id, height, idx);

-- The state of each L1 validator after all its events, recomputed from
-- them whenever one is applied.
CREATE TABLE p_l1_validators (
    validation_id      BYTEA   PRIMARY KEY,
    subnet_id          BYTEA   NOT NULL,
    node_id            BYTEA   NOT NULL,
    public_key         BYTEA   NOT NULL, -- compressed
    start_time         BIGINT  NOT NULL,
    weight             BIGINT  NOT NULL, -- 0 once removed
    min_nonce          BIGINT  NOT NULL,
    -- AVAX deposited for the continuous fee since the validator was last
    -- activated (initial balance plus increases); 0 while disabled. The
    -- balance the node reports is this minus the fees accrued since, which
    -- only the node's fee state knows.
    deposited_balance  BIGINT  NOT NULL,
    active             INTEGER NOT NULL, -- 1 active, 0 disabled
    added_tx_id        BYTEA   NOT NULL,
    added_height       BIGINT  NOT NULL,
    removed_tx_id      BYTEA,            -- the SetL1ValidatorWeightTx that set weight 0
    removed_height     BIGINT,
    disabled_tx_id     BYTEA,            -- the last DisableL1ValidatorTx, if it is disabled
    updated_height     BIGINT  NOT NULL
);

CREATE INDEX p_l1_validators_subnet ON p_l1_validators (subnet_id, node_id);

-- Remaining-balance and deactivation owners of L1 validators (roles
-- remaining_balance, deactivation), as p_staker_owners.
CREATE TABLE p_l1_validator_owners (
    validation_id BYTEA   NOT NULL,
    role          TEXT    NOT NULL,
    threshold     INTEGER NOT NULL,
    addresses     BYTEA   NOT NULL,
    PRIMARY KEY (validation_id, role)
);
