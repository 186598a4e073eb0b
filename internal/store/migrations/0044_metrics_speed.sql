-- The Metrics API's speed targets (issue #26).

-- A rolling window's distinct counts (store.MetricActiveCounts) count the
-- chain's addresses last seen since the window's start. The primary key
-- leads with the address, so that read scanned every chain's rows; this
-- index walks only the chain's rows seen since then, and covers the
-- three roles (last_sent and last_deployed are never after last_seen).
CREATE INDEX metric_addresses_recent ON metric_addresses (chain_key, last_seen, last_sent, last_deployed);

-- The current holders of each NFT contract, kept by the NFT applier
-- (nft.go) so that a page of a collection's holders (Looking Glass) is a
-- range of this key: erc_type 721 counts the tokens each holder owns
-- (nft_tokens.owner), 1155 the token ids it holds a non-zero balance of
-- (nft_balances). A holder whose count falls to zero has no row.
CREATE TABLE nft_holders (
    chain_id BIGINT  NOT NULL,
    address  BYTEA   NOT NULL, -- the contract
    erc_type INTEGER NOT NULL,
    holder   BYTEA   NOT NULL,
    tokens   BIGINT  NOT NULL,
    PRIMARY KEY (chain_id, address, erc_type, holder)
);

-- Each contract's totals of nft_holders: its holders (rows) and the sum
-- of their counts (for 721, the contract's owned tokens).
CREATE TABLE nft_holder_totals (
    chain_id BIGINT  NOT NULL,
    address  BYTEA   NOT NULL,
    erc_type INTEGER NOT NULL,
    holders  BIGINT  NOT NULL,
    tokens   BIGINT  NOT NULL,
    PRIMARY KEY (chain_id, address, erc_type)
);

-- Stores indexed before: the rows above from nft_tokens and nft_balances.
INSERT INTO settings (key, value) VALUES ('backfill:nft_holders', '');
