//! The journal's Merkle hashes on SQLite (schema 10): the hashes that leaf `n`'s append stores,
//! positions `stored_count(n)..stored_count(n + 1)` of Go tlog's stored-hash order, sit in
//! journal entry `n + 1`'s `merkle` column as 32-byte digests, in that order. An append writes
//! one row instead of a journal row and a Merkle row (a page fewer per commit), and the tree's
//! size is found without a `MAX()` over a table of its own.
//!
//! The entries holding hashes are a prefix of the journal: the tree only grows by appends, and a
//! journal that predates it is hashed in from its start ([`crate::ops::log::merkle`]).

use rusqlite::{params, Connection, OptionalExtension as _};

use super::error::SqlResult as _;
use crate::domain::digest::Digest;
use crate::domain::merkle::{held_by_entry, leaf_for_position, stored_count};
use crate::store::sql::sql_i64;
use crate::store::{Flow, Result, StoreError};

/// The number of hashes stored: those of every entry up to the last one holding any.
pub(super) fn count(conn: &Connection) -> Result<u64> {
    let last: Option<i64> = conn
        .prepare_cached(
            "SELECT seq FROM journal WHERE merkle IS NOT NULL ORDER BY seq DESC LIMIT 1",
        )
        .db()?
        .query_row([], |r| r.get(0))
        .optional()
        .db()?;
    Ok(last.and_then(|s| u64::try_from(s).ok()).map_or(0, stored_count))
}

/// The hashes entry `seq` holds (empty when it holds none, or there is no such entry).
fn of_entry(conn: &Connection, seq: u64) -> Result<Vec<u8>> {
    let blob: Option<Option<Vec<u8>>> = conn
        .prepare_cached("SELECT merkle FROM journal WHERE seq = ?1")
        .db()?
        .query_row([sql_i64(seq)], |r| r.get(0))
        .optional()
        .db()?;
    Ok(blob.flatten().unwrap_or_default())
}

/// The `i`-th digest of a `merkle` column, if it has one.
fn nth(blob: &[u8], i: u64) -> Option<Digest> {
    let at = usize::try_from(i).ok()?.checked_mul(32)?;
    let bytes = blob.get(at..at.checked_add(32)?)?;
    Some(Digest(bytes.try_into().ok()?))
}

/// The hash stored at position `idx`.
pub(super) fn hash(conn: &Connection, idx: u64) -> Result<Option<Digest>> {
    Ok(hashes(conn, &[idx])?.pop().flatten())
}

/// The hashes stored at positions `idx`, reading each entry once for a run of positions in it.
pub(super) fn hashes(conn: &Connection, idx: &[u64]) -> Result<Vec<Option<Digest>>> {
    let mut out = Vec::with_capacity(idx.len());
    let mut held: Option<(u64, Vec<u8>)> = None;
    for &i in idx {
        let (leaf, offset) = leaf_for_position(i);
        if held.as_ref().map(|(l, _)| *l) != Some(leaf) {
            held = Some((leaf, of_entry(conn, leaf + 1)?));
        }
        out.push(held.as_ref().and_then(|(_, blob)| nth(blob, offset)));
    }
    Ok(out)
}

