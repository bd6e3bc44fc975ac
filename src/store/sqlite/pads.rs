//! [`PadStore`] on SQLite: pads, blocks and read tickets.
//!
//! Since schema 12 a pad's blocks are rows `ord * 2^32 + seq` of the `blocks` table (`ord`: the
//! pad's number, given at its creation), so the table is its own index by pad, and a pad's
//! count, byte total and head are read from its last block rather than kept in its row: an
//! append writes its block's page and nothing else of the pad (migration 0012).

use rusqlite::{params, Connection, OptionalExtension as _};

use super::error::SqlResult as _;
use super::rows::{block_ref, block_row, pad_row, ticket_row};
use super::tx::SqliteTx;
use crate::domain::digest::Digest;
use crate::store::sql::{block_cols, sql_i64, TICKET_COLS};
use crate::store::{
    BlockRef, BlockRow, Flow, PadQuery, PadRow, PadStore, Result, StoreError, TicketRow,
};

/// How many row ids of `blocks` each pad has (2^32), as a literal for the SQL below: block
/// `seq` of pad `ord` is row `ord * BLOCK_IDS + seq`.
macro_rules! block_ids {
    () => {
        4294967296
    };
}
const BLOCK_IDS: u64 = block_ids!();
const _: () = assert!(BLOCK_IDS == 1 << 32);

/// The head of a pad without blocks (`Digest::ZERO`), as an SQL string literal: schema 12's
/// migration compares text heads with it (since schema 13 a head is 32 bytes: `zeroblob(32)`).
macro_rules! zero_hash {
    () => {
        "'0000000000000000000000000000000000000000000000000000000000000000'"
    };
}

/// The pad `p`'s last block `b` (none for a pad without blocks): the last row of its range
/// that names it; `$blocks` names the table.
macro_rules! last_block {
    ($blocks:literal) => {
        concat!(
            " LEFT JOIN ",
            $blocks,
            " b ON b.id = (SELECT id FROM ",
            $blocks,
            " WHERE id >= p.ord * ",
            block_ids!(),
            " AND id < (p.ord + 1) * ",
            block_ids!(),
            " AND pad_id = p.id ORDER BY id DESC LIMIT 1)"
        )
    };
}

/// A pad's columns in the order of `store::sql::PAD_COLS`, its count, bytes and head from
/// its last block.
macro_rules! select_pads {
    () => {
        concat!(
            "SELECT p.id, p.scope, p.created_at, p.expires_at, p.max_blocks, p.max_bytes, \
             COALESCE(b.seq + 1, 0) AS \"last block's seq + 1\", \
             COALESCE(b.total_bytes, 0) AS \"last block's total_bytes\", p.state, \
             p.write_key_hash, COALESCE(b.curr_hash, zeroblob(32)) \
             AS \"last block's curr_hash\", p.sealed_at, p.pruned_at FROM pads p",
            last_block!("blocks")
        )
    };
}

/// The blocks of pad `?1` from `?2` to `?3` (row ids relative to the pad's first), in order.
macro_rules! select_blocks {
    ($what:expr) => {
        concat!(
            "WITH p(base) AS (SELECT ord * ",
            block_ids!(),
            " FROM pads WHERE id = ?1) SELECT ",
            $what,
            " FROM blocks, p WHERE blocks.id BETWEEN p.base + ?2 AND p.base + ?3 \
             AND blocks.pad_id = ?1 ORDER BY blocks.id"
        )
    };
}

/// `from..=to` as row ids relative to a pad's first block, `None` if no block can be in it.
fn block_range(from: u64, to: u64) -> Option<(i64, i64)> {
    let to = to.min(BLOCK_IDS - 1);
    (from <= to).then(|| (sql_i64(from), sql_i64(to)))
}

