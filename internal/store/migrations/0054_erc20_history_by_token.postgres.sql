-- The ERC-20 balances' history had two indexes of the same rows: its key
-- (chain, address, token, block) and evm_erc20_balances_token (chain,
-- token, address, block, balance) for the Looking Glass. Every read of it
-- names the token (a holding's balance at a block, a token's holders), so
-- one key that leads with the token, carrying the balance for index-only
-- reads, serves them all, and a transfer writes two index entries, not
-- four (#27's ingestion).
CREATE UNIQUE INDEX evm_erc20_balances_by_token ON evm_erc20_balances (chain_id, token, address, block_number) INCLUDE (balance);
ALTER TABLE evm_erc20_balances DROP CONSTRAINT evm_erc20_balances_pkey;
ALTER TABLE evm_erc20_balances ADD CONSTRAINT evm_erc20_balances_pkey PRIMARY KEY USING INDEX evm_erc20_balances_by_token;
DROP INDEX evm_erc20_balances_token;
