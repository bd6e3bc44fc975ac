//! [`JournalStore`] on PostgreSQL: the journal, its Merkle hashes and signed checkpoints.
use super::conn::OwnedParams;
use super::pads::{append_block_ctes, APPEND_BLOCK, APPEND_BLOCK_PARAMS};
use super::tx::PgTx;
use crate::domain::digest::Digest;
use crate::store::sql::{
    checkpoint_row, journal_head_row, journal_row, merkle_row, signer_row, sql_i64, Columns as _,
    CHECKPOINT_COLS, JOURNAL_COLS, SIGNER_COLS,
};
use crate::store::{
    CheckpointRow, Counts, Flow, JournalHead, JournalQuery, JournalRow, JournalStore, Result,
    SignerRow,
};

/// The common table expressions of a journal entry: `j` inserts the row ($1–$9 after the
/// first `offset` parameters), `h` moves the head to it, `m` inserts the Merkle hashes its leaf
/// adds (positions and hashes as two arrays, the next two parameters).
fn journal_ctes(offset: usize) -> String {
    let at = |i: usize| format!("${}", i + offset);
    let row: Vec<String> = (1..=9).map(at).collect();
    format!(
        "j AS (INSERT INTO journal ({JOURNAL_COLS}) VALUES ({}) RETURNING seq, hash), \
         h AS (INSERT INTO journal_head (id, seq, hash) SELECT 1, seq, hash FROM j \
         ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash), \
         m AS (INSERT INTO merkle_hashes (idx, hash) SELECT * FROM \
         UNNEST({}::BIGINT[], {}::TEXT[]))",
        row.join(", "),
        at(10),
        at(11)
    )
}