/// Migration 12's data step, after its SQL copied the blocks into `blocks_by_pad`: checks
/// that every block was copied and that every pad reads back through the new layout with the
/// count, byte total and head its row holds, then drops the old table and those columns.
/// Runs inside the migration's transaction: if anything differs, the migration fails and
/// nothing changes.
pub(super) fn move_blocks_by_pad(conn: &Connection) -> Result<()> {
    let count = |table: &str| -> Result<i64> {
        conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0)).db()
    };
    let (before, after) = (count("blocks")?, count("blocks_by_pad")?);
    if before != after {
        return Err(StoreError::Corrupt(format!(
            "moving the blocks by pad copied {after} of {before} blocks (a block names no \
             pad); nothing was changed"
        )));
    }
    let differs = concat!(
        "SELECT p.id, p.block_count, p.current_bytes, p.head_hash, COALESCE(b.seq + 1, 0), \
         COALESCE(b.total_bytes, 0), COALESCE(b.curr_hash, ",
        zero_hash!(),
        ") FROM pads p",
        last_block!("blocks_by_pad"),
        " WHERE p.block_count IS NOT COALESCE(b.seq + 1, 0) \
         OR p.current_bytes IS NOT COALESCE(b.total_bytes, 0) \
         OR p.head_hash IS NOT COALESCE(b.curr_hash, ",
        zero_hash!(),
        ") ORDER BY p.ord LIMIT 1"
    );
    type Differs = (String, i64, i64, String, i64, i64, String);
    let found: Option<Differs> = conn
        .query_row(differs, [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?))
        })
        .optional()
        .db()?;
    if let Some((id, count, bytes, head, blocks_count, blocks_bytes, blocks_head)) = found {
        return Err(StoreError::Corrupt(format!(
            "pad {id}'s row says {count} blocks, {bytes} bytes and head {head}, but its \
             blocks say {blocks_count}, {blocks_bytes} and {blocks_head}; nothing was \
             changed (run `locker verify` with the locker that wrote this repository)"
        )));
    }
    conn.execute_batch(
        "DROP TABLE blocks; ALTER TABLE blocks_by_pad RENAME TO blocks; \
         ALTER TABLE pads DROP COLUMN block_count; ALTER TABLE pads DROP COLUMN current_bytes; \
         ALTER TABLE pads DROP COLUMN head_hash;",
    )
    .db()?;
    Ok(())
}

impl SqliteTx<'_> {
    /// How many blocks the pads have: each pad's last `seq + 1`, one seek per pad.
    pub(super) fn block_count(&self) -> Result<u64> {
        let n: i64 = self
            .tx
            .prepare_cached(concat!(
                "SELECT COALESCE(SUM(b.seq + 1), 0) FROM pads p",
                last_block!("blocks")
            ))
            .db()?
            .query_row([], |r| r.get(0))
            .db()?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}

