-- The reward UTXOs the node reported for each RewardValidatorTx
-- (platform.getRewardUTXOs), kept as the node's input beside the blocks,
-- not as derived state, so that the P-chain's derived state can be
-- re-derived from the store alone (`avaindex rederive`). One row per
-- reward UTXO of a staker, in the node's encoding. Filled from the reward
-- UTXOs indexed before this table existed.
CREATE TABLE p_reward_utxos (
    staker_tx_id BYTEA  NOT NULL,
    idx          BIGINT NOT NULL, -- the UTXO's output index
    block_height BIGINT NOT NULL, -- the block of the RewardValidatorTx
    bytes        BYTEA  NOT NULL,
    PRIMARY KEY (staker_tx_id, idx)
);
CREATE INDEX p_reward_utxos_height ON p_reward_utxos (block_height);

INSERT INTO p_reward_utxos (staker_tx_id, idx, block_height, bytes)
    SELECT tx_id, output_index, created_height, bytes FROM p_utxos WHERE kind = 'reward';
