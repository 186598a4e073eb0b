-- The Data API's operations (the Operations tag): transaction exports,
-- each a job that internal/exports runs in the background and whose CSV
-- file is kept here in chunks, so that any instance serves its download.
--
-- A job belongs to the API key that created it (owner: apikeys.Key.ID).
-- A worker leases a RUNNING job (claim, claimed_until) so that two
-- instances never run one at once; each chunk is written in the
-- transaction that moves the job's position (cursor, rows, bytes_written,
-- chunks), so a job cut short resumes after its last chunk.
CREATE TABLE operations (
    id            TEXT    PRIMARY KEY, -- a UUID
    owner         TEXT    NOT NULL,
    op_type       TEXT    NOT NULL, -- OperationType
    status        TEXT    NOT NULL, -- RUNNING | COMPLETED | COMPLETED_WITH_WARNING | FAILED
    job           TEXT    NOT NULL, -- the validated request, JSON (store.ExportJob)
    code          TEXT    NOT NULL, -- OperationStatusCode, '' for none
    message       TEXT    NOT NULL,
    next_date     TEXT    NOT NULL, -- YYYY-MM-DD after a truncated export, '' else
    cursor        TEXT    NOT NULL, -- the worker's position, JSON; '' at the start
    rows_written  BIGINT  NOT NULL,
    bytes_written BIGINT  NOT NULL,
    chunks        INTEGER NOT NULL,
    created_at    BIGINT  NOT NULL, -- unix milliseconds
    updated_at    BIGINT  NOT NULL, -- unix milliseconds
    claim         TEXT    NOT NULL, -- the holder's claim token, '' for none
    claimed_until BIGINT  NOT NULL  -- unix milliseconds
);

CREATE INDEX operations_owner ON operations (owner, created_at);
CREATE INDEX operations_status ON operations (status, claimed_until);

-- The CSV file of an export, in order of seq (0, 1, ...).
CREATE TABLE operation_chunks (
    operation_id TEXT    NOT NULL,
    seq          INTEGER NOT NULL,
    data         TEXT    NOT NULL,
    PRIMARY KEY (operation_id, seq)
);
