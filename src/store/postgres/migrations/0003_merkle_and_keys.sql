-- locker's PostgreSQL schema, version 3: the journal's Merkle tree and signed checkpoints, agent
-- signing keys and repository settings (issue 10), as the SQLite store's migrations 0007 and
-- 0008. Append-only.
CREATE TABLE merkle_hashes (
    idx  BIGINT PRIMARY KEY,
    hash TEXT NOT NULL
);

CREATE TABLE checkpoints (
    size      BIGINT PRIMARY KEY,
    root      TEXT NOT NULL,
    note      TEXT NOT NULL,
    signed_at BIGINT NOT NULL
);

CREATE TABLE agent_keys (
    agent      TEXT NOT NULL,
    key_id     TEXT NOT NULL,
    vkey       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT,
    PRIMARY KEY (agent, key_id)
);

CREATE TABLE repo_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
