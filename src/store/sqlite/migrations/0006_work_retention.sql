-- locker schema, version 6: retention of abandoned work (`locker gc --abandoned-older-than`).
-- Migrations are append-only: never edit a released one.

-- When `locker gc` removed the text of an abandoned lease (its heartbeat details), of the plans
-- committed under it (their steps) and of the steps logged under it (planned, executed). The
-- rows stay, with their fencing tokens, versions and times, so later leases and plans still
-- number on; `locker verify` checks each pruned row against the journal's `repo.gc` entries.
ALTER TABLE leases ADD COLUMN pruned_at INTEGER;
ALTER TABLE plans ADD COLUMN pruned_at INTEGER;
ALTER TABLE steps ADD COLUMN pruned_at INTEGER;
