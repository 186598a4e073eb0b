-- The Looking Glass's NFT holders over a range (issue #26): without this
-- table store.NFTHoldersOver replayed every transfer of the contract up
-- to the range's end for each new chain state.

-- Each holder's count of a contract's tokens (ERC-721: tokens, ERC-1155:
-- units, summed as the replay sums them) after the blocks [from_block,
-- to_block), kept by the span applier (nftspans.go): a change of the count
-- at a block's end closes the holder's open span and opens one from that
-- block. to_block is 9223372036854775807 for the open span. A count of
-- zero has no span. amount is the magnitude big-endian, a leading 0 byte
-- when negative (a transfer from an address no transfer gave the token).
-- The key leads with to_block so that the spans overlapping a range
-- (to_block > its start) are a range of it, and so that a holder's open
-- span is a lookup. One B-tree ordered by the key (WITHOUT ROWID).
CREATE TABLE nft_spans (
    chain_id   BIGINT NOT NULL,
    address    BYTEA  NOT NULL, -- the contract
    to_block   BIGINT NOT NULL,
    holder     BYTEA  NOT NULL,
    from_block BIGINT NOT NULL,
    amount     BYTEA  NOT NULL,
    PRIMARY KEY (chain_id, address, to_block, holder)
) WITHOUT ROWID;

-- Stores indexed before: the spans from evm_transfers.
INSERT INTO settings (key, value) VALUES ('backfill:nft_spans', '');
