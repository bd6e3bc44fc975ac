//! [`JournalStore`] on SQLite: the journal, its Merkle hashes and signed checkpoints.

use rusqlite::params;
use rusqlite::types::ValueRef;

use super::error::SqlResult as _;
use super::merkle;
use super::rows::{checkpoint_row, fill_journal_row, journal_head_row, journal_row, signer_row};
use super::tx::SqliteTx;
use crate::domain::digest::Digest;
use crate::domain::event::kind;
use crate::store::sql::{sql_i64, CHECKPOINT_COLS, JOURNAL_COLS, SIGNER_COLS};
use crate::store::{
    CheckpointRow, Counts, Flow, JournalHead, JournalQuery, JournalRow, JournalStore, Result,
    SignerRow, StoreError,
};

impl JournalStore for SqliteTx<'_> {
    fn journal_head(&self) -> Result<Option<JournalHead>> {
        // The last entry is the head (schema 10; see `drop_head_row`).
        self.one("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1", [], journal_head_row)
    }

    fn journal(&self, q: &JournalQuery) -> Result<Vec<JournalRow>> {
        // A prefix is compared exactly: LIKE would ignore case and treat `_` as a wildcard.
        let (kind_exact, kind_prefix) = match &q.kind {
            Some(k) if k.ends_with('.') => (None, Some(k.clone())),
            Some(k) => (Some(k.clone()), None),
            None => (None, None),
        };
        self.all(
            &query_sql(q),
            params![
                kind_exact,
                kind_prefix,
                q.subject,
                q.actor,
                q.scope,
                q.after.map(sql_i64),
                q.before.map(sql_i64),
                sql_i64(q.limit),
                q.since,
                q.until
            ],
            journal_row,
        )
    }

    fn for_each_journal(&self, f: &mut dyn FnMut(JournalRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {JOURNAL_COLS} FROM journal ORDER BY seq");
        self.stream(&sql, &[], journal_row, f)
    }

    fn for_each_journal_with_tree(
        &self,
        f: &mut dyn FnMut(&JournalRow, &[u8]) -> Flow,
    ) -> Result<bool> {
        let sql = format!("SELECT {JOURNAL_COLS}, merkle FROM journal ORDER BY seq");
        // One row, filled again for each entry: its text and bytes keep their buffers.
        let mut entry = JournalRow::default();
        self.for_each_row(&sql, [], &mut |row| {
            fill_journal_row(row, &mut entry)?;
            let hashes = match row.get_ref(9)? {
                ValueRef::Null => &[][..],
                ValueRef::Blob(b) => b,
                other => {
                    return Err(rusqlite::Error::InvalidColumnType(
                        9,
                        "merkle".into(),
                        other.data_type(),
                    ))
                }
            };
            Ok(f(&entry, hashes))
        })?;
        Ok(true)
    }

    fn counts(&self) -> Result<Counts> {
        let count = |table: &str| -> Result<u64> {
            // MAX(rowid) is O(1) and close enough for a progress bar.
            let n: Option<i64> = self
                .tx
                .query_row(&format!("SELECT MAX(rowid) FROM {table}"), [], |r| r.get(0))
                .db()?;
            Ok(n.and_then(|n| u64::try_from(n).ok()).unwrap_or(0))
        };
        Ok(Counts { journal: count("journal")?, pads: count("pads")?, blocks: self.block_count()? })
    }

    fn insert_journal(&mut self, j: &JournalRow) -> Result<()> {
        self.put_journal(j, None)
    }

    fn append_journal(&mut self, j: &JournalRow, start: u64, hashes: &[Digest]) -> Result<()> {
        match merkle::whole_leaf(j.seq, start, hashes) {
            // The usual append: the entry and its leaf's hashes in one row.
            Some(blob) => self.put_journal(j, Some(blob)),
            None => {
                self.put_journal(j, None)?;
                self.insert_merkle_hashes(start, hashes)
            }
        }
    }

    fn merkle_count(&self) -> Result<u64> {
        merkle::count(&self.tx)
    }

    fn merkle_hash(&self, idx: u64) -> Result<Option<Digest>> {
        merkle::hash(&self.tx, idx)
    }

    fn merkle_hashes(&self, idx: &[u64]) -> Result<Vec<Option<Digest>>> {
        merkle::hashes(&self.tx, idx)
    }

    fn for_each_merkle_hash(&self, f: &mut dyn FnMut(u64, Digest) -> Flow) -> Result<()> {
        merkle::for_each(&self.tx, f)
    }

    fn insert_merkle_hashes(&mut self, start: u64, hashes: &[Digest]) -> Result<()> {
        self.check_writable()?;
        merkle::insert(&self.tx, start, hashes)
    }

    fn latest_checkpoint(&self) -> Result<Option<CheckpointRow>> {
        let sql = format!("SELECT {CHECKPOINT_COLS} FROM checkpoints ORDER BY size DESC LIMIT 1");
        self.one(&sql, [], checkpoint_row)
    }

    fn checkpoint_at(&self, size: u64) -> Result<Option<CheckpointRow>> {
        let sql = format!("SELECT {CHECKPOINT_COLS} FROM checkpoints WHERE size = ?1");
        self.one(&sql, [sql_i64(size)], checkpoint_row)
    }

    fn for_each_checkpoint(&self, f: &mut dyn FnMut(CheckpointRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {CHECKPOINT_COLS} FROM checkpoints ORDER BY size");
        self.stream(&sql, &[], checkpoint_row, f)
    }

    fn insert_checkpoint(&mut self, c: &CheckpointRow) -> Result<()> {
        let sql = format!("INSERT INTO checkpoints ({CHECKPOINT_COLS}) VALUES (?1, ?2, ?3, ?4)");
        self.exec(&sql, params![sql_i64(c.size), c.root.to_hex(), c.note, c.signed_at])?;
        Ok(())
    }

    fn log_signer(&self) -> Result<Option<SignerRow>> {
        let sql = format!("SELECT {SIGNER_COLS} FROM log_signer WHERE id = 1");
        self.one(&sql, [], signer_row)
    }

    fn set_log_signer(&mut self, s: &SignerRow) -> Result<()> {
        let sql = format!(
            "INSERT INTO log_signer (id, {SIGNER_COLS}) VALUES (1, ?1, ?2, ?3, ?4) \
             ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, fence = excluded.fence, \
             expires_at = excluded.expires_at, vkey = excluded.vkey"
        );
        self.exec(&sql, params![s.holder, sql_i64(s.fence), s.expires_at, s.vkey])?;
        Ok(())
    }

    fn set_checkpoint_note(&mut self, size: u64, note: &str) -> Result<()> {
        self.exec(
            "UPDATE checkpoints SET note = ?2 WHERE size = ?1",
            params![sql_i64(size), note],
        )?;
        Ok(())
    }
}

/// The kinds schema 11's `journal_rare_kinds` index holds, and its condition, word for word:
/// SQLite uses a partial index only for a query that states its condition.
const RARE_KINDS: [&str; 3] = [kind::REPO_GC, kind::KEY_REGISTER, kind::KEY_REVOKE];
const RARE_KINDS_SQL: &str = "kind IN ('repo.gc', 'key.register', 'key.revoke')";

/// The journal's one query: each filter of [`JournalQuery`] a parameter, NULL when unset. A
/// filter in the form `?N IS NULL OR column = ?N` is checked row by row as SQLite walks the
/// journal, so the ones an index or the rowid can answer are worded otherwise: the `seq`
/// bounds as a range (`seq > COALESCE(?6, -1)`: a page after the last one, or `log --follow`'s
/// poll, starts where it left off instead of walking from the first entry), and a subject
/// plainly, with the subject index's own condition (schema 11) when no `pad.append` entry can
/// be in the answer, so that SQLite answers from that index; and a rare kind (`RARE_KINDS`)
/// plainly, with its index's condition.
fn query_sql(q: &JournalQuery) -> String {
    let order = if q.ascending { "ASC" } else { "DESC" };
    let subject = if q.subject.is_some() { "subject = ?3" } else { "?3 IS NULL" };
    let appends = if q.excludes_appends() { " AND kind <> 'pad.append'" } else { "" };
    let kind = match q.kind.as_deref() {
        Some(k) if RARE_KINDS.contains(&k) => format!("kind = ?1 AND {RARE_KINDS_SQL}"),
        _ => "(?1 IS NULL OR kind = ?1)".to_owned(),
    };
    format!(
        "SELECT {JOURNAL_COLS} FROM journal WHERE {subject}{appends} AND {kind} \
         AND (?2 IS NULL OR substr(kind, 1, length(?2)) = ?2) \
         AND (?4 IS NULL OR actor = ?4) AND (?5 IS NULL OR scope = ?5) \
         AND seq > COALESCE(?6, -1) AND seq < COALESCE(?7, 9223372036854775807) \
         AND (?9 IS NULL OR time >= ?9) AND (?10 IS NULL OR time < ?10) \
         ORDER BY seq {order} LIMIT ?8"
    )
}

impl SqliteTx<'_> {
    /// Appends a journal row, with its leaf's Merkle hashes when given (the head is the last
    /// row).
    fn put_journal(&mut self, j: &JournalRow, merkle: Option<Vec<u8>>) -> Result<()> {
        let sql = format!(
            "INSERT INTO journal ({JOURNAL_COLS}, merkle) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
        );
        self.exec(
            &sql,
            params![
                sql_i64(j.seq),
                &j.prev_hash.0[..],
                &j.hash.0[..],
                j.entry,
                j.time,
                j.kind,
                j.actor,
                j.scope,
                j.subject,
                merkle
            ],
        )?;
        Ok(())
    }
}

