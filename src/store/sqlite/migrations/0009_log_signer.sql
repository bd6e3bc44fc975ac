-- The log's signer (issue 22): checkpoints of a repository are signed by one process at a time.
-- `holder` took turn `fence` (one more at each change of holder) and keeps it until `expires_at`
-- (seconds) unless it renews; `vkey` is the log's verifier key, so that a host without the key
-- can check and serve the stored checkpoints. At most one row.
CREATE TABLE log_signer (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    holder     TEXT NOT NULL,
    fence      INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    vkey       TEXT NOT NULL
);
