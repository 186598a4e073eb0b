-- The Metrics API's Looking Glass reads (lookingglass.go): the holders of
-- an NFT contract, grouped by holder, and an ERC-20 token's balance history
-- by holder (the primary keys lead with the holder and the block).
CREATE INDEX nft_tokens_holders ON nft_tokens (chain_id, address, owner);
CREATE INDEX nft_balances_holders ON nft_balances (chain_id, address, holder, balance);
CREATE INDEX evm_erc20_balances_token ON evm_erc20_balances (chain_id, token, address, block_number, balance);
