-- API keys (avaindex keys create/list/revoke): only the SHA-256 of a key is
-- kept, never the key itself. A revoked key keeps its row, for the list;
-- a name is unique among the keys not revoked, so it can be reused after.

CREATE TABLE api_keys (
    key_hash   BYTEA  PRIMARY KEY,
    name       TEXT   NOT NULL,
    tier       TEXT   NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);

CREATE UNIQUE INDEX api_keys_active_name ON api_keys (name) WHERE revoked_at IS NULL;
