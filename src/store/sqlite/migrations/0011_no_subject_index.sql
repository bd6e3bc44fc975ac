-- locker schema, version 11: an append writes fewer pages (issue 19). The journal's index on
-- (subject, seq) goes. No query used it: the journal's one query filters a subject as
-- `(?3 IS NULL OR subject = ?3)`, which SQLite answers by walking the journal by `seq`, with
-- or without the index (EXPLAIN QUERY PLAN: SCAN journal); yet every append wrote its entry
-- into it, and appends to different pads into different pages of it. Without it, a
-- sequential 200-byte append writes 27 KB instead of 33, and 16 clients' appends 12 KB each
-- instead of 18 (docs/performance.md). PostgreSQL keeps it: a plan made for known parameters
-- folds the test for NULL away and can use it.
-- Migrations are append-only: never edit a released one.
DROP INDEX journal_subject;
