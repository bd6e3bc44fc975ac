-- locker schema, version 2: agents and their tokens, content-addressed blobs, versioned
-- artifacts. Migrations are append-only: never edit a released one.

-- Agents, each with one bearer token stored only as its SHA-256. Rows are never deleted, so a
-- name is never reused; revocation sets `revoked_at`.
CREATE TABLE agents (
    name       TEXT PRIMARY KEY,
    scope      TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);

-- Content-addressed blobs, by SHA-256. Small ones live in `data`; larger ones in
-- `.locker/objects/ab/cdef…` (`data` is NULL). Every read re-hashes the bytes.
CREATE TABLE blobs (
    digest     TEXT PRIMARY KEY,
    size       INTEGER NOT NULL,
    storage    TEXT NOT NULL CHECK (storage IN ('inline', 'file')),
    data       BLOB,
    created_at INTEGER NOT NULL,
    CHECK ((storage = 'inline') = (data IS NOT NULL))
);

-- Immutable artifact versions 1, 2, 3… of a key in a scope.
CREATE TABLE artifact_versions (
    scope      TEXT NOT NULL,
    key        TEXT NOT NULL,
    version    INTEGER NOT NULL CHECK (version > 0),
    blob       TEXT NOT NULL REFERENCES blobs(digest),
    size       INTEGER NOT NULL,
    actor      TEXT NOT NULL,
    op_id      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (scope, key, version)
);

-- Each key's current version.
CREATE TABLE artifact_heads (
    scope   TEXT NOT NULL,
    key     TEXT NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (scope, key),
    FOREIGN KEY (scope, key, version) REFERENCES artifact_versions(scope, key, version)
);

-- Receipts of accepted publishes, so that a retry of the same operation returns its original
-- result. An operation id belongs to its actor.
CREATE TABLE artifact_receipts (
    actor            TEXT NOT NULL,
    op_id            TEXT NOT NULL,
    scope            TEXT NOT NULL,
    key              TEXT NOT NULL,
    expected_version INTEGER NOT NULL,
    version          INTEGER NOT NULL,
    created_at       INTEGER NOT NULL,
    PRIMARY KEY (actor, op_id),
    FOREIGN KEY (scope, key, version) REFERENCES artifact_versions(scope, key, version)
);
