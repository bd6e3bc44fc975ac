//! Schema 13's data step: the chains' hashes as their 32 bytes, rewritten in place
//! (`migrations/0013_binary_hashes.sql` says why in place), and checked.

use rusqlite::Connection;

use super::error::SqlResult as _;
use crate::domain::digest::{Digest, Hasher};
use crate::store::{Result, StoreError};

/// Whether column `$c` holds a hash as text: 64 lowercase hex characters.
macro_rules! hex_text {
    ($c:literal) => {
        concat!(
            "(typeof(",
            $c,
            ") = 'text' AND length(",
            $c,
            ") = 64 AND ",
            $c,
            " NOT GLOB '*[^0-9a-f]*')"
        )
    };
}

/// Column `$c`'s hash as its 32 bytes when it holds one as text; its value otherwise.
macro_rules! to_bytes {
    ($c:literal) => {
        concat!("CASE WHEN ", hex_text!($c), " THEN unhex(", $c, ") ELSE ", $c, " END")
    };
}

/// Column `$c` in one form whether its hash is text or bytes (`H` and the hex); any other
/// value quoted as it is.
macro_rules! canonical {
    ($c:literal) => {
        concat!(
            "CASE WHEN ",
            hex_text!($c),
            " THEN 'H' || ",
            $c,
            " WHEN typeof(",
            $c,
            ") = 'blob' AND length(",
            $c,
            ") = 32 THEN 'H' || lower(hex(",
            $c,
            ")) ELSE quote(",
            $c,
            ") END"
        )
    };
}

/// One of the two tables: its key and its two hash columns, and the SQL the step runs on it.
struct Table {
    name: &'static str,
    /// Every row's key and hashes in [`canonical!`] form, in key order.
    canonical: &'static str,
    /// Rewrites every hash held as text as its bytes.
    update: &'static str,
    /// How many hashes are still text.
    left: &'static str,
}

const JOURNAL: Table = Table {
    name: "journal",
    canonical: concat!(
        "SELECT seq, ",
        canonical!("prev_hash"),
        ", ",
        canonical!("hash"),
        " FROM journal ORDER BY seq"
    ),
    update: concat!(
        "UPDATE journal SET prev_hash = ",
        to_bytes!("prev_hash"),
        ", hash = ",
        to_bytes!("hash"),
        " WHERE ",
        hex_text!("prev_hash"),
        " OR ",
        hex_text!("hash")
    ),
    left: concat!(
        "SELECT COUNT(*) FROM journal WHERE ",
        hex_text!("prev_hash"),
        " OR ",
        hex_text!("hash")
    ),
};

const BLOCKS: Table = Table {
    name: "blocks",
    canonical: concat!(
        "SELECT id, ",
        canonical!("prev_hash"),
        ", ",
        canonical!("curr_hash"),
        " FROM blocks ORDER BY id"
    ),
    update: concat!(
        "UPDATE blocks SET prev_hash = ",
        to_bytes!("prev_hash"),
        ", curr_hash = ",
        to_bytes!("curr_hash"),
        " WHERE ",
        hex_text!("prev_hash"),
        " OR ",
        hex_text!("curr_hash")
    ),
    left: concat!(
        "SELECT COUNT(*) FROM blocks WHERE ",
        hex_text!("prev_hash"),
        " OR ",
        hex_text!("curr_hash")
    ),
};

/// A digest of every row's key and hashes in one form whether text or bytes, and the count.
fn fingerprint(conn: &Connection, t: &Table) -> Result<(Digest, u64)> {
    let mut h = Hasher::default();
    let mut rows = 0u64;
    let mut stmt = conn.prepare(t.canonical).db()?;
    let mut it = stmt.query([]).db()?;
    while let Some(r) = it.next().db()? {
        let key: i64 = r.get(0).db()?;
        h.update(&key.to_be_bytes());
        for i in 1..3 {
            let v: String = r.get(i).db()?;
            h.update(&(v.len() as u64).to_be_bytes());
            h.update(v.as_bytes());
        }
        rows += 1;
    }
    Ok((h.finish(), rows))
}

/// Rewrites every hash of the journal and the blocks held as 64 hex characters as its 32
/// bytes, in place; then checks that each table holds the same rows with the same hashes
/// and none as text. Runs inside the migration's transaction: a difference fails it, and
/// nothing changes.
pub(super) fn store_hashes_as_bytes(conn: &Connection) -> Result<()> {
    for t in [JOURNAL, BLOCKS] {
        let before = fingerprint(conn, &t)?;
        conn.execute(t.update, []).db()?;
        let after = fingerprint(conn, &t)?;
        let left: i64 = conn.query_row(t.left, [], |r| r.get(0)).db()?;
        if before != after || left != 0 {
            return Err(StoreError::Corrupt(format!(
                "storing the hashes of `{}` as bytes did not keep them ({} rows before, {} \
                 after, {left} still text); nothing was changed",
                t.name, before.1, after.1
            )));
        }
    }
    Ok(())
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
    /// that is not such hex, uppercase hex, a blob of another length, a number) is kept as it
    /// was, for `locker verify` to report; the rest of every row is unchanged.
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
            // A pad's other hash is not a chain's: it stays text.
            assert_eq!(column(&conn, "SELECT write_key_hash FROM pads"), [B]);
        }
    }

    /// A rewrite that changed a hash, or left one as text, fails the migration.
    #[test]
    fn a_rewrite_that_does_not_keep_the_hashes_is_refused() {
        for (trigger, needle) in [
            (
                "CREATE TRIGGER t AFTER UPDATE ON blocks WHEN NEW.seq = 1 \
                 BEGIN UPDATE blocks SET curr_hash = zeroblob(32) WHERE id = NEW.id; END",
                "`blocks`",
            ),
            (
                "CREATE TRIGGER t AFTER UPDATE ON journal WHEN NEW.seq = 1 \
                 BEGIN UPDATE journal SET hash = lower(hex(hash)) WHERE seq = 1; END",
                "1 still text",
            ),
        ] {
            let conn = v12(&format!("'{A}'"));
            conn.execute_batch(trigger).unwrap();
            let e = super::store_hashes_as_bytes(&conn).unwrap_err().to_string();
            assert!(e.contains(needle) && e.contains("nothing was changed"), "{trigger}: {e}");
        }
    }
}
