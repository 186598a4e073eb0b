-- Staking rewards replayed from the genesis (see pchain.RewardState): the
-- reward each validator and delegator was promised when it became current,
-- the delegation fees a validator has accrued, and each rewarding subnet's
-- supply with its history. uint64 values are stored as their int64 bits.

-- NULL while the staker is not current yet (pre-Durango pending stakers),
-- for permissioned validators, and for stakers indexed before the replay.
ALTER TABLE p_stakers ADD COLUMN potential_reward BIGINT;
-- Delegation fees of delegators rewarded so far, held for a validator that
-- started from Cortina on until it leaves.
ALTER TABLE p_stakers ADD COLUMN delegatee_reward BIGINT NOT NULL DEFAULT 0;

CREATE INDEX p_stakers_pending ON p_stakers (start_time) WHERE potential_reward IS NULL;

-- One row: where the replay is. complete is 0 when it could not start at
-- the genesis (blocks indexed before this table existed, or a genesis
-- avaindex does not know); its values are then not served.
CREATE TABLE p_reward_state (
    id           INTEGER PRIMARY KEY, -- always 1
    complete     INTEGER NOT NULL,
    next_height  BIGINT  NOT NULL,
    chain_time   BIGINT  NOT NULL,
    next_pending BIGINT  NOT NULL     -- earliest start of a pending staker, 0: none
);

-- The primary network and each elastic subnet: current supply and the
-- calculator's parameters (minting period in seconds).
CREATE TABLE p_reward_subnets (
    subnet_id            BYTEA  PRIMARY KEY,
    supply               BIGINT NOT NULL,
    max_consumption_rate BIGINT NOT NULL,
    min_consumption_rate BIGINT NOT NULL,
    minting_period       BIGINT NOT NULL,
    supply_cap           BIGINT NOT NULL
);

-- The supply of a subnet after each block that changed it.
CREATE TABLE p_supply_history (
    subnet_id BYTEA  NOT NULL,
    height    BIGINT NOT NULL,
    supply    BIGINT NOT NULL,
    PRIMARY KEY (subnet_id, height)
);
