-- SQLite keeps a table whose primary key is not an integer as two
-- B-trees, the rows and the key's index. The address indexes (of txs and
-- of transfers) and the balances are written, and read, by their key
-- only: one B-tree ordered by the key (WITHOUT ROWID) halves the pages
-- each row's insert touches.
CREATE TABLE evm_address_txs_by_key (
    chain_id     BIGINT  NOT NULL,
    address      BYTEA   NOT NULL,
    role         INTEGER NOT NULL,
    block_number BIGINT  NOT NULL,
    tx_index     INTEGER NOT NULL,
    PRIMARY KEY (chain_id, address, role, block_number, tx_index)
) WITHOUT ROWID;
INSERT INTO evm_address_txs_by_key (chain_id, address, role, block_number, tx_index)
    SELECT chain_id, address, role, block_number, tx_index FROM evm_address_txs
    ORDER BY chain_id, address, role, block_number, tx_index;
DROP TABLE evm_address_txs;
ALTER TABLE evm_address_txs_by_key RENAME TO evm_address_txs;

CREATE TABLE evm_erc20_balances_by_key (
    chain_id     BIGINT NOT NULL,
    address      BYTEA  NOT NULL,
    token        BYTEA  NOT NULL,
    block_number BIGINT NOT NULL,
    balance      BYTEA  NOT NULL,
    PRIMARY KEY (chain_id, address, token, block_number)
) WITHOUT ROWID;
INSERT INTO evm_erc20_balances_by_key (chain_id, address, token, block_number, balance)
    SELECT chain_id, address, token, block_number, balance FROM evm_erc20_balances
    ORDER BY chain_id, address, token, block_number;
DROP TABLE evm_erc20_balances;
ALTER TABLE evm_erc20_balances_by_key RENAME TO evm_erc20_balances;

CREATE TABLE evm_address_transfers_by_key (
    chain_id     BIGINT  NOT NULL,
    address      BYTEA   NOT NULL,
    erc_type     INTEGER NOT NULL,
    block_number BIGINT  NOT NULL,
    log_index    INTEGER NOT NULL,
    batch_index  INTEGER NOT NULL,
    PRIMARY KEY (chain_id, address, erc_type, block_number, log_index, batch_index)
) WITHOUT ROWID;
INSERT INTO evm_address_transfers_by_key (chain_id, address, erc_type, block_number, log_index, batch_index)
    SELECT chain_id, address, erc_type, block_number, log_index, batch_index FROM evm_address_transfers
    ORDER BY chain_id, address, erc_type, block_number, log_index, batch_index;
DROP TABLE evm_address_transfers;
ALTER TABLE evm_address_transfers_by_key RENAME TO evm_address_transfers;
