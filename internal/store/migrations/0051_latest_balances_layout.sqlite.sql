-- evm_latest_balances, like the tables of 0036 and 0043, is written by its
-- key (the balance appliers' upserts) and read through its balance index
-- (which holds every column the reads take): a rowid table gave each
-- upsert a third B-tree to write, the rows beside their key's index. One
-- B-tree ordered by the key (WITHOUT ROWID), whose entries the balance
-- index points at, instead.
CREATE TABLE evm_latest_balances_by_key (
    chain_id     BIGINT NOT NULL,
    token        BYTEA  NOT NULL,
    address      BYTEA  NOT NULL,
    block_number BIGINT NOT NULL,
    balance      BYTEA  NOT NULL,
    PRIMARY KEY (chain_id, token, address)
) WITHOUT ROWID;
INSERT INTO evm_latest_balances_by_key (chain_id, token, address, block_number, balance)
    SELECT chain_id, token, address, block_number, balance FROM evm_latest_balances
    ORDER BY chain_id, token, address;
DROP TABLE evm_latest_balances;
ALTER TABLE evm_latest_balances_by_key RENAME TO evm_latest_balances;
CREATE INDEX evm_latest_balances_by_balance ON evm_latest_balances (chain_id, token, balance, address);
