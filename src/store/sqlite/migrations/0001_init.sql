-- locker schema, version 1. Migrations are append-only: never edit a released one.

-- The journal: one hash chain over every state change. `entry` holds the exact hashed bytes;
-- the other columns index them and are checked against them by `locker verify`.
CREATE TABLE journal (
    seq       INTEGER PRIMARY KEY,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL,
    entry     BLOB NOT NULL,
    time      INTEGER NOT NULL,
    kind      TEXT NOT NULL,
    actor     TEXT NOT NULL,
    scope     TEXT NOT NULL,
    subject   TEXT NOT NULL
);
CREATE INDEX journal_subject ON journal(subject, seq);

-- The journal's head, so that a truncated tail is detectable.
CREATE TABLE journal_head (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    seq  INTEGER NOT NULL,
    hash TEXT NOT NULL
);

-- Handoff pads (agent-locker 0.1.5 semantics).
CREATE TABLE pads (
    id             TEXT PRIMARY KEY,
    scope          TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    max_blocks     INTEGER NOT NULL,
    max_bytes      INTEGER NOT NULL,
    block_count    INTEGER NOT NULL DEFAULT 0,
    current_bytes  INTEGER NOT NULL DEFAULT 0,
    state          TEXT NOT NULL CHECK (state IN ('open', 'sealed')),
    write_key_hash TEXT NOT NULL,
    head_hash      TEXT NOT NULL,
    sealed_at      INTEGER
);

CREATE TABLE blocks (
    id           INTEGER PRIMARY KEY,
    pad_id       TEXT NOT NULL REFERENCES pads(id),
    seq          INTEGER NOT NULL,
    prev_hash    TEXT NOT NULL,
    curr_hash    TEXT NOT NULL,
    content_type TEXT NOT NULL,
    payload      BLOB NOT NULL,
    created_at   INTEGER NOT NULL,
    UNIQUE (pad_id, seq)
);

-- Read tickets, stored only as their SHA-256 (unlike the peer, which keeps them in plain text).
CREATE TABLE tickets (
    digest           TEXT PRIMARY KEY,
    pad_id           TEXT NOT NULL REFERENCES pads(id),
    type             TEXT NOT NULL CHECK (type IN ('read_once', 'read_unlimited')),
    created_at       INTEGER NOT NULL,
    lease_started_at INTEGER,
    revoked_at       INTEGER
);
CREATE INDEX tickets_pad ON tickets(pad_id);
