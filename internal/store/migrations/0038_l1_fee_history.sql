-- The history of the L1 validator-fee state (l1feehistory.go), written by
-- the fee replay (applyL1Fees) in the block's transaction: p_l1_fees holds
-- only its latest value. uint64 values are stored as their int64 bits.

-- Each UTC day with a replayed block since the state first held an L1
-- validator: the accrued fee total (what one active validator has paid
-- since the first) before the first block's time advance of the day and
-- after its last block. What a validator paid on a day is the part of
-- [accrued_start, accrued_end] it was active for.
CREATE TABLE p_l1_fee_days (
    day           BIGINT PRIMARY KEY, -- unix seconds of 00:00 UTC
    accrued_start BIGINT NOT NULL,
    accrued_end   BIGINT NOT NULL,
    last_height   BIGINT NOT NULL
);

-- Each change of an L1 validator's balance (pchain.L1BalanceChange):
-- deposits (register, increase), refunds (disable, remove) and the end of
-- the balance by the fee (deactivate, idx -1: the block's time advance,
-- before its txs). accrued is the accrued total at which the change takes
-- effect; end_fee the end point after it (0: inactive), so that the
-- balance until the next change is end_fee less the accrued total.
CREATE TABLE p_l1_balance_changes (
    validation_id BYTEA   NOT NULL,
    height        BIGINT  NOT NULL,
    idx           INTEGER NOT NULL,
    time          BIGINT  NOT NULL,
    kind          TEXT    NOT NULL,
    accrued       BIGINT  NOT NULL,
    end_fee       BIGINT  NOT NULL,
    amount        BIGINT  NOT NULL,
    PRIMARY KEY (validation_id, height, idx)
);

-- A store that holds P-chain blocks already gains the history by a
-- rederive of the P-chain, which the backfill asks for (backfill.go).
INSERT INTO settings (key, value) VALUES ('backfill:l1_fee_history', '');
