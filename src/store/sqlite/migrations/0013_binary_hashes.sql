-- locker schema, version 13: the hashes of the journal's chain and of every pad's chain are
-- stored as their 32 bytes, not as 64 characters of hex (issue 19). A journal row and a block
-- row are each 64 bytes shorter, and reading one no longer decodes hex: `locker verify` reads
-- two of them per block an agent appends. Migrations are append-only: never edit a released
-- one.
--
-- SQLite cannot change a column's type, so both tables are copied whole into new ones here.
-- A value that is not 64 lowercase hex characters (one edited outside locker) is copied as it
-- is, so that `locker verify` still reports it. The migration's code step
-- (src/store/sqlite/hashes.rs) compares every copied row with its original before the old
-- tables are dropped; if one differs, the migration fails and nothing changes.
-- PostgreSQL keeps its hashes as text.

CREATE TABLE journal_13 (
    seq       INTEGER PRIMARY KEY,
    prev_hash BLOB NOT NULL,
    hash      BLOB NOT NULL,
    entry     BLOB NOT NULL,
    time      INTEGER NOT NULL,
    kind      TEXT NOT NULL,
    actor     TEXT NOT NULL,
    scope     TEXT NOT NULL,
    subject   TEXT NOT NULL,
    merkle    BLOB
);
INSERT INTO journal_13 (seq, prev_hash, hash, entry, time, kind, actor, scope, subject, merkle)
SELECT seq,
       CASE WHEN typeof(prev_hash) = 'text' AND length(prev_hash) = 64
                 AND prev_hash NOT GLOB '*[^0-9a-f]*' THEN unhex(prev_hash) ELSE prev_hash END,
       CASE WHEN typeof(hash) = 'text' AND length(hash) = 64
                 AND hash NOT GLOB '*[^0-9a-f]*' THEN unhex(hash) ELSE hash END,
       entry, time, kind, actor, scope, subject, merkle
FROM journal ORDER BY seq;

CREATE TABLE blocks_13 (
    id           INTEGER PRIMARY KEY,
    pad_id       TEXT NOT NULL REFERENCES pads(id),
    seq          INTEGER NOT NULL CHECK (seq >= 0 AND seq < 4294967296),
    prev_hash    BLOB NOT NULL,
    curr_hash    BLOB NOT NULL,
    content_type TEXT NOT NULL,
    payload      BLOB NOT NULL,
    created_at   INTEGER NOT NULL,
    pruned_bytes INTEGER,
    total_bytes  INTEGER NOT NULL
);
INSERT INTO blocks_13
    (id, pad_id, seq, prev_hash, curr_hash, content_type, payload, created_at, pruned_bytes,
     total_bytes)
SELECT id, pad_id, seq,
       CASE WHEN typeof(prev_hash) = 'text' AND length(prev_hash) = 64
                 AND prev_hash NOT GLOB '*[^0-9a-f]*' THEN unhex(prev_hash) ELSE prev_hash END,
       CASE WHEN typeof(curr_hash) = 'text' AND length(curr_hash) = 64
                 AND curr_hash NOT GLOB '*[^0-9a-f]*' THEN unhex(curr_hash) ELSE curr_hash END,
       content_type, payload, created_at, pruned_bytes, total_bytes
FROM blocks ORDER BY id;
