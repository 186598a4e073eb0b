-- The historical staking rewards of the Data API (GET
-- /v1/networks/{network}/rewards): one row per reward UTXO (p_utxos kind
-- 'reward'), with what finds it, per node and per owner, in the order of
-- the staker's end time, which is when a RewardValidatorTx can pay it.
-- Written by the P-chain applier with the reward UTXOs; a staker that
-- earned nothing got no reward UTXO and has no row.

CREATE TABLE p_historical_rewards (
    utxo_id      BYTEA  PRIMARY KEY,
    staker_tx_id BYTEA  NOT NULL,
    node_id      BYTEA  NOT NULL,
    end_time     BIGINT NOT NULL
);

CREATE INDEX p_historical_rewards_node ON p_historical_rewards (node_id, end_time, utxo_id);

-- The reward UTXOs' owners: the addresses a reward belongs to.
CREATE TABLE p_historical_reward_owners (
    address  BYTEA  NOT NULL,
    end_time BIGINT NOT NULL,
    utxo_id  BYTEA  NOT NULL,
    PRIMARY KEY (address, end_time, utxo_id)
);

-- The rewards stored before this table existed.
INSERT INTO p_historical_rewards (utxo_id, staker_tx_id, node_id, end_time)
SELECT u.id, u.tx_id, s.node_id, s.end_time FROM p_utxos u JOIN p_stakers s ON s.tx_id = u.tx_id
WHERE u.kind = 'reward';

INSERT INTO p_historical_reward_owners (address, end_time, utxo_id)
SELECT a.address, r.end_time, r.utxo_id FROM p_historical_rewards r JOIN p_utxo_addresses a ON a.utxo_id = r.utxo_id;
