-- What the EVM blocks and transactions endpoints read beyond 0014's
-- columns: Avalanche's header fields (Granite's millisecond timestamp and
-- minimum delay excess, Apricot Phase 4's block gas cost; NULL before, and
-- in blocks stored before this migration), what a block's txs paid (NULL
-- in blocks stored before: read from their txs) and the chain's txs up to
-- and including each block (backfilled here for chains stored from their
-- genesis; NULL otherwise).
ALTER TABLE evm_blocks ADD COLUMN time_ms BIGINT;
ALTER TABLE evm_blocks ADD COLUMN min_delay_excess BIGINT;
ALTER TABLE evm_blocks ADD COLUMN block_gas_cost BYTEA;
ALTER TABLE evm_blocks ADD COLUMN fees_spent BYTEA;
ALTER TABLE evm_blocks ADD COLUMN cumulative_txs BIGINT;

UPDATE evm_blocks SET cumulative_txs = w.c
FROM (SELECT chain_id, number, SUM(tx_count) OVER (PARTITION BY chain_id ORDER BY number) AS c FROM evm_blocks) AS w
WHERE evm_blocks.chain_id = w.chain_id AND evm_blocks.number = w.number
  AND EXISTS (SELECT 1 FROM evm_blocks g WHERE g.chain_id = w.chain_id AND g.number = 0);

-- A block by hash; the latest blocks of several chains by time; a block's
-- txs and a chain's latest txs by position, the failed ones on their own.
CREATE INDEX evm_blocks_hash ON evm_blocks (chain_id, hash);
CREATE INDEX evm_blocks_time ON evm_blocks (chain_id, timestamp, number);
CREATE INDEX evm_txs_position ON evm_txs (chain_id, block_number, idx);
CREATE INDEX evm_txs_failed ON evm_txs (chain_id, block_number, idx) WHERE status = 0;
