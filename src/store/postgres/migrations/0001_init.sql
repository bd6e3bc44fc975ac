-- locker's PostgreSQL schema, version 1: the same tables as the SQLite store's migrations
-- 0001–0005, in one step. Migrations are append-only: never edit a released one. Integers are
-- BIGINT, hashes lowercase hex TEXT, exact bytes BYTEA. Blobs always live in the database.

-- The journal: one hash chain over every state change. `entry` holds the exact hashed bytes.
CREATE TABLE journal (
    seq       BIGINT PRIMARY KEY,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL,
    entry     BYTEA NOT NULL,
    time      BIGINT NOT NULL,
    kind      TEXT NOT NULL,
    actor     TEXT NOT NULL,
    scope     TEXT NOT NULL,
    subject   TEXT NOT NULL
);
CREATE INDEX journal_subject ON journal(subject, seq);

-- The journal's head, so that a truncated tail is detectable.
CREATE TABLE journal_head (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    seq  BIGINT NOT NULL,
    hash TEXT NOT NULL
);

CREATE TABLE pads (
    id             TEXT PRIMARY KEY,
    scope          TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    expires_at     BIGINT NOT NULL,
    max_blocks     BIGINT NOT NULL,
    max_bytes      BIGINT NOT NULL,
    block_count    BIGINT NOT NULL DEFAULT 0,
    current_bytes  BIGINT NOT NULL DEFAULT 0,
    state          TEXT NOT NULL CHECK (state IN ('open', 'sealed')),
    write_key_hash TEXT NOT NULL,
    head_hash      TEXT NOT NULL,
    sealed_at      BIGINT,
    pruned_at      BIGINT
);

CREATE TABLE blocks (
    pad_id       TEXT NOT NULL REFERENCES pads(id),
    seq          BIGINT NOT NULL,
    prev_hash    TEXT NOT NULL,
    curr_hash    TEXT NOT NULL,
    content_type TEXT NOT NULL,
    payload      BYTEA NOT NULL,
    created_at   BIGINT NOT NULL,
    pruned_bytes BIGINT,
    PRIMARY KEY (pad_id, seq)
);

CREATE TABLE tickets (
    digest           TEXT PRIMARY KEY,
    pad_id           TEXT NOT NULL REFERENCES pads(id),
    type             TEXT NOT NULL CHECK (type IN ('read_once', 'read_unlimited')),
    created_at       BIGINT NOT NULL,
    lease_started_at BIGINT,
    revoked_at       BIGINT
);
CREATE INDEX tickets_pad ON tickets(pad_id);

CREATE TABLE agents (
    name       TEXT PRIMARY KEY,
    scope      TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);

-- Content-addressed blobs, by SHA-256, always inline. Every read re-hashes the bytes.
CREATE TABLE blobs (
    digest     TEXT PRIMARY KEY,
    size       BIGINT NOT NULL,
    storage    TEXT NOT NULL CHECK (storage = 'inline'),
    data       BYTEA NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE artifact_versions (
    scope      TEXT NOT NULL,
    key        TEXT NOT NULL,
    version    BIGINT NOT NULL CHECK (version > 0),
    blob       TEXT NOT NULL REFERENCES blobs(digest),
    size       BIGINT NOT NULL,
    actor      TEXT NOT NULL,
    op_id      TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (scope, key, version)
);
CREATE INDEX artifact_versions_blob ON artifact_versions(blob);

CREATE TABLE artifact_heads (
    scope   TEXT NOT NULL,
    key     TEXT NOT NULL,
    version BIGINT NOT NULL,
    PRIMARY KEY (scope, key),
    FOREIGN KEY (scope, key, version) REFERENCES artifact_versions(scope, key, version)
);

CREATE TABLE artifact_receipts (
    actor            TEXT NOT NULL,
    op_id            TEXT NOT NULL,
    scope            TEXT NOT NULL,
    key              TEXT NOT NULL,
    expected_version BIGINT NOT NULL,
    version          BIGINT NOT NULL,
    created_at       BIGINT NOT NULL,
    fence_work       TEXT,
    fence_token      BIGINT,
    PRIMARY KEY (actor, op_id),
    FOREIGN KEY (scope, key, version) REFERENCES artifact_versions(scope, key, version)
);

CREATE TABLE leases (
    id           TEXT PRIMARY KEY,
    scope        TEXT NOT NULL,
    work         TEXT NOT NULL,
    fence        BIGINT NOT NULL CHECK (fence >= 1),
    holder       TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('active', 'completed', 'released', 'abandoned')),
    ttl          BIGINT NOT NULL CHECK (ttl >= 1),
    acquired_at  BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    heartbeats   BIGINT NOT NULL DEFAULT 0 CHECK (heartbeats >= 0),
    heartbeat_at BIGINT,
    details      TEXT,
    ended_at     BIGINT,
    result       TEXT,
    UNIQUE (scope, work, fence)
);
CREATE UNIQUE INDEX leases_one_active ON leases(scope, work) WHERE state = 'active';
CREATE INDEX leases_expiry ON leases(expires_at) WHERE state = 'active';
CREATE INDEX leases_state ON leases(state, scope, work, fence);

CREATE TABLE plans (
    scope        TEXT NOT NULL,
    work         TEXT NOT NULL,
    version      BIGINT NOT NULL CHECK (version >= 1),
    lease_id     TEXT NOT NULL REFERENCES leases(id),
    steps        TEXT NOT NULL,
    committed_at BIGINT NOT NULL,
    PRIMARY KEY (scope, work, version)
);

-- `id` keeps the order steps were recorded in.
CREATE TABLE steps (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope       TEXT NOT NULL,
    work        TEXT NOT NULL,
    lease_id    TEXT NOT NULL REFERENCES leases(id),
    step        TEXT NOT NULL,
    planned     TEXT,
    executed    TEXT,
    gate        TEXT NOT NULL,
    recorded_at BIGINT NOT NULL,
    UNIQUE (lease_id, step)
);
CREATE INDEX steps_work ON steps(scope, work, id);

CREATE TABLE payment_receipts (
    tx_hash      TEXT PRIMARY KEY,
    pad_id       TEXT NOT NULL,
    payer        TEXT NOT NULL,
    amount_units TEXT NOT NULL,
    token        TEXT NOT NULL,
    recipient    TEXT NOT NULL,
    chain_id     BIGINT NOT NULL,
    block_number BIGINT NOT NULL,
    redeemed_at  BIGINT NOT NULL
);
CREATE INDEX payment_receipts_pad ON payment_receipts(pad_id);
