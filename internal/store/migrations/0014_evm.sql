-- EVM chains (the served network's C-chain and configured L1s), keyed by
-- EVM chain id: accepted blocks, txs with their receipts and logs, internal
-- txs (call traces), token transfers, contracts, native balances and
-- Teleporter messages, written by ApplyEVMBlocks with the chain's cursor
-- ('evm:<chain id>') in one transaction per batch.
--
-- Amounts (uint256) are minimal big-endian bytes (empty for zero); ERC
-- types are codes: 0 unknown, 20, 721, 1155.

-- balances is 1 while every block applied had exact balances (traced,
-- and the genesis allocation known); once one did not, the chain's
-- balances are the node's to answer.
CREATE TABLE evm_chains (
    chain_id BIGINT  PRIMARY KEY,
    balances INTEGER NOT NULL
);

CREATE TABLE evm_blocks (
    chain_id    BIGINT  NOT NULL,
    number      BIGINT  NOT NULL,
    hash        BYTEA   NOT NULL,
    parent_hash BYTEA   NOT NULL,
    timestamp   BIGINT  NOT NULL,
    miner       BYTEA   NOT NULL,
    gas_limit   BIGINT  NOT NULL,
    gas_used    BIGINT  NOT NULL,
    base_fee    BYTEA,
    size        BIGINT  NOT NULL,
    tx_count    INTEGER NOT NULL,
    traced      INTEGER NOT NULL,
    PRIMARY KEY (chain_id, number)
);

CREATE TABLE evm_txs (
    chain_id         BIGINT  NOT NULL,
    hash             BYTEA   NOT NULL,
    block_number     BIGINT  NOT NULL,
    idx              INTEGER NOT NULL,
    from_address     BYTEA   NOT NULL,
    to_address       BYTEA, -- NULL for a contract creation
    value            BYTEA   NOT NULL,
    nonce            BIGINT  NOT NULL,
    type             INTEGER NOT NULL,
    gas_limit        BIGINT  NOT NULL,
    gas_price        BYTEA   NOT NULL,
    max_fee          BYTEA,
    max_priority_fee BYTEA,
    gas_used         BIGINT  NOT NULL,
    status           INTEGER NOT NULL,
    input            BYTEA   NOT NULL,
    contract_address BYTEA,
    PRIMARY KEY (chain_id, hash)
);

-- topics are the log's topics concatenated (32 bytes each).
CREATE TABLE evm_logs (
    chain_id     BIGINT  NOT NULL,
    block_number BIGINT  NOT NULL,
    log_index    INTEGER NOT NULL,
    tx_index     INTEGER NOT NULL,
    address      BYTEA   NOT NULL,
    topics       BYTEA   NOT NULL,
    data         BYTEA   NOT NULL,
    PRIMARY KEY (chain_id, block_number, log_index)
);

CREATE TABLE evm_internal_txs (
    chain_id     BIGINT  NOT NULL,
    tx_hash      BYTEA   NOT NULL,
    idx          INTEGER NOT NULL, -- depth-first position in the tx
    block_number BIGINT  NOT NULL,
    from_address BYTEA   NOT NULL,
    to_address   BYTEA   NOT NULL,
    value        BYTEA   NOT NULL,
    call_type    TEXT    NOT NULL,
    gas          BIGINT  NOT NULL,
    gas_used     BIGINT  NOT NULL,
    reverted     INTEGER NOT NULL,
    PRIMARY KEY (chain_id, tx_hash, idx)
);

-- A tx's transfers are found through its block (the primary key's
-- prefix) and its hash; a token's through evm_transfers_token.
CREATE TABLE evm_transfers (
    chain_id     BIGINT  NOT NULL,
    block_number BIGINT  NOT NULL,
    log_index    INTEGER NOT NULL,
    batch_index  INTEGER NOT NULL, -- position in a TransferBatch, else 0
    tx_hash      BYTEA   NOT NULL,
    timestamp    BIGINT  NOT NULL,
    token        BYTEA   NOT NULL,
    erc_type     INTEGER NOT NULL,
    operator     BYTEA   NOT NULL,
    from_address BYTEA   NOT NULL,
    to_address   BYTEA   NOT NULL,
    value        BYTEA   NOT NULL,
    token_id     BYTEA, -- NULL for ERC-20
    PRIMARY KEY (chain_id, block_number, log_index, batch_index)
);

CREATE INDEX evm_transfers_token ON evm_transfers (chain_id, token, block_number, log_index, batch_index);

-- One row per (transfer, address that sent or received it), so that an
-- address's transfers of one type are one range of the primary key, in
-- either order, whatever else the address holds.
CREATE TABLE evm_address_transfers (
    chain_id     BIGINT  NOT NULL,
    address      BYTEA   NOT NULL,
    erc_type     INTEGER NOT NULL,
    block_number BIGINT  NOT NULL,
    log_index    INTEGER NOT NULL,
    batch_index  INTEGER NOT NULL,
    PRIMARY KEY (chain_id, address, erc_type, block_number, log_index, batch_index)
);

-- Contracts deployed on the chain (tx_hash set) and contracts seen
-- emitting transfers without an indexed deployment (genesis allocations:
-- tx_hash NULL), with what eth_call told of them.
CREATE TABLE evm_contracts (
    chain_id          BIGINT  NOT NULL,
    address           BYTEA   NOT NULL,
    deployer          BYTEA,
    deployer_contract BYTEA,
    tx_hash           BYTEA,
    block_number      BIGINT  NOT NULL,
    idx               BIGINT  NOT NULL, -- tx index * 2^16 + frame index
    timestamp         BIGINT  NOT NULL,
    create_type       TEXT    NOT NULL,
    erc_type          INTEGER NOT NULL,
    name              TEXT    NOT NULL,
    symbol            TEXT    NOT NULL,
    decimals          INTEGER, -- NULL when decimals() did not answer
    PRIMARY KEY (chain_id, address)
);

-- The contracts each deployer made: a row for the deploying tx's sender
-- and one for the deploying contract of an internal creation.
CREATE TABLE evm_deployments (
    chain_id     BIGINT NOT NULL,
    deployer     BYTEA  NOT NULL,
    block_number BIGINT NOT NULL,
    idx          BIGINT NOT NULL,
    address      BYTEA  NOT NULL,
    PRIMARY KEY (chain_id, deployer, block_number, idx)
);

-- An address's native balance after each block that changed it: the
-- balance at block N is the row with the greatest block_number <= N.
CREATE TABLE evm_balances (
    chain_id     BIGINT NOT NULL,
    address      BYTEA  NOT NULL,
    block_number BIGINT NOT NULL,
    balance      BYTEA  NOT NULL,
    PRIMARY KEY (chain_id, address, block_number)
);

CREATE TABLE evm_teleporter_messages (
    chain_id       BIGINT  NOT NULL,
    tx_hash        BYTEA   NOT NULL,
    log_index      INTEGER NOT NULL,
    block_number   BIGINT  NOT NULL,
    direction      TEXT    NOT NULL,
    message_id     BYTEA   NOT NULL,
    source_id      BYTEA   NOT NULL,
    destination_id BYTEA   NOT NULL,
    PRIMARY KEY (chain_id, tx_hash, log_index)
);
