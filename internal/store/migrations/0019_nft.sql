-- NFTs: every ERC-721 and ERC-1155 token seen in a transfer of an EVM
-- chain, with its current ERC-721 owner and its URI (written by the EVM
-- chains' appliers), and its metadata (written by the metadata worker,
-- internal/nftmeta). Token ids are 32 bytes, big-endian, so that their
-- byte order is their numeric order.
CREATE TABLE nft_tokens (
    chain_id     BIGINT  NOT NULL,
    address      BYTEA   NOT NULL,
    token_id     BYTEA   NOT NULL,
    erc_type     INTEGER NOT NULL,
    owner        BYTEA, -- ERC-721 only
    mint_block   BIGINT  NOT NULL,
    token_uri    TEXT, -- NULL until the contract answered
    -- The metadata worker's queue: pending rows whose next_attempt has
    -- come are fetched; gen counts the URI changes and reindex requests,
    -- so a fetch of an older URI does not overwrite a newer one.
    pending      INTEGER NOT NULL,
    gen          BIGINT  NOT NULL,
    attempts     INTEGER NOT NULL,
    next_attempt BIGINT  NOT NULL,
    reindexed_at BIGINT, -- last reindex request (unix seconds)
    reread       INTEGER NOT NULL, -- 1: ask the contract the URI again first (a reindex)
    status       TEXT    NOT NULL,
    meta_updated BIGINT, -- unix milliseconds
    name         TEXT,
    symbol       TEXT,
    description  TEXT,
    image        TEXT,
    animation    TEXT,
    external_url TEXT,
    background   TEXT,
    attributes   TEXT,
    properties   TEXT,
    decimals     INTEGER,
    PRIMARY KEY (chain_id, address, token_id)
);

CREATE INDEX nft_tokens_owner ON nft_tokens (chain_id, owner, address, token_id);
CREATE INDEX nft_tokens_queue ON nft_tokens (next_attempt) WHERE pending = 1;

-- ERC-1155 balances: what each holder holds of each token now.
CREATE TABLE nft_balances (
    chain_id BIGINT NOT NULL,
    holder   BYTEA  NOT NULL,
    address  BYTEA  NOT NULL,
    token_id BYTEA  NOT NULL,
    balance  BYTEA  NOT NULL,
    PRIMARY KEY (chain_id, holder, address, token_id)
);
