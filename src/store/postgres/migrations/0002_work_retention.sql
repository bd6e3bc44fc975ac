-- locker's PostgreSQL schema, version 2: retention of abandoned work (`locker gc
-- --abandoned-older-than`), as the SQLite store's migration 0006. Append-only.
ALTER TABLE leases ADD COLUMN pruned_at BIGINT;
ALTER TABLE plans ADD COLUMN pruned_at BIGINT;
ALTER TABLE steps ADD COLUMN pruned_at BIGINT;
