-- ICM (Teleporter) messages: every event of the TeleporterMessenger on an
-- indexed chain, decoded, one row per log. A message is the rows of its
-- message_id on either of its two chains, joined at read time, so either
-- chain may be indexed first. Blocks stored before this migration have no
-- rows here (EVM chains have no rederive yet).
CREATE TABLE evm_icm_events (
    chain_id        BIGINT  NOT NULL,
    block_number    BIGINT  NOT NULL,
    log_index       INTEGER NOT NULL,
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
CREATE INDEX evm_icm_events_sender ON evm_icm_events (sender);
CREATE INDEX evm_icm_events_recipient ON evm_icm_events (recipient);
CREATE INDEX evm_icm_events_time ON evm_icm_events (block_number);