/// Migration 10's step for the head: the `journal_head` row, a second page written by every
/// append, goes; the last entry is the head. A row that disagrees with the journal's end (a
/// repository damaged before the upgrade) stops the migration, so the evidence stays for the
/// `locker verify` of the version that made it.
pub(super) fn drop_head_row(conn: &rusqlite::Connection) -> Result<()> {
    use rusqlite::OptionalExtension as _;
    let row = |sql: &str| -> Result<Option<(i64, String)>> {
        conn.query_row(sql, [], |r| Ok((r.get(0)?, r.get(1)?))).optional().db()
    };
    let head = row("SELECT seq, hash FROM journal_head WHERE id = 1")?;
    let last = row("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1")?;
    if head != last {
        let name = |e: &Option<(i64, String)>| {
            e.as_ref().map_or_else(|| "no entry".to_owned(), |(s, h)| format!("entry {s} ({h})"))
        };
        return Err(StoreError::Corrupt(format!(
            "the journal head row names {}, but the journal ends at {}: the repository was \
             damaged before this upgrade, and nothing was changed; check it with `locker \
             verify` of the locker version that made it, or restore a backup",
            name(&head),
            name(&last)
        )));
    }
    conn.execute_batch("DROP TABLE journal_head").db()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::query_sql;
    use crate::domain::digest::Digest;
    use crate::store::sqlite::{create, schema};
    use crate::store::{JournalQuery, JournalRow, Store as _};

    fn query(subject: &str, kind: Option<&str>, skip_appends: bool) -> JournalQuery {
        JournalQuery {
            subject: Some(subject.to_owned()),
            kind: kind.map(str::to_owned),
            skip_appends,
            limit: 1000,
            ..JournalQuery::default()
        }
    }

    /// How SQLite answers `q` (EXPLAIN QUERY PLAN's details, joined).
    fn plan(conn: &Connection, q: &JournalQuery) -> String {
        let sql = format!("EXPLAIN QUERY PLAN {}", query_sql(q));
        let mut stmt = conn.prepare(&sql).unwrap();
        let (after, before) = (q.after.map(|n| n.to_string()), q.before.map(|n| n.to_string()));
        let args: [Option<&str>; 10] = [
            None,
            None,
            q.subject.as_deref(),
            None,
            None,
            after.as_deref(),
            before.as_deref(),
            Some("1000"),
            None,
            None,
        ];
        let rows = stmt.query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(3));
        rows.unwrap().map(Result::unwrap).collect::<Vec<_>>().join("; ")
    }

    const BY_INDEX: &str =
        "SEARCH journal USING INDEX journal_subject (subject=? AND seq>? AND seq<?)";
    const BY_SEQ: &str = "SEARCH journal USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)";

    /// Schema 11: the subject index holds every entry but `pad.append` ones, and a query that
    /// can have no `pad.append` entry in its answer is answered from it; one that can walks
    /// the journal (as every query by subject did before: the index was never used), and
    /// every walk starts and stops at the `seq` bounds rather than at the journal's ends.
    #[test]
    fn journal_queries_use_an_index_or_walk_only_the_seq_range() {
        let conn = Connection::open_in_memory().unwrap();
        crate::store::sqlite::conn::plan_once(&conn).unwrap();
        schema::create_at(&conn, 11).unwrap();
        let scan = BY_SEQ;
        assert_eq!(plan(&conn, &JournalQuery { limit: 10, ..JournalQuery::default() }), scan);
        let page = JournalQuery { after: Some(5), before: Some(9), ..JournalQuery::default() };
        assert_eq!(plan(&conn, &page), BY_SEQ);
        assert_eq!(plan(&conn, &query("work:job", None, false)), BY_INDEX);
        assert_eq!(plan(&conn, &query("artifact:a", None, false)), BY_INDEX);
        assert_eq!(plan(&conn, &query("pad:p", None, true)), BY_INDEX);
        assert_eq!(plan(&conn, &query("pad:p", Some("pad.ticket"), false)), BY_INDEX);
        assert_eq!(plan(&conn, &query("pad:p", Some("work."), false)), BY_INDEX);
        assert_eq!(plan(&conn, &query("pad:p", None, false)), scan);
        assert_eq!(plan(&conn, &query("pad:p", Some("pad.append"), false)), scan);
        assert_eq!(plan(&conn, &query("pad:p", Some("pad."), false)), scan);
        for k in super::RARE_KINDS {
            let q = JournalQuery { kind: Some(k.to_owned()), ..JournalQuery::default() };
            assert_eq!(
                plan(&conn, &q),
                "SEARCH journal USING INDEX journal_rare_kinds (kind=? AND seq>? AND seq<?)"
            );
            assert!(super::RARE_KINDS_SQL.contains(&format!("'{k}'")));
        }
        let rare: String = conn
            .query_row("SELECT sql FROM sqlite_master WHERE name = 'journal_rare_kinds'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert!(rare.ends_with(&format!("WHERE {}", super::RARE_KINDS_SQL)), "{rare}");
        let other = JournalQuery { kind: Some("lease.acquire".into()), ..JournalQuery::default() };
        assert_eq!(plan(&conn, &other), scan);
        let index: String = conn
            .query_row("SELECT sql FROM sqlite_master WHERE name = 'journal_subject'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert!(index.ends_with("WHERE kind <> 'pad.append'"), "{index}");
    }

    /// Migration 11 takes a journal whose subject index is gone (dropped by hand) and makes
    /// both of its indexes.
    #[test]
    fn migration_11_takes_a_journal_without_its_subject_index() {
        let conn = Connection::open_in_memory().unwrap();
        schema::create_at(&conn, 10).unwrap();
        conn.execute_batch("DROP INDEX journal_subject").unwrap();
        schema::run_one(&conn, 11).unwrap();
        let n: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master \
                 WHERE name IN ('journal_subject', 'journal_rare_kinds')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 2);
    }

    /// The answers are the same whichever way SQLite finds them: every entry the filters
    /// match, `pad.append` ones included unless left out, newest first or oldest first.
    #[test]
    fn journal_queries_answer_every_matching_entry() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = create(&dir.path().join("locker.db")).unwrap();
        let entries = [
            ("pad.create", "pad:p"),
            ("pad.append", "pad:p"),
            ("work.claim", "work:job"),
            ("pad.ticket", "pad:p"),
            ("pad.append", "pad:p"),
            ("pad.append", "pad:q"),
            ("pad.seal", "pad:p"),
            ("work.release", "work:job"),
            ("repo.gc", "repo"),
            ("key.register", "agent:a"),
        ];
        let mut tx = store.write().unwrap();
        for (i, (kind, subject)) in entries.iter().enumerate() {
            let seq = i as u64 + 1;
            let row = JournalRow {
                seq,
                prev_hash: Digest::ZERO,
                hash: Digest::of(&seq.to_be_bytes()),
                entry: Vec::new(),
                time: 0,
                kind: (*kind).to_owned(),
                actor: "operator".to_owned(),
                scope: "default".to_owned(),
                subject: (*subject).to_owned(),
            };
            tx.insert_journal(&row).unwrap();
        }
        tx.commit().unwrap();
        let tx = store.read().unwrap();
        let seqs = |q: &JournalQuery| -> Vec<u64> {
            tx.journal(q).unwrap().iter().map(|r| r.seq).collect()
        };
        assert_eq!(seqs(&query("pad:p", None, false)), [7, 5, 4, 2, 1]);
        assert_eq!(seqs(&query("pad:p", None, true)), [7, 4, 1]);
        assert_eq!(seqs(&query("pad:p", Some("pad.append"), false)), [5, 2]);
        assert_eq!(seqs(&query("pad:p", Some("pad.append"), true)), Vec::<u64>::new());
        assert_eq!(seqs(&query("pad:p", Some("pad."), false)), [7, 5, 4, 2, 1]);
        assert_eq!(seqs(&query("work:job", None, false)), [8, 3]);
        assert_eq!(seqs(&query("pad:q", None, false)), [6]);
        let mut q = query("pad:p", None, true);
        q.ascending = true;
        q.after = Some(1);
        assert_eq!(seqs(&q), [4, 7]);
        q.before = Some(7);
        assert_eq!(seqs(&q), [4]);
        let mut q = query("pad:p", None, false);
        q.after = Some(1);
        q.before = Some(7);
        assert_eq!(seqs(&q), [5, 4, 2]);
        let page =
            JournalQuery { after: Some(2), before: Some(6), limit: 2, ..JournalQuery::default() };
        assert_eq!(seqs(&page), [5, 4]);
        let all = JournalQuery { skip_appends: true, limit: 100, ..JournalQuery::default() };
        assert_eq!(seqs(&all), [10, 9, 8, 7, 4, 3, 1]);
        let kind =
            |k: &str| JournalQuery { kind: Some(k.into()), limit: 9, ..JournalQuery::default() };
        assert_eq!(seqs(&kind("repo.gc")), [9]);
        assert_eq!(seqs(&kind("key.register")), [10]);
        assert_eq!(seqs(&kind("key.revoke")), Vec::<u64>::new());
        assert_eq!(seqs(&kind("work.claim")), [3]);
        let mut gc = kind("repo.gc");
        gc.before = Some(9);
        assert_eq!(seqs(&gc), Vec::<u64>::new());
    }
}
