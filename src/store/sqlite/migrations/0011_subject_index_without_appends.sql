-- locker schema, version 11: an append writes fewer pages (issue 19), and a query by subject
-- finds its entries through an index. The journal's index on (subject, seq) leaves out
-- `pad.append` entries, the one kind written per block: before, every append wrote its entry
-- into it, and appends to different pads into different pages of it, and no query used it
-- (the journal's query filtered a subject as `(?3 IS NULL OR subject = ?3)`, which SQLite
-- answers by walking the journal by `seq`: EXPLAIN QUERY PLAN said SCAN journal). Now a query
-- by subject names it plainly, and one that needs no `pad.append` entry (every subject but a
-- pad's, and a pad's tickets) adds `kind <> 'pad.append'` and is answered from this index.
-- Without the appends in it, a sequential 200-byte append writes 27 KB instead of 33, and 16
-- clients' appends 12 KB each instead of 18 (docs/performance.md). PostgreSQL keeps its index
-- whole.
-- A journal whose index was dropped by hand is not refused for it.
-- Migrations are append-only: never edit a released one.
DROP INDEX IF EXISTS journal_subject;
CREATE INDEX journal_subject ON journal(subject, seq) WHERE kind <> 'pad.append';

-- The kinds a reader looks up across the whole journal, each written rarely: `locker gc`'s
-- runs (a pad's verify and a work item's history replay them) and agents' signing keys (a
-- pad's signers are checked against them). Only their entries are in this index, so no other
-- write pays for it; a query for one of them states the index's condition (sqlite/journal.rs).
CREATE INDEX journal_rare_kinds ON journal(kind, seq)
    WHERE kind IN ('repo.gc', 'key.register', 'key.revoke');
