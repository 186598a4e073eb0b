-- evm_erc20_holdings repeated the last row of each (address, token) of
-- evm_erc20_balances, written again at every transfer: the latest balance
-- is that row, and an address's tokens are walked in the balances' key
-- (evmerc20.go). Derived state only: nothing from the node is lost.
DROP TABLE evm_erc20_holdings;
