-- ICM (Teleporter) messages: every event of the TeleporterMessenger on an
-- indexed chain, decoded, one row per log. A message is the rows of its
-- message_id on either of its two chains, joined at read time, so either
-- chain may be indexed first. The blocks stored before this migration gain
-- their rows from their stored logs: evm_icm_backfill names each chain and
-- its last block then, and the chain's indexer decodes those blocks'
-- messenger logs at its start (it knows the chain's blockchain id and
-- messenger; the store decodes nothing), then deletes the row.
CREATE TABLE evm_icm_events (
    chain_id        BIGINT  NOT NULL,
    block_number    BIGINT  NOT NULL,
    log_index       INTEGER NOT NULL,
    block_time      BIGINT  NOT NULL, -- the block's timestamp: the lists' order
    tx_hash         BYTEA   NOT NULL,
    kind            TEXT    NOT NULL, -- send, receive, executed, failed, receipt, add_fee
    messenger       BYTEA   NOT NULL,
    message_id      BYTEA   NOT NULL,
    source_id       BYTEA   NOT NULL, -- blockchain ids; zero for add_fee
    destination_id  BYTEA   NOT NULL,
    nonce           BYTEA,            -- the message's (send, receive, failed)
    sender          BYTEA,
    recipient       BYTEA,
    required_gas    BYTEA,
    data            BYTEA,
    receipts        TEXT,             -- JSON [{"nonce","relayer"}]
    fee_token       BYTEA,            -- send, receipt, add_fee
    fee_amount      BYTEA,
    deliverer       BYTEA,            -- receive
    reward_redeemer BYTEA,            -- receive; the relayer's reward address for receipt
    PRIMARY KEY (chain_id, block_number, log_index)
);

CREATE INDEX evm_icm_events_message ON evm_icm_events (message_id, kind);
CREATE INDEX evm_icm_events_sender ON evm_icm_events (sender, block_time);
CREATE INDEX evm_icm_events_recipient ON evm_icm_events (recipient, block_time);
-- The lists walk the messages' first events from the newest.
CREATE INDEX evm_icm_events_time ON evm_icm_events (block_time, message_id);

CREATE TABLE evm_icm_backfill (
    chain_id BIGINT PRIMARY KEY,
    up_to    BIGINT NOT NULL
);
INSERT INTO evm_icm_backfill (chain_id, up_to) SELECT chain_id, MAX(number) FROM evm_blocks GROUP BY chain_id;
