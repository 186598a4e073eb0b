-- Subnets and blockchains derived from P-chain transactions, and the
-- primary network's supply as the node reported it. One text for SQLite and
-- PostgreSQL. A position (height, idx) is a tx's block height and its index
-- in the block; times are the block's unix seconds (0 before Banff).

CREATE TABLE p_subnets (
    id              BYTEA   PRIMARY KEY, -- the CreateSubnetTx id
    created_height  BIGINT  NOT NULL,
    created_idx     INTEGER NOT NULL,
    created_time    BIGINT  NOT NULL,
    -- The current owner (CreateSubnetTx, then TransferSubnetOwnershipTx)
    -- and the position of the tx that set it.
    owner_threshold BIGINT  NOT NULL,
    owner_locktime  BIGINT  NOT NULL, -- uint64 stored as its int64 bits
    owner_addresses BYTEA   NOT NULL, -- 20-byte addresses, concatenated
    owner_height    BIGINT  NOT NULL,
    owner_idx       INTEGER NOT NULL,
    -- ConvertSubnetToL1Tx; NULL until the subnet is converted.
    conversion_id     BYTEA,
    manager_chain_id  BYTEA,
    manager_address   BYTEA,
    conversion_tx_id  BYTEA,
    converted_height  BIGINT,
    converted_idx     INTEGER,
    converted_time    BIGINT,
    -- TransformSubnetTx; NULL unless the subnet was made elastic.
    transform_tx_id    BYTEA,
    transformed_height BIGINT,
    transformed_idx    INTEGER,
    transformed_time   BIGINT
);

CREATE INDEX p_subnets_created ON p_subnets (created_height, created_idx);

CREATE TABLE p_blockchains (
    id             BYTEA   PRIMARY KEY, -- the CreateChainTx id
    subnet_id      BYTEA   NOT NULL,
    name           TEXT    NOT NULL,
    vm_id          BYTEA   NOT NULL,
    fx_ids         BYTEA   NOT NULL, -- 32-byte ids, concatenated
    genesis        BYTEA   NOT NULL,
    created_height BIGINT  NOT NULL,
    created_idx    INTEGER NOT NULL,
    created_time   BIGINT  NOT NULL
);

CREATE INDEX p_blockchains_subnet ON p_blockchains (subnet_id, created_height, created_idx);

-- The latest platform.getCurrentSupply answer of the node per subnet, read
-- when the node's height was the height avaindex had just indexed. Supply
-- is a decimal string: a subnet's supply may exceed BIGINT.
CREATE TABLE p_supply (
    subnet_id BYTEA  PRIMARY KEY,
    height    BIGINT NOT NULL,
    supply    TEXT   NOT NULL
);
