-- An ERC-20 transfer wrote each party's latest balance twice: its
-- evm_erc20_holdings row (an address's tokens, in token order) and its
-- evm_latest_balances row (a token's addresses, by balance, for the
-- Looking Glass). The holdings now carry the balance in
-- evm_latest_balances' sortable encoding (a length byte, then the
-- magnitude) with an index by balance, and evm_latest_balances keeps the
-- native coin's rows only: one upsert a party instead of two (#22's
-- ingestion bound).
UPDATE evm_erc20_holdings SET balance = set_byte('\x00'::bytea, 0, length(balance)) || balance;
CREATE INDEX evm_erc20_holdings_by_balance ON evm_erc20_holdings (chain_id, token, balance, address);
DELETE FROM evm_latest_balances WHERE length(token) > 0;
