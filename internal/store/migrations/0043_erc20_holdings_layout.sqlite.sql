-- evm_erc20_holdings, like the address indexes and the balances' history
-- in 0036, is written and read by its key only (the applier's upserts, an
-- address's tokens listed in token order): one B-tree ordered by the key
-- (WITHOUT ROWID) instead of the rows plus the key's index, so that an
-- upsert touches one tree and the list reads its rows in the key's leaves.
CREATE TABLE evm_erc20_holdings_by_key (
    chain_id     BIGINT NOT NULL,
    address      BYTEA  NOT NULL,
    token        BYTEA  NOT NULL,
    first_block  BIGINT NOT NULL,
    block_number BIGINT NOT NULL,
    balance      BYTEA  NOT NULL,
    PRIMARY KEY (chain_id, address, token)
) WITHOUT ROWID;
INSERT INTO evm_erc20_holdings_by_key (chain_id, address, token, first_block, block_number, balance)
    SELECT chain_id, address, token, first_block, block_number, balance FROM evm_erc20_holdings
    ORDER BY chain_id, address, token;
DROP TABLE evm_erc20_holdings;
ALTER TABLE evm_erc20_holdings_by_key RENAME TO evm_erc20_holdings;
