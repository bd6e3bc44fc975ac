-- locker's PostgreSQL schema, version 4: the log's signer, as the SQLite store's migration 0009
-- (issue 22). Checkpoints of a shared repository are signed by one host at a time: `holder` took
-- turn `fence` (one more at each change of holder) and keeps it until `expires_at` (seconds)
-- unless it renews; `vkey` is the log's verifier key, so that a host without the key can check
-- and serve the stored checkpoints. At most one row. Append-only.
CREATE TABLE log_signer (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    holder     TEXT NOT NULL,
    fence      BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    vkey       TEXT NOT NULL
);