impl PadStore for SqliteTx<'_> {
    fn pad(&self, id: &str) -> Result<Option<PadRow>> {
        self.one(concat!(select_pads!(), " WHERE p.id = ?1"), [id], pad_row)
    }

    fn pads(&self, q: &PadQuery) -> Result<Vec<PadRow>> {
        let sql = concat!(
            select_pads!(),
            " WHERE (?1 IS NULL OR p.scope = ?1) AND (?2 IS NULL OR p.id > ?2) \
             ORDER BY p.id LIMIT ?3"
        );
        self.all(sql, params![q.scope, q.after, sql_i64(q.limit)], pad_row)
    }

    fn for_each_pad(&self, f: &mut dyn FnMut(PadRow) -> Flow) -> Result<()> {
        self.stream(concat!(select_pads!(), " ORDER BY p.id"), &[], pad_row, f)
    }

    fn blocks(&self, pad: &str, from: u64, to: u64) -> Result<Vec<BlockRow>> {
        let Some((from, to)) = block_range(from, to) else { return Ok(Vec::new()) };
        self.all(select_blocks!(block_cols!()), params![pad, from, to], block_row)
    }

    fn blocks_bytes(&self, pad: &str, from: u64, to: u64) -> Result<u64> {
        let Some((from, to)) = block_range(from, to) else { return Ok(0) };
        let sql = concat!(
            "SELECT COALESCE(SUM(n), 0) FROM (",
            select_blocks!("length(payload) AS n"),
            ")"
        );
        let mut stmt = self.tx.prepare_cached(sql).db()?;
        let n: i64 = stmt.query_row(params![pad, from, to], |r| r.get(0)).db()?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    fn for_each_block(&self, pad: &str, f: &mut dyn FnMut(BlockRow) -> Flow) -> Result<()> {
        let (from, to) = (0i64, sql_i64(BLOCK_IDS - 1));
        self.stream(select_blocks!(block_cols!()), &[&pad, &from, &to], block_row, f)
    }

    fn for_each_stored_block(&self, f: &mut dyn FnMut(&BlockRef<'_>) -> Flow) -> Result<()> {
        // Row id order: the table's own b-tree, walked once page after page (pad by pad); each
        // block lent out of SQLite's row, not copied.
        let sql = concat!("SELECT ", block_cols!(), " FROM blocks ORDER BY id");
        self.for_each_row(sql, [], &mut |row| Ok(f(&block_ref(row)?)))
    }

    fn ticket(&self, digest: &Digest) -> Result<Option<TicketRow>> {
        let sql = format!("SELECT {TICKET_COLS} FROM tickets WHERE digest = ?1");
        self.one(&sql, [digest.to_hex()], ticket_row)
    }

    fn for_each_ticket(&self, f: &mut dyn FnMut(TicketRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {TICKET_COLS} FROM tickets ORDER BY digest");
        self.stream(&sql, &[], ticket_row, f)
    }

    /// Inserts the pad with the next number; its count, bytes and head are those of the
    /// blocks inserted after it (`pad`'s are not stored).
    fn insert_pad(&mut self, p: &PadRow) -> Result<()> {
        self.exec(
            "INSERT INTO pads (ord, id, scope, created_at, expires_at, max_blocks, max_bytes, \
             state, write_key_hash, sealed_at, pruned_at) \
             VALUES ((SELECT COALESCE(MAX(ord), 0) + 1 FROM pads), \
             ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                p.id,
                p.scope,
                p.created_at,
                p.expires_at,
                p.max_blocks,
                sql_i64(p.max_bytes),
                p.state.as_str(),
                p.write_key_hash.to_hex(),
                p.sealed_at,
                p.pruned_at
            ],
        )?;
        Ok(())
    }

    /// Writes the pad's state and `sealed_at`; its count, bytes and head follow from its
    /// blocks.
    fn update_pad(&mut self, p: &PadRow) -> Result<()> {
        self.exec(
            "UPDATE pads SET state = ?2, sealed_at = ?3 WHERE id = ?1",
            params![p.id, p.state.as_str(), p.sealed_at],
        )?;
        Ok(())
    }

    /// Inserts the block at its pad's row `seq`, with the pad's running byte total.
    fn insert_block(&mut self, b: &BlockRow) -> Result<()> {
        if b.seq >= BLOCK_IDS {
            return Err(StoreError::Unsupported(format!(
                "block {} of pad {} is past the {BLOCK_IDS} blocks a pad can hold",
                b.seq, b.pad_id
            )));
        }
        let sql = concat!(
            "WITH p(base) AS (SELECT ord * ",
            block_ids!(),
            " FROM pads WHERE id = ?1) INSERT INTO blocks (id, ",
            block_cols!(),
            ", total_bytes) SELECT p.base + ?2, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, \
             COALESCE((SELECT total_bytes FROM blocks WHERE id = p.base + ?2 - 1 AND ?2 > 0), 0) \
             + COALESCE(?8, length(CAST(?6 AS BLOB))) FROM p"
        );
        let n = self.exec(
            sql,
            params![
                b.pad_id,
                sql_i64(b.seq),
                &b.prev_hash.0[..],
                &b.curr_hash.0[..],
                b.content_type,
                b.payload,
                b.created_at,
                b.pruned_bytes.map(sql_i64)
            ],
        )?;
        if n == 0 {
            return Err(StoreError::Backend {
                backend: "SQLite",
                detail: format!("block {} names no pad: `{}`", b.seq, b.pad_id),
            });
        }
        Ok(())
    }

    /// One row: the pad's count, bytes and head are its last block's.
    fn append_block(&mut self, block: &BlockRow, _pad: &PadRow) -> Result<()> {
        self.insert_block(block)
    }

    fn insert_ticket(&mut self, t: &TicketRow) -> Result<()> {
        let sql = format!("INSERT INTO tickets ({TICKET_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
        self.exec(
            &sql,
            params![
                t.digest.to_hex(),
                t.pad_id,
                t.ticket_type.as_str(),
                t.created_at,
                t.lease_started_at,
                t.revoked_at
            ],
        )?;
        Ok(())
    }

    fn update_ticket(&mut self, t: &TicketRow) -> Result<()> {
        self.exec(
            "UPDATE tickets SET lease_started_at = ?2, revoked_at = ?3 WHERE digest = ?1",
            params![t.digest.to_hex(), t.lease_started_at, t.revoked_at],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::domain::digest::Digest;
    use crate::domain::pad::StoredState;
    use crate::store::sqlite::create;
    use crate::store::{BlockRow, PadRow, Store as _};

    fn pad(id: &str) -> PadRow {
        PadRow {
            id: id.to_owned(),
            scope: "s".into(),
            created_at: 1,
            expires_at: 2,
            max_blocks: 4096,
            max_bytes: 1 << 20,
            // Not stored on SQLite: read from the pad's blocks.
            block_count: 99,
            current_bytes: 99,
            state: StoredState::Open,
            write_key_hash: Digest([7; 32]),
            head_hash: Digest([9; 32]),
            sealed_at: None,
            pruned_at: None,
        }
    }

    fn block(pad: &str, seq: u64, len: usize, pruned: bool) -> BlockRow {
        BlockRow {
            pad_id: pad.to_owned(),
            seq,
            prev_hash: Digest([u8::try_from(seq % 251).unwrap(); 32]),
            curr_hash: Digest([u8::try_from((seq + 1) % 251).unwrap(); 32]),
            content_type: "text/plain".into(),
            payload: if pruned { Vec::new() } else { vec![b'x'; len] },
            created_at: 5,
            pruned_bytes: pruned.then_some(len as u64),
        }
    }

    /// The SQL's head of a pad without blocks is `Digest::ZERO`.
    #[test]
    fn the_sql_zero_hash_is_the_zero_digest() {
        assert_eq!(zero_hash!(), format!("'{}'", Digest::ZERO.to_hex()));
    }

    /// A pad's count, bytes and head are its last block's `seq + 1`, running total (a pruned
    /// block counting the length it had) and hash; each pad's blocks are its own rows, read
    /// back in order and within any range asked for, however large.
    #[test]
    fn a_pads_account_is_read_from_its_own_last_block() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = create(&dir.path().join("locker.db")).unwrap();
        let mut tx = store.write().unwrap();
        for id in ["a", "b", "empty"] {
            tx.insert_pad(&pad(id)).unwrap();
        }
        tx.insert_block(&block("a", 0, 10, false)).unwrap();
        tx.insert_block(&block("b", 0, 7, false)).unwrap();
        tx.insert_block(&block("a", 1, 20, true)).unwrap();
        tx.append_block(&block("a", 2, 30, false), &pad("a")).unwrap();
        let a = tx.pad("a").unwrap().unwrap();
        assert_eq!((a.block_count, a.current_bytes, a.head_hash), (3, 60, Digest([3; 32])));
        let b = tx.pad("b").unwrap().unwrap();
        assert_eq!((b.block_count, b.current_bytes, b.head_hash), (1, 7, Digest([1; 32])));
        let e = tx.pad("empty").unwrap().unwrap();
        assert_eq!((e.block_count, e.current_bytes, e.head_hash), (0, 0, Digest::ZERO));
        let seqs = |from, to| -> Vec<u64> {
            tx.blocks("a", from, to).unwrap().iter().map(|b| b.seq).collect()
        };
        assert_eq!(seqs(0, u64::MAX), [0, 1, 2]);
        assert_eq!(seqs(1, 1), [1]);
        assert_eq!(seqs(1u64 << 40, u64::MAX), Vec::<u64>::new());
        assert_eq!(tx.blocks_bytes("a", 0, u64::MAX).unwrap(), 40, "the pruned payload is empty");
        assert_eq!(tx.counts().unwrap().blocks, 4);
        // A block of no pad is refused, not stored at a row of its own choosing.
        assert!(tx.insert_block(&block("nope", 0, 1, false)).is_err());
        assert!(tx.insert_block(&block("a", 1 << 32, 1, false)).is_err());
        tx.commit().unwrap();
    }
}
