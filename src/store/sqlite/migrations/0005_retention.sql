-- locker schema, version 4: retention (`locker gc`). Migrations are append-only: never edit a
-- released one.

-- A pruned pad: `locker gc` removed its blocks' payloads at this time. Its hashes, counts,
-- head, tickets and journal entries stay, so its chain still verifies link by link.
ALTER TABLE pads ADD COLUMN pruned_at INTEGER;

-- A pruned block: its payload is empty and this is the length the payload had. NULL while the
-- payload is present. `locker verify` checks both columns against the journal's `repo.gc`
-- entries, so a payload cannot be hidden by marking its block pruned.
ALTER TABLE blocks ADD COLUMN pruned_bytes INTEGER;
