-- SQLite keeps a table whose primary key is not an integer as two B-trees,
-- the rows and the key's index. metric_addresses is only ever read and
-- written by its key (a batch's addresses, looked up then upserted), so
-- one B-tree ordered by the key (WITHOUT ROWID) halves the pages each
-- lookup and each write touches.
CREATE TABLE metric_addresses_by_key (
    address       BYTEA  NOT NULL,
    chain_key     TEXT   NOT NULL,
    last_seen     BIGINT NOT NULL,
    last_sent     BIGINT NOT NULL,
    last_deployed BIGINT NOT NULL,
    PRIMARY KEY (address, chain_key)
) WITHOUT ROWID;
INSERT INTO metric_addresses_by_key (address, chain_key, last_seen, last_sent, last_deployed)
    SELECT address, chain_key, last_seen, last_sent, last_deployed FROM metric_addresses;
DROP TABLE metric_addresses;
ALTER TABLE metric_addresses_by_key RENAME TO metric_addresses;
