-- Leases, plans and steps (SPEC §5). Every row here is also recorded in the journal, and
-- `locker verify` replays the journal against these rows.

-- A lease on a work item. `fence` is the work item's fencing token: 1, 2, 3… never reused.
-- At most one lease per work item is active (the partial unique index below), so exclusivity
-- holds even against a buggy caller.
CREATE TABLE leases (
    id           TEXT PRIMARY KEY,
    scope        TEXT NOT NULL,
    work         TEXT NOT NULL,
    fence        INTEGER NOT NULL CHECK (fence >= 1),
    holder       TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('active', 'completed', 'released', 'abandoned')),
    ttl          INTEGER NOT NULL CHECK (ttl >= 1),
    acquired_at  INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    heartbeats   INTEGER NOT NULL DEFAULT 0 CHECK (heartbeats >= 0),
    heartbeat_at INTEGER,
    details      TEXT,
    ended_at     INTEGER,
    result       TEXT,
    UNIQUE (scope, work, fence)
);
CREATE UNIQUE INDEX leases_one_active ON leases(scope, work) WHERE state = 'active';
CREATE INDEX leases_expiry ON leases(expires_at) WHERE state = 'active';
CREATE INDEX leases_state ON leases(state, scope, work, fence);

-- A work item's plan: its own record, one row per version, committed under a lease.
-- `steps` is a JSON array of unique step names.
CREATE TABLE plans (
    scope        TEXT NOT NULL,
    work         TEXT NOT NULL,
    version      INTEGER NOT NULL CHECK (version >= 1),
    lease_id     TEXT NOT NULL REFERENCES leases(id),
    steps        TEXT NOT NULL,
    committed_at INTEGER NOT NULL,
    PRIMARY KEY (scope, work, version)
);

-- Steps: one per (lease, step name); a lease belongs to one work item. Every key column is
-- NOT NULL, so the uniqueness cannot be dodged with NULLs.
CREATE TABLE steps (
    id          INTEGER PRIMARY KEY,
    scope       TEXT NOT NULL,
    work        TEXT NOT NULL,
    lease_id    TEXT NOT NULL REFERENCES leases(id),
    step        TEXT NOT NULL,
    planned     TEXT,
    executed    TEXT,
    gate        TEXT NOT NULL,
    recorded_at INTEGER NOT NULL,
    UNIQUE (lease_id, step)
);
CREATE INDEX steps_work ON steps(scope, work, id);

-- An artifact publish made under a lease carries its fencing token (`--fence WORK:TOKEN`);
-- the fence is part of the request a retry must repeat to be replayed.
ALTER TABLE artifact_receipts ADD COLUMN fence_work TEXT;
ALTER TABLE artifact_receipts ADD COLUMN fence_token INTEGER;