/// Every stored hash with its position, entry by entry. An entry whose column is torn (not a
/// whole number of digests) gives the digests it has; the next entry's still start at their
/// own positions, so a reader comparing positions sees the gap.
pub(super) fn for_each(conn: &Connection, f: &mut dyn FnMut(u64, Digest) -> Flow) -> Result<()> {
    let mut stmt = conn
        .prepare_cached("SELECT seq, merkle FROM journal WHERE merkle IS NOT NULL ORDER BY seq")
        .db()?;
    let mut rows = stmt.query([]).db()?;
    while let Some(row) = rows.next().db()? {
        let seq: i64 = row.get(0).db()?;
        let blob = row.get_ref(1).db()?.as_blob().map_err(|_| {
            StoreError::Unreadable(format!("journal entry {seq}'s Merkle hashes are not a blob"))
        })?;
        let seq = u64::try_from(seq).map_err(|_| {
            StoreError::Corrupt(format!("journal entry {seq} has a negative number"))
        })?;
        for (i, d) in held_by_entry(seq, blob) {
            if f(i, d).is_break() {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// The `merkle` column that entry `seq` (leaf `seq - 1`) holds when `hashes` are all its leaf
/// adds and start at its first position, if they are.
pub(super) fn whole_leaf(seq: u64, start: u64, hashes: &[Digest]) -> Option<Vec<u8>> {
    let leaf = seq.checked_sub(1)?;
    let width = stored_count(leaf + 1) - stored_count(leaf);
    (start == stored_count(leaf) && hashes.len() as u64 == width).then(|| encode(hashes))
}

fn encode(hashes: &[Digest]) -> Vec<u8> {
    hashes.iter().flat_map(|h| h.0).collect()
}

/// Stores `hashes` at positions `start..`, each after the hashes its entry already holds; the
/// entries must exist and the positions continue what is stored.
pub(super) fn insert(conn: &Connection, start: u64, hashes: &[Digest]) -> Result<()> {
    let mut pos = start;
    let mut rest = hashes;
    while !rest.is_empty() {
        let (leaf, offset) = leaf_for_position(pos);
        let width = stored_count(leaf + 1) - stored_count(leaf);
        let take = usize::try_from(width - offset).unwrap_or(usize::MAX).min(rest.len());
        let mut blob = of_entry(conn, leaf + 1)?;
        if blob.len() as u64 != offset * 32 {
            return Err(StoreError::Corrupt(format!(
                "Merkle hash position {pos} does not follow the {} hashes journal entry {} holds",
                blob.len() / 32,
                leaf + 1
            )));
        }
        blob.extend(encode(&rest[..take]));
        let n = conn
            .prepare_cached("UPDATE journal SET merkle = ?2 WHERE seq = ?1")
            .db()?
            .execute(params![sql_i64(leaf + 1), blob])
            .db()?;
        if n == 0 {
            return Err(StoreError::Corrupt(format!(
                "Merkle hash position {pos} belongs to journal entry {}, which does not exist",
                leaf + 1
            )));
        }
        pos += take as u64;
        rest = &rest[take..];
    }
    Ok(())
}

/// Migration 10's data step: moves the `merkle_hashes` table's hashes into the journal rows,
/// reads every moved hash back against the table, and drops the table. The hashes of whole
/// leaves from the start move; the tree ends at the first leaf whose hashes are not all there
/// (a torn tail, or hashes past the journal's end), and the rest is hashed in again from the
/// journal on the next write. Runs inside the migration's transaction: if the read-back differs,
/// the migration fails and nothing changes.
pub(super) fn move_into_journal(conn: &Connection) -> Result<()> {
    let leaves = {
        let mut read = conn.prepare("SELECT idx, hash FROM merkle_hashes ORDER BY idx").db()?;
        let mut rows = read.query([]).db()?;
        let mut write = conn.prepare("UPDATE journal SET merkle = ?2 WHERE seq = ?1").db()?;
        let (mut leaf, mut pos, mut held) = (0u64, 0u64, Vec::new());
        while let Some(row) = rows.next().db()? {
            let idx: i64 = row.get(0).db()?;
            let parsed = match row.get_ref(1).db()? {
                rusqlite::types::ValueRef::Text(hex) => Digest::parse_bytes(hex).ok(),
                _ => None,
            };
            let Some(h) = parsed.filter(|_| u64::try_from(idx).ok() == Some(pos)) else { break };
            held.extend(h.0);
            pos += 1;
            if pos == stored_count(leaf + 1) {
                if write.execute(params![sql_i64(leaf + 1), held]).db()? == 0 {
                    break;
                }
                held.clear();
                leaf += 1;
            }
        }
        leaf
    };
    // Read back: the entries holding hashes are exactly 1..=leaves, and each hash is the
    // table's at its position.
    let mut table = conn.prepare("SELECT hash FROM merkle_hashes WHERE idx = ?1").db()?;
    let (mut moved, mut differs, mut failed) = (0u64, None, None);
    for_each(conn, &mut |i, h| match table
        .query_row([sql_i64(i)], |r| r.get::<_, String>(0))
        .optional()
    {
        Ok(was) if was.as_deref().and_then(|s| Digest::parse(s).ok()) == Some(h) => {
            moved += 1;
            Flow::Continue(())
        }
        Ok(_) => {
            differs = Some(i);
            Flow::Break(())
        }
        Err(e) => {
            failed = Some(e);
            Flow::Break(())
        }
    })?;
    if let Some(e) = failed {
        return Err(e).db();
    }
    let entries: i64 = conn
        .query_row("SELECT COUNT(*) FROM journal WHERE merkle IS NOT NULL", [], |r| r.get(0))
        .db()?;
    let entries = u64::try_from(entries).unwrap_or(u64::MAX);
    if differs.is_some()
        || entries != leaves
        || moved != stored_count(leaves)
        || count(conn)? != moved
    {
        return Err(StoreError::Corrupt(format!(
            "moving the Merkle hashes into the journal did not read back the same \
             ({moved} of {} hashes, {entries} of {leaves} entries{}); nothing was changed",
            stored_count(leaves),
            differs.map_or_else(String::new, |i| format!(", position {i} differs"))
        )));
    }
    drop(table);
    conn.execute_batch("DROP TABLE merkle_hashes").db()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use rusqlite::{params, Connection};

    use super::*;
    use crate::domain::merkle::{self, leaf_hash, Frontier, Hashes, MemTree};
    use crate::store::sqlite::schema;

    /// A database at schema 9 with `entries` journal rows and the stored tree of `leaves` of
    /// them in the `merkle_hashes` table; returns the tree.
    fn v9(entries: u64, leaves: u64) -> (Connection, MemTree) {
        let conn = Connection::open_in_memory().unwrap();
        schema::create_at(&conn, 9).unwrap();
        let mut tree = MemTree::default();
        for seq in 1..=entries.max(leaves) {
            let entry = format!("entry {seq}").into_bytes();
            if seq <= entries {
                conn.execute(
                    "INSERT INTO journal (seq, prev_hash, hash, entry, time, kind, actor, scope, \
                     subject) VALUES (?1, '', '', ?2, 0, 'k', 'a', 's', 'x')",
                    params![sql_i64(seq), entry],
                )
                .unwrap();
            }
            if seq <= leaves {
                tree.push(leaf_hash(&entry));
            }
        }
        conn.execute_batch(
            "INSERT INTO journal_head (id, seq, hash) \
             SELECT 1, seq, hash FROM journal ORDER BY seq DESC LIMIT 1",
        )
        .unwrap();
        for (i, h) in tree.stored.iter().enumerate() {
            conn.execute(
                "INSERT INTO merkle_hashes (idx, hash) VALUES (?1, ?2)",
                params![i as i64, h.to_hex()],
            )
            .unwrap();
        }
        (conn, tree)
    }

    struct Stored<'a>(&'a Connection);

    impl Hashes for Stored<'_> {
        type Error = StoreError;
        fn hash(&mut self, level: u32, n: u64) -> Result<Digest> {
            Ok(hash(self.0, merkle::stored_index(level, n))?.expect("stored"))
        }
    }

    fn all(conn: &Connection) -> Vec<(u64, Digest)> {
        let mut out = Vec::new();
        for_each(conn, &mut |i, h| {
            out.push((i, h));
            Flow::Continue(())
        })
        .unwrap();
        out
    }

    fn has_table(conn: &Connection, name: &str) -> bool {
        conn.query_row("SELECT COUNT(*) FROM sqlite_master WHERE name = ?1", [name], |r| {
            r.get::<_, i64>(0)
        })
        .unwrap()
            == 1
    }

    #[test]
    fn the_migration_moves_every_hash_into_its_entry() {
        for n in [0, 1, 2, 3, 8, 37, 64, 200] {
            let (conn, tree) = v9(n, n);
            schema::run_one(&conn, 10).unwrap();
            assert!(!has_table(&conn, "merkle_hashes"));
            assert_eq!(count(&conn).unwrap(), tree.stored.len() as u64, "{n} leaves");
            let want: Vec<(u64, Digest)> = (0..).zip(tree.stored.iter().copied()).collect();
            assert_eq!(all(&conn), want);
            for (i, h) in &want {
                assert_eq!(hash(&conn, *i).unwrap(), Some(*h), "position {i}");
            }
            let idx: Vec<u64> = want.iter().map(|(i, _)| *i).rev().collect();
            let got = hashes(&conn, &idx).unwrap();
            assert!(got.iter().zip(want.iter().rev()).all(|(g, (_, h))| *g == Some(*h)));
            let mut fr = Frontier::default();
            for seq in 1..=n {
                fr.push(leaf_hash(format!("entry {seq}").as_bytes()));
            }
            assert_eq!(merkle::root(&mut Stored(&conn), n).unwrap(), fr.root());
            assert_eq!(hash(&conn, tree.stored.len() as u64).unwrap(), None);
        }
    }

    #[test]
    fn the_migration_keeps_the_whole_leaves_before_a_torn_or_missing_hash() {
        // The last hash lost (a torn leaf 36): 36 leaves stay.
        let (conn, tree) = v9(37, 37);
        let last = tree.stored.len() as i64 - 1;
        conn.execute("DELETE FROM merkle_hashes WHERE idx = ?1", [last]).unwrap();
        schema::run_one(&conn, 10).unwrap();
        assert_eq!(count(&conn).unwrap(), stored_count(36));
        // Hashes past the journal's end: only the leaves with an entry move.
        let (conn, _) = v9(30, 37);
        schema::run_one(&conn, 10).unwrap();
        assert_eq!(count(&conn).unwrap(), stored_count(30));
        // A gap (position 20, in leaf 11) or a hash that is not hex ends the tree at that leaf.
        let (conn, _) = v9(37, 37);
        conn.execute("DELETE FROM merkle_hashes WHERE idx = 20", []).unwrap();
        schema::run_one(&conn, 10).unwrap();
        assert_eq!(leaf_for_position(20).0, 11);
        assert_eq!(count(&conn).unwrap(), stored_count(11));
        assert_eq!(all(&conn).len() as u64, stored_count(11));
        let (conn, _) = v9(37, 37);
        conn.execute("UPDATE merkle_hashes SET hash = 'zz' WHERE idx = 20", []).unwrap();
        schema::run_one(&conn, 10).unwrap();
        assert_eq!(count(&conn).unwrap(), stored_count(11));
    }

    #[test]
    fn the_migration_drops_an_agreeing_head_row_and_stops_at_one_that_disagrees() {
        let (conn, _) = v9(5, 5);
        schema::run_one(&conn, 10).unwrap();
        assert!(!has_table(&conn, "journal_head"));
        // Damaged before the upgrade: a head row ahead of the journal, or none for a journal
        // that has entries. The migration fails; its transaction (here: the caller's) keeps
        // everything as it was.
        for damage in ["DELETE FROM journal WHERE seq = 5", "DELETE FROM journal_head"] {
            let (mut conn, _) = v9(5, 5);
            conn.execute_batch(damage).unwrap();
            let tx = conn.transaction().unwrap();
            let e = schema::run_one(&tx, 10).unwrap_err().to_string();
            assert!(e.contains("damaged before this upgrade"), "{e}");
            drop(tx);
            assert!(has_table(&conn, "journal_head") && has_table(&conn, "merkle_hashes"));
        }
    }

    #[test]
    fn insert_continues_entries_across_batches_and_refuses_a_gap() {
        let (conn, tree) = v9(45, 45);
        schema::run_one(&conn, 10).unwrap();
        conn.execute("UPDATE journal SET merkle = NULL", []).unwrap();
        assert_eq!(count(&conn).unwrap(), 0);
        // Batches that split entries' hashes, as a store copy's do.
        let mut start = 0;
        for batch in tree.stored.chunks(7) {
            insert(&conn, start, batch).unwrap();
            start += batch.len() as u64;
        }
        let want: Vec<(u64, Digest)> = (0..).zip(tree.stored.iter().copied()).collect();
        assert_eq!(all(&conn), want);
        // A position that does not follow what entry 46's row holds, and one past the journal.
        let before = all(&conn);
        let e = insert(&conn, start + 1, &[Digest::ZERO]).unwrap_err();
        assert!(e.to_string().contains("does not follow"), "{e}");
        let e = insert(&conn, start, &[Digest::ZERO]).unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        assert_eq!(all(&conn), before, "nothing changed");
    }

    #[test]
    fn a_torn_column_shows_as_a_gap_in_positions() {
        let (conn, tree) = v9(8, 8);
        schema::run_one(&conn, 10).unwrap();
        // Entry 4 (leaf 3) holds three hashes; keep two and a half.
        let blob = encode(&tree.stored[4..7]);
        conn.execute("UPDATE journal SET merkle = ?1 WHERE seq = 4", [&blob[..80]]).unwrap();
        let got: Vec<u64> = all(&conn).iter().map(|(i, _)| *i).collect();
        assert!(got.contains(&5) && !got.contains(&6) && got.contains(&7), "{got:?}");
        assert_eq!(hash(&conn, 6).unwrap(), None);
    }

    #[test]
    fn a_column_that_is_not_a_blob_is_refused_as_unreadable() {
        let (conn, _) = v9(4, 4);
        schema::run_one(&conn, 10).unwrap();
        conn.execute("UPDATE journal SET merkle = 'hashes' WHERE seq = 3", []).unwrap();
        let e = for_each(&conn, &mut |_, _| Flow::Continue(())).unwrap_err();
        assert!(matches!(e, StoreError::Unreadable(_)), "{e}");
        assert!(e.to_string().contains("journal entry 3's Merkle hashes are not a blob"), "{e}");
    }

    #[test]
    fn whole_leaf_is_only_the_exact_hashes_of_the_entry() {
        let h = [Digest::ZERO; 3];
        assert_eq!(whole_leaf(4, stored_count(3), &h).map(|b| b.len()), Some(96));
        assert!(whole_leaf(4, stored_count(3), &h[..2]).is_none());
        assert!(whole_leaf(4, stored_count(3) + 1, &h).is_none());
        assert!(whole_leaf(0, 0, &h).is_none());
    }
}
