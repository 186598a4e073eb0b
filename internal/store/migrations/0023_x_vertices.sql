-- The vertices of the X-chain's pre-Cortina DAG, decoded from the
-- mirrored X/vtx index (containers, 0002), so that a DAG tx (x_dag_txs,
-- 0010) is served with the vertices that carried it (the Data API's
-- XChainNonLinearTransaction.vertices). A tx can be carried by several
-- vertices: one row of x_vertex_txs per (tx, vertex).
--
-- x_vertices.idx is the vertex's position in the X/vtx index, timestamp
-- the container's acceptance time. Its bytes are not copied: they are the
-- container's (index_name 'X/vtx', same idx). The cursors row 'X/vertices'
-- is the last container decoded; a store that mirrored X/vtx before this
-- table existed decodes it from container 0 when the indexer starts.
--
-- x_vertex_txs repeats the vertex's height (fixed once accepted) so that a
-- tx's vertices in height order are one range of its primary key.

CREATE TABLE x_vertices (
    idx       BIGINT PRIMARY KEY, -- position in the X/vtx index
    id        BYTEA  NOT NULL UNIQUE,
    height    BIGINT NOT NULL,    -- the vertex's height in the DAG
    timestamp BIGINT NOT NULL     -- acceptance time, unix seconds
);

CREATE TABLE x_vertex_txs (
    tx_id      BYTEA  NOT NULL,
    height     BIGINT NOT NULL, -- x_vertices.height
    vertex_idx BIGINT NOT NULL, -- x_vertices.idx
    PRIMARY KEY (tx_id, height, vertex_idx)
);
