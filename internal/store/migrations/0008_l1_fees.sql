-- The P-chain's L1 validator-fee state, replayed from block times and L1
-- transactions (see pchain.L1Fees): one row of running totals, and each L1
-- validator's end point (0 while inactive) and remaining-balance owner.
-- uint64 values are stored as their int64 bits.

CREATE TABLE p_l1_fees (
    id          INTEGER PRIMARY KEY, -- always 1
    next_height BIGINT NOT NULL,
    time        BIGINT NOT NULL,
    accrued     BIGINT NOT NULL,
    excess      BIGINT NOT NULL
);

CREATE TABLE p_l1_fee_validators (
    validation_id   BYTEA  PRIMARY KEY,
    end_fee         BIGINT NOT NULL,
    owner_locktime  BIGINT NOT NULL,
    owner_threshold BIGINT NOT NULL,
    owner_addrs     BYTEA  NOT NULL
);
