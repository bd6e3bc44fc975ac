-- locker schema, version 10: an append writes fewer pages (issue 19). The Merkle hashes move
-- into the journal rows, and the `journal_head` row goes: the last entry is the head.
-- Migrations are append-only: never edit a released one.

-- The hashes that journal entry `seq`'s leaf (leaf `seq - 1`) adds to the tree, positions
-- stored_count(seq - 1)..stored_count(seq) of the stored-hash order of version 7, as 32-byte
-- digests in that order; NULL for an entry not hashed in yet. An append writes one row instead
-- of two. The migration's code step (src/store/sqlite/merkle.rs) then moves the `merkle_hashes`
-- table's hashes here, reads them back against it, and drops it; and drops `journal_head`
-- after checking that it names the journal's last entry (if it does not, the migration fails
-- and nothing changes).
ALTER TABLE journal ADD COLUMN merkle BLOB;
