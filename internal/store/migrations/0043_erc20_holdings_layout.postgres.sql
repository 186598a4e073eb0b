-- Each ERC-20 transfer rewrites two rows of evm_erc20_holdings (their
-- block_number and balance, neither indexed). Pages left 30% free let
-- PostgreSQL write the new version beside the old one (a HOT update),
-- without a new entry in the key's index. Pages written from now on.
ALTER TABLE evm_erc20_holdings SET (fillfactor = 70);
