//! Schema 13's data step: the chains' hashes as their 32 bytes. The migration's SQL
//! (`migrations/0013_binary_hashes.sql`) copied the journal and the blocks into new tables;
//! this compares every copied row with its original, then puts the copies in their place.

use rusqlite::{Connection, OptionalExtension as _};

use super::error::SqlResult as _;
use crate::store::{Result, StoreError};

/// Whether the copy `n` of the hash `o` is the same hash: its 32 bytes when `o` was 64
/// lowercase hex characters, `o` itself otherwise (a value edited outside locker, kept for
/// `locker verify` to report).
macro_rules! same_hash {
    ($o:literal, $n:literal) => {
        concat!(
            "(CASE WHEN typeof(",
            $n,
            ") = 'blob' AND length(",
            $n,
            ") = 32 AND typeof(",
            $o,
            ") = 'text' THEN lower(hex(",
            $n,
            ")) = ",
            $o,
            " ELSE ",
            $n,
            " IS ",
            $o,
            " END)"
        )
    };
}

/// The first journal row whose copy differs from it.
const JOURNAL_DIFFERS: &str = concat!(
    "SELECT o.seq FROM journal o LEFT JOIN journal_13 n ON n.seq = o.seq WHERE n.seq IS NULL \
     OR NOT (",
    same_hash!("o.prev_hash", "n.prev_hash"),
    " AND ",
    same_hash!("o.hash", "n.hash"),
    " AND n.entry IS o.entry AND n.time IS o.time AND n.kind IS o.kind AND n.actor IS o.actor \
     AND n.scope IS o.scope AND n.subject IS o.subject AND n.merkle IS o.merkle) \
     ORDER BY o.seq LIMIT 1"
);

/// The first block row whose copy differs from it.
const BLOCKS_DIFFER: &str = concat!(
    "SELECT o.pad_id, o.seq FROM blocks o LEFT JOIN blocks_13 n ON n.id = o.id \
     WHERE n.id IS NULL OR NOT (",
    same_hash!("o.prev_hash", "n.prev_hash"),
    " AND ",
    same_hash!("o.curr_hash", "n.curr_hash"),
    " AND n.pad_id IS o.pad_id AND n.seq IS o.seq AND n.content_type IS o.content_type \
     AND n.payload IS o.payload AND n.created_at IS o.created_at \
     AND n.pruned_bytes IS o.pruned_bytes AND n.total_bytes IS o.total_bytes) \
     ORDER BY o.id LIMIT 1"
);

