-- locker schema, version 7: a Merkle tree over the journal and signed checkpoints (issue 10).
-- Migrations are append-only: never edit a released one.

-- Every complete subtree's RFC 6962 hash, in the order appends complete them (Go sumdb/tlog's
-- stored-hash layout): `idx` is the hash's position in that order. Leaf `seq - 1` is
-- SHA-256(0x00 ‖ the journal entry's stored bytes). Written in the journal entry's own
-- transaction; an existing repository's journal is hashed in on first use.
CREATE TABLE merkle_hashes (
    idx  INTEGER PRIMARY KEY,
    hash TEXT NOT NULL
);

-- Every checkpoint the repository's log key signed: a C2SP signed note of (origin, size, root).
-- A new one is signed only after a consistency proof from the newest one verifies.
CREATE TABLE checkpoints (
    size      INTEGER PRIMARY KEY,
    root      TEXT NOT NULL,
    note      TEXT NOT NULL,
    signed_at INTEGER NOT NULL
);
