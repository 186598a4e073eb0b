-- The node's container indexes (/ext/index/{C/block,P/block,X/tx,X/block,
-- X/vtx}) mirrored container by container. index_name is the index's path
-- below /ext/index ("P/block"); idx is the container's position in it, as
-- the node numbers it (the first accepted container is 0). timestamp is
-- the node's RFC 3339 text of the acceptance time, kept byte for byte so
-- that it is served exactly as the node serves it. The cursor of each
-- index is the row "index:<index_name>" of cursors.

CREATE TABLE containers (
    index_name TEXT   NOT NULL,
    idx        BIGINT NOT NULL,
    id         BYTEA  NOT NULL,
    timestamp  TEXT   NOT NULL,
    bytes      BYTEA  NOT NULL,
    PRIMARY KEY (index_name, idx)
);

CREATE UNIQUE INDEX containers_id ON containers (index_name, id);