/// Checks the copies row by row against the originals and, if every one matches, replaces
/// the journal and the blocks with them (and rebuilds the journal's indexes, as schema 11
/// made them). Runs inside the migration's transaction: a difference fails it, and nothing
/// changes.
pub(super) fn move_to_binary_hashes(conn: &Connection) -> Result<()> {
    let count = |table: &str| -> Result<i64> {
        conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0)).db()
    };
    for (old, new) in [("journal", "journal_13"), ("blocks", "blocks_13")] {
        let (before, after) = (count(old)?, count(new)?);
        if before != after {
            return Err(StoreError::Corrupt(format!(
                "storing the hashes as bytes copied {after} of the {before} rows of `{old}`; \
                 nothing was changed"
            )));
        }
    }
    let entry: Option<i64> = conn.query_row(JOURNAL_DIFFERS, [], |r| r.get(0)).optional().db()?;
    if let Some(seq) = entry {
        return Err(StoreError::Corrupt(format!(
            "storing the hashes as bytes did not copy journal entry {seq} as it was; nothing \
             was changed"
        )));
    }
    let block: Option<(String, i64)> =
        conn.query_row(BLOCKS_DIFFER, [], |r| Ok((r.get(0)?, r.get(1)?))).optional().db()?;
    if let Some((pad, seq)) = block {
        return Err(StoreError::Corrupt(format!(
            "storing the hashes as bytes did not copy block {seq} of pad {pad} as it was; \
             nothing was changed"
        )));
    }
    conn.execute_batch(
        "DROP TABLE journal; ALTER TABLE journal_13 RENAME TO journal; \
         CREATE INDEX journal_subject ON journal(subject, seq) WHERE kind <> 'pad.append'; \
         CREATE INDEX journal_rare_kinds ON journal(kind, seq) \
             WHERE kind IN ('repo.gc', 'key.register', 'key.revoke'); \
         DROP TABLE blocks; ALTER TABLE blocks_13 RENAME TO blocks;",
    )
    .db()
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use crate::store::sqlite::schema;

    const A: &str = "ab00000000000000000000000000000000000000000000000000000000000001";
    const B: &str = "cd00000000000000000000000000000000000000000000000000000000000002";

    /// A schema-12 database with two journal entries, a pad and two blocks; the second of
    /// each holds a hash edited outside locker (`odd`).
    fn v12(odd: &str) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        schema::create_at(&conn, 12).unwrap();
        conn.execute_batch(&format!(
            "INSERT INTO journal (seq, prev_hash, hash, entry, time, kind, actor, scope, subject, \
                 merkle) VALUES \
                 (1, '{zero}', '{A}', X'7b7d', 5, 'pad.create', 'a', 's', 'pad:p', X'01'), \
                 (2, '{A}', {odd}, X'7b7e', 6, 'pad.append', 'a', 's', 'pad:p', NULL); \
             INSERT INTO pads (id, scope, created_at, expires_at, max_blocks, max_bytes, state, \
                 write_key_hash, ord) VALUES ('p', 's', 1, 2, 10, 100, 'open', '{B}', 1); \
             INSERT INTO blocks (id, pad_id, seq, prev_hash, curr_hash, content_type, payload, \
                 created_at, total_bytes) VALUES \
                 (4294967296, 'p', 0, '{zero}', '{B}', 't', X'aa', 7, 1), \
                 (4294967297, 'p', 1, '{B}', {odd}, 't', X'bb', 8, 2);",
            zero = "0".repeat(64),
        ))
        .unwrap();
        conn
    }

    fn column(conn: &Connection, sql: &str) -> Vec<String> {
        let mut stmt = conn.prepare(sql).unwrap();
        let rows = stmt.query_map([], |r| r.get::<_, String>(0)).unwrap();
        rows.map(Result::unwrap).collect()
    }

    /// Every hash of 64 lowercase hex characters becomes its 32 bytes; anything else (text
    /// that is not such hex, uppercase hex, a blob, a number) is kept as it was, for
    /// `locker verify` to report; the rest of every row is unchanged, and the journal's
    /// indexes are as schema 11 made them.
    #[test]
    fn hashes_become_their_bytes_and_anything_else_is_kept() {
        for odd in ["'zz'", &format!("'{}'", B.to_uppercase()), "X'0102'", "42"] {
            let conn = v12(odd);
            let kept: Vec<String> = column(&conn, "SELECT quote(hash) FROM journal WHERE seq = 2");
            schema::run_one(&conn, 13).unwrap();
            let journal = column(
                &conn,
                "SELECT typeof(prev_hash) || ' ' || quote(hash) || ' ' || hex(entry) || ' ' || \
                 quote(merkle) FROM journal ORDER BY seq",
            );
            assert_eq!(journal[0], format!("blob X'{}' 7B7D X'01'", A.to_uppercase()), "{odd}");
            assert_eq!(journal[1], format!("blob {} 7B7E NULL", kept[0]), "{odd}");
            let blocks = column(
                &conn,
                "SELECT lower(hex(prev_hash)) || ' ' || quote(curr_hash) || ' ' || hex(payload) \
                 || ' ' || total_bytes FROM blocks ORDER BY id",
            );
            assert_eq!(blocks[0], format!("{} X'{}' AA 1", "0".repeat(64), B.to_uppercase()));
            assert_eq!(blocks[1], format!("{B} {} BB 2", kept[0]), "{odd}");
            let indexes = column(
                &conn,
                "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'journal' \
                 ORDER BY name",
            );
            assert_eq!(indexes.len(), 2, "{indexes:?}");
            assert!(indexes[0].ends_with("WHERE kind IN ('repo.gc', 'key.register', 'key.revoke')"));
            assert!(indexes[1].ends_with("ON journal(subject, seq) WHERE kind <> 'pad.append'"));
            let old = column(&conn, "SELECT name FROM sqlite_master WHERE name LIKE '%_13'");
            assert!(old.is_empty(), "{old:?}");
        }
    }

    /// A copy that differs from its original fails the migration before anything is dropped.
    #[test]
    fn a_copy_that_differs_is_refused() {
        for (change, needle) in [
            ("UPDATE journal_13 SET hash = zeroblob(32) WHERE seq = 1", "journal entry 1"),
            ("UPDATE journal_13 SET kind = 'x' WHERE seq = 2", "journal entry 2"),
            ("DELETE FROM journal_13 WHERE seq = 2", "copied 1 of the 2 rows of `journal`"),
            ("UPDATE blocks_13 SET payload = X'cc' WHERE seq = 1", "block 1 of pad p"),
            ("UPDATE blocks_13 SET prev_hash = 'x' WHERE seq = 0", "block 0 of pad p"),
        ] {
            let conn = v12(&format!("'{A}'"));
            conn.execute_batch(include_str!("migrations/0013_binary_hashes.sql")).unwrap();
            conn.execute_batch(change).unwrap();
            let e = super::move_to_binary_hashes(&conn).unwrap_err().to_string();
            assert!(e.contains(needle) && e.contains("nothing was changed"), "{change}: {e}");
            let tables = column(&conn, "SELECT name FROM sqlite_master WHERE name LIKE '%_13'");
            assert_eq!(tables, ["journal_13", "blocks_13"], "{change}");
        }
    }
}
