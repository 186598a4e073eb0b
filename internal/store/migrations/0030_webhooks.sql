-- Webhooks (the Data API's Webhooks tag) and their outbox.
--
-- A webhook belongs to the API key that created it (owner: the key's id,
-- apikeys.Key.ID). Its delivery state is on its row: the delivery worker
-- (internal/webhooks) leases a webhook (claim, claimed_until) to send its
-- outbox in order, so that two instances never send one webhook's events
-- at once; attempts and next_attempt are the backoff of its oldest event.
CREATE TABLE webhooks (
    id                   TEXT    PRIMARY KEY, -- a UUID
    owner                TEXT    NOT NULL,
    event_type           TEXT    NOT NULL,
    chain_id             BIGINT  NOT NULL,
    url                  TEXT    NOT NULL,
    name                 TEXT    NOT NULL,
    description          TEXT    NOT NULL,
    status               TEXT    NOT NULL, -- active | inactive
    status_reason        TEXT    NOT NULL, -- why inactive, '' else
    include_logs         INTEGER NOT NULL,
    include_internal_txs INTEGER NOT NULL,
    event_signatures     TEXT    NOT NULL, -- JSON array of 0x topic0s
    created_at           BIGINT  NOT NULL, -- unix milliseconds
    attempts             INTEGER NOT NULL,
    next_attempt         BIGINT  NOT NULL, -- unix milliseconds
    claim                TEXT    NOT NULL, -- the holder's claim token, '' for none
    claimed_until        BIGINT  NOT NULL  -- unix milliseconds
);

CREATE INDEX webhooks_owner ON webhooks (owner, created_at, id);

-- The watched addresses, as lowercase 0x hex.
CREATE TABLE webhook_addresses (
    webhook_id TEXT NOT NULL,
    address    TEXT NOT NULL,
    PRIMARY KEY (webhook_id, address)
);

-- The shared secret of each owner, which signs its deliveries.
CREATE TABLE webhook_secrets (
    owner  TEXT PRIMARY KEY,
    secret TEXT NOT NULL
);

-- version counts the changes of the watched set, so that the EVM
-- applier of every instance reloads its in-memory copy after one.
CREATE TABLE webhook_state (
    id      INTEGER PRIMARY KEY,
    version BIGINT  NOT NULL
);
INSERT INTO webhook_state (id, version) VALUES (1, 0);

-- The outbox: events written by the appliers in the transaction of the
-- block that caused them, deleted once delivered. (block_number,
-- position) is the order of delivery within a webhook; the primary key
-- makes a re-applied block write no event twice.
CREATE TABLE webhook_outbox (
    webhook_id   TEXT   NOT NULL,
    block_number BIGINT NOT NULL,
    position     BIGINT NOT NULL,
    message_id   TEXT   NOT NULL,
    payload      TEXT   NOT NULL, -- the canonical JSON body
    created_at   BIGINT NOT NULL, -- unix milliseconds
    PRIMARY KEY (webhook_id, block_number, position)
);
