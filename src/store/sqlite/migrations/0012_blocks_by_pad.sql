-- locker schema, version 12: an append writes two pages, its block's and its journal entry's
-- (issue 19). Migrations are append-only: never edit a released one.
--
-- Before, an append also rewrote its pad's row (count, bytes, head) and wrote its block into
-- the `UNIQUE (pad_id, seq)` index: four pages per durable commit, about five WAL frames.
-- Now a pad's blocks are stored in its own range of the blocks table's row ids, so the table
-- is its own index, and a pad's count, byte total and head are read from its last block:
--
-- - `pads.ord`: the pad's number, given at its creation (1, 2, ...; never reused). Block `seq`
--   of the pad is row `ord * 2^32 + seq` of `blocks`.
-- - `blocks.total_bytes`: the pad's bytes up to and including this block (a pruned block
--   counts the length its payload had). The last block's is the pad's `current_bytes`.
-- - A pad's `block_count` is its last block's `seq + 1` and its `head_hash` that block's
--   `curr_hash` (0 and 64 zeros with no block). `locker verify` walks each chain and replays
--   the journal against it, as before, so a deleted or altered block still shows.
--
-- The migration's code step (src/store/sqlite/pads.rs) reads every pad back through the new
-- layout and compares it with the columns below before they are dropped; if one differs, the
-- migration fails and nothing changes.

ALTER TABLE pads ADD COLUMN ord INTEGER;
UPDATE pads SET ord = (SELECT n FROM
    (SELECT id AS pid, ROW_NUMBER() OVER (ORDER BY created_at, id) AS n FROM pads)
    WHERE pid = pads.id);
CREATE UNIQUE INDEX pads_ord ON pads(ord);

CREATE TABLE blocks_by_pad (
    id           INTEGER PRIMARY KEY,
    pad_id       TEXT NOT NULL REFERENCES pads(id),
    seq          INTEGER NOT NULL CHECK (seq >= 0 AND seq < 4294967296),
    prev_hash    TEXT NOT NULL,
    curr_hash    TEXT NOT NULL,
    content_type TEXT NOT NULL,
    payload      BLOB NOT NULL,
    created_at   INTEGER NOT NULL,
    pruned_bytes INTEGER,
    total_bytes  INTEGER NOT NULL
);
INSERT INTO blocks_by_pad
    (id, pad_id, seq, prev_hash, curr_hash, content_type, payload, created_at, pruned_bytes,
     total_bytes)
SELECT p.ord * 4294967296 + b.seq, b.pad_id, b.seq, b.prev_hash, b.curr_hash, b.content_type,
       b.payload, b.created_at, b.pruned_bytes,
       SUM(COALESCE(b.pruned_bytes, length(CAST(b.payload AS BLOB))))
           OVER (PARTITION BY b.pad_id ORDER BY b.seq)
FROM blocks b JOIN pads p ON p.id = b.pad_id
ORDER BY p.ord, b.seq;
