-- The ERC-20 balances' history was two B-trees of the same rows: its key
-- (chain, address, token, block) and evm_erc20_balances_token (chain,
-- token, address, block, balance) for the Looking Glass. Every read of it
-- names the token (a holding's balance at a block, a token's holders), so
-- one key that leads with the token serves them all, and a transfer
-- writes two index entries, not four (#27's ingestion).
CREATE TABLE evm_erc20_balances_by_token (
    chain_id     BIGINT NOT NULL,
    token        BYTEA  NOT NULL,
    address      BYTEA  NOT NULL,
    block_number BIGINT NOT NULL,
    balance      BYTEA  NOT NULL,
    PRIMARY KEY (chain_id, token, address, block_number)
) WITHOUT ROWID;
INSERT INTO evm_erc20_balances_by_token (chain_id, token, address, block_number, balance)
    SELECT chain_id, token, address, block_number, balance FROM evm_erc20_balances
    ORDER BY chain_id, token, address, block_number;
DROP TABLE evm_erc20_balances;
ALTER TABLE evm_erc20_balances_by_token RENAME TO evm_erc20_balances;
