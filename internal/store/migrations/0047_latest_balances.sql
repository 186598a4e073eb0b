-- The Looking Glass's balance queries (issue #26): which addresses'
-- latest native or ERC-20 balance is at least a minimum. Without this
-- table store.BalanceHolders replayed every balance row of the chain up
-- to the range's end (seconds at a million addresses); with it, a query
-- whose range ends at the chain's last block is a range of the index.

-- Each address's balance after the last block that changed it, per chain
-- and token (token: the ERC-20 contract, empty for the native coin),
-- kept by the balance appliers (evmbalances.go, evmerc20.go). balance is
-- sortable as bytes: one byte of the magnitude's length, then the
-- magnitude big-endian without leading zeros (zero: the single byte 0),
-- so that comparing two as bytes compares the amounts on both stores.
-- An address whose balance fell to zero keeps its row, as the history's
-- rows do.
CREATE TABLE evm_latest_balances (
    chain_id     BIGINT NOT NULL,
    token        BYTEA  NOT NULL,
    address      BYTEA  NOT NULL,
    block_number BIGINT NOT NULL,
    balance      BYTEA  NOT NULL,
    PRIMARY KEY (chain_id, token, address)
);

-- The addresses of a chain and token by balance: a minimum is a seek.
CREATE INDEX evm_latest_balances_by_balance ON evm_latest_balances (chain_id, token, balance, address);

-- Stores indexed before: the rows above from evm_balances and
-- evm_erc20_holdings.
INSERT INTO settings (key, value) VALUES ('backfill:evm_latest_balances', '');
