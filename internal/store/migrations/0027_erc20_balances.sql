-- ERC-20 balances kept from the chains' Transfer logs (evm_transfers rows
-- of erc_type 20), written by the EVM appliers (evmerc20.go), so that an
-- address's balances at any block need no archive node. The zero address
-- holds nothing: a transfer from it mints, one to it burns.

-- An address's balance of a token after each block that changed it: the
-- balance at block N is the row with the greatest block_number <= N.
CREATE TABLE evm_erc20_balances (
    chain_id     BIGINT NOT NULL,
    address      BYTEA  NOT NULL,
    token        BYTEA  NOT NULL,
    block_number BIGINT NOT NULL,
    balance      BYTEA  NOT NULL,
    PRIMARY KEY (chain_id, address, token, block_number)
);

-- The tokens each address ever held, with its latest balance (after
-- block_number, the last block that changed it) and the first block it
-- held any: the list of an address's balances is one range of this key.
CREATE TABLE evm_erc20_holdings (
    chain_id     BIGINT NOT NULL,
    address      BYTEA  NOT NULL,
    token        BYTEA  NOT NULL,
    first_block  BIGINT NOT NULL,
    block_number BIGINT NOT NULL,
    balance      BYTEA  NOT NULL,
    PRIMARY KEY (chain_id, address, token)
);

-- Each ERC-20 token's supply as its logs tell it (mints less burns), the
-- last block whose transfers are applied, and whether its logs do not
-- explain its balances (unexplained: 1, with why): such a token's
-- balances are answered by its balanceOf at the block, not by the rows
-- above.
CREATE TABLE evm_erc20_tokens (
    chain_id     BIGINT  NOT NULL,
    token        BYTEA   NOT NULL,
    block_number BIGINT  NOT NULL,
    supply       BYTEA   NOT NULL,
    unexplained  INTEGER NOT NULL,
    reason       TEXT    NOT NULL,
    PRIMARY KEY (chain_id, token)
);

-- Stores indexed before: the rows above from the stored transfers.
INSERT INTO settings (key, value) VALUES ('backfill:evm_erc20_balances', '');
