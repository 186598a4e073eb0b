-- The requests served (internal/usage records them off the request path,
-- in batches), read by the usage operations and deleted past the
-- configured retention. The time is in Unix microseconds; the key is its
-- ID (a prefix of its hash) and name, '' for calls without a key.

CREATE TABLE api_requests (
    ts_us       BIGINT  NOT NULL,
    id          TEXT    NOT NULL,
    key_id      TEXT    NOT NULL,
    key_name    TEXT    NOT NULL,
    req_type    TEXT    NOT NULL,
    route       TEXT    NOT NULL,
    method      TEXT    NOT NULL,
    status      INTEGER NOT NULL,
    duration_us BIGINT  NOT NULL,
    chain_id    TEXT    NOT NULL,
    rpc_method  TEXT    NOT NULL,
    PRIMARY KEY (ts_us, id)
);

CREATE INDEX api_requests_key ON api_requests (key_id, ts_us);