impl JournalStore for PgTx<'_> {
    fn journal_head(&self) -> Result<Option<JournalHead>> {
        if let Some(head) = self.conn.borrow().known.head() {
            return Ok(head);
        }
        let head =
            self.one("SELECT seq, hash FROM journal_head WHERE id = 1", &[], journal_head_row)?;
        self.conn.borrow_mut().known.set_head(head);
        Ok(head)
    }

    fn journal(&self, q: &JournalQuery) -> Result<Vec<JournalRow>> {
        let (kind_exact, kind_prefix) = match &q.kind {
            Some(k) if k.ends_with('.') => (None, Some(k.clone())),
            Some(k) => (Some(k.clone()), None),
            None => (None, None),
        };
        let order = if q.ascending { "ASC" } else { "DESC" };
        let sql = format!(
            "SELECT {JOURNAL_COLS} FROM journal WHERE ($1::TEXT IS NULL OR kind = $1) \
             AND ($2::TEXT IS NULL OR substr(kind, 1, length($2)) = $2) \
             AND ($3::TEXT IS NULL OR subject = $3) AND ($4::TEXT IS NULL OR actor = $4) \
             AND ($5::TEXT IS NULL OR scope = $5) AND seq > COALESCE($6::BIGINT, -1) \
             AND seq < COALESCE($7::BIGINT, 9223372036854775807) \
             AND ($9::BIGINT IS NULL OR time >= $9) \
             AND ($10::BIGINT IS NULL OR time < $10) AND (NOT $11 OR kind <> 'pad.append') \
             ORDER BY seq {order} LIMIT $8"
        );
        self.all(
            &sql,
            &[
                &kind_exact,
                &kind_prefix,
                &q.subject,
                &q.actor,
                &q.scope,
                &q.after.map(sql_i64),
                &q.before.map(sql_i64),
                &sql_i64(q.limit),
                &q.since,
                &q.until,
                &q.skip_appends,
            ],
            journal_row,
        )
    }

    fn for_each_journal(&self, f: &mut dyn FnMut(JournalRow) -> Flow) -> Result<()> {
        self.stream(&format!("SELECT {JOURNAL_COLS} FROM journal ORDER BY seq"), journal_row, f)
    }

    fn counts(&self) -> Result<Counts> {
        let row = self.conn.borrow_mut().query_one(
            "SELECT (SELECT COALESCE(MAX(seq), 0) FROM journal), (SELECT COUNT(*) FROM pads), \
             (SELECT COUNT(*) FROM blocks)",
            &[],
        )?;
        let n = |i| row.int(i).map(|v| u64::try_from(v).unwrap_or(0));
        Ok(Counts { journal: n(0)?, pads: n(1)?, blocks: n(2)? })
    }

    fn insert_journal(&mut self, j: &JournalRow) -> Result<()> {
        self.append_journal(j, 0, &[])
    }

    fn append_journal(&mut self, j: &JournalRow, start: u64, hashes: &[Digest]) -> Result<()> {
        // The row, the head and the leaf's hashes (none from `insert_journal`) in one
        // statement, sent with the transaction's next statement or when it (or its savepoint)
        // ends; with the append's block just before it, one statement for both. An entry that
        // exists already fails it, as `StoreError::Duplicate`, then: the journal's lock, held
        // since BEGIN, excludes every other writer, so only a damaged store can have one.
        let idx: Vec<i64> = (start..).take(hashes.len()).map(sql_i64).collect();
        let hex: Vec<String> = hashes.iter().map(Digest::to_hex).collect();
        self.check_writable()?;
        let params: OwnedParams = vec![
            Box::new(sql_i64(j.seq)),
            Box::new(j.prev_hash.to_hex()),
            Box::new(j.hash.to_hex()),
            Box::new(j.entry.clone()),
            Box::new(j.time),
            Box::new(j.kind.clone()),
            Box::new(j.actor.clone()),
            Box::new(j.scope.clone()),
            Box::new(j.subject.clone()),
            Box::new(idx),
            Box::new(hex),
        ];
        let conn = self.conn.get_mut();
        match conn.take_deferred(APPEND_BLOCK) {
            Some((mut block, refused)) => {
                let sql = format!(
                    "WITH {}, {} SELECT 1 / COUNT(*)::INT FROM b",
                    append_block_ctes(),
                    journal_ctes(APPEND_BLOCK_PARAMS)
                );
                block.extend(params);
                conn.defer(&sql, block, refused, "")?;
            }
            None => {
                let sql = format!("WITH {} SELECT COUNT(*) FROM j", journal_ctes(0));
                conn.defer(&sql, params, None, "")?;
            }
        }
        conn.known.set_head(Some(JournalHead { seq: j.seq, hash: j.hash }));
        if !hashes.is_empty() {
            conn.known.stored_merkle_hashes(start, hashes);
        }
        Ok(())
    }

    fn merkle_count(&self) -> Result<u64> {
        if let Some(n) = self.conn.borrow().known.merkle_count() {
            return Ok(n);
        }
        let mut conn = self.conn.borrow_mut();
        let row = conn.query_one("SELECT MAX(idx) FROM merkle_hashes", &[])?;
        let n = row.opt_int(0)?.and_then(|n| u64::try_from(n + 1).ok()).unwrap_or(0);
        conn.known.set_merkle_count(n);
        Ok(n)
    }

    fn merkle_hash(&self, idx: u64) -> Result<Option<Digest>> {
        if let Some(h) = self.conn.borrow().known.merkle_hash(idx) {
            return Ok(Some(h));
        }
        let sql = "SELECT hash FROM merkle_hashes WHERE idx = $1";
        let h = self.one(sql, &[&sql_i64(idx)], |r| r.digest(0))?;
        if let Some(h) = h {
            self.conn.borrow_mut().known.add_merkle_hash(idx, h);
        }
        Ok(h)
    }

    fn merkle_hashes(&self, idx: &[u64]) -> Result<Vec<Option<Digest>>> {
        let mut found: Vec<Option<Digest>> = {
            let conn = self.conn.borrow();
            idx.iter().map(|&i| conn.known.merkle_hash(i)).collect()
        };
        let missing: Vec<i64> =
            idx.iter().zip(&found).filter(|(_, h)| h.is_none()).map(|(&i, _)| sql_i64(i)).collect();
        if missing.is_empty() {
            return Ok(found);
        }
        // The ones not known yet, in one statement.
        let sql = "SELECT idx, hash FROM merkle_hashes WHERE idx = ANY($1)";
        for (i, h) in self.all(sql, &[&missing], merkle_row)? {
            self.conn.borrow_mut().known.add_merkle_hash(i, h);
            if let Some(slot) = idx.iter().position(|&x| x == i) {
                found[slot] = Some(h);
            }
        }
        Ok(found)
    }

    fn for_each_merkle_hash(&self, f: &mut dyn FnMut(u64, Digest) -> Flow) -> Result<()> {
        self.stream(
            "SELECT idx, hash FROM merkle_hashes ORDER BY idx",
            merkle_row,
            &mut |(i, h)| f(i, h),
        )
    }

    fn insert_merkle_hashes(&mut self, start: u64, hashes: &[Digest]) -> Result<()> {
        if hashes.is_empty() {
            return Ok(());
        }
        // One statement for the whole batch.
        let idx: Vec<i64> = (start..).take(hashes.len()).map(sql_i64).collect();
        let hex: Vec<String> = hashes.iter().map(Digest::to_hex).collect();
        self.exec(
            "INSERT INTO merkle_hashes (idx, hash) SELECT * FROM UNNEST($1::BIGINT[], $2::TEXT[])",
            &[&idx, &hex],
        )?;
        self.conn.get_mut().known.stored_merkle_hashes(start, hashes);
        Ok(())
    }

    fn log_signer(&self) -> Result<Option<SignerRow>> {
        let sql = format!("SELECT {SIGNER_COLS} FROM log_signer WHERE id = 1");
        self.one(&sql, &[], signer_row)
    }

    fn set_log_signer(&mut self, s: &SignerRow) -> Result<()> {
        let sql = format!(
            "INSERT INTO log_signer (id, {SIGNER_COLS}) VALUES (1, $1, $2, $3, $4) \
             ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, fence = excluded.fence, \
             expires_at = excluded.expires_at, vkey = excluded.vkey"
        );
        self.exec(&sql, &[&s.holder, &sql_i64(s.fence), &s.expires_at, &s.vkey])?;
        Ok(())
    }

    fn latest_checkpoint(&self) -> Result<Option<CheckpointRow>> {
        let sql = format!("SELECT {CHECKPOINT_COLS} FROM checkpoints ORDER BY size DESC LIMIT 1");
        self.one(&sql, &[], checkpoint_row)
    }

    fn checkpoint_at(&self, size: u64) -> Result<Option<CheckpointRow>> {
        let sql = format!("SELECT {CHECKPOINT_COLS} FROM checkpoints WHERE size = $1");
        self.one(&sql, &[&sql_i64(size)], checkpoint_row)
    }

    fn for_each_checkpoint(&self, f: &mut dyn FnMut(CheckpointRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {CHECKPOINT_COLS} FROM checkpoints ORDER BY size");
        self.stream(&sql, checkpoint_row, f)
    }

    fn insert_checkpoint(&mut self, c: &CheckpointRow) -> Result<()> {
        self.insert(
            "checkpoints",
            CHECKPOINT_COLS,
            &[&sql_i64(c.size), &c.root.to_hex(), &c.note, &c.signed_at],
        )
    }

    fn set_checkpoint_note(&mut self, size: u64, note: &str) -> Result<()> {
        self.exec("UPDATE checkpoints SET note = $2 WHERE size = $1", &[&sql_i64(size), &note])?;
        Ok(())
    }
}
