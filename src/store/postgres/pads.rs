//! [`PadStore`] on PostgreSQL: pads, blocks and read tickets.

use tokio_postgres::types::ToSql;

use super::conn::OwnedParams;
use super::tx::{literal, PgTx};
use super::PAD_LOCK_CLASS;
use crate::domain::digest::Digest;
use crate::store::sql::{
    block_row, pad_row, sql_i64, ticket_row, Columns as _, BLOCK_COLS, PAD_COLS, TICKET_COLS,
};
use crate::store::{
    BlockRef, BlockRow, Flow, PadQuery, PadRow, PadStore, Result, StoreError, TicketRow,
};

/// The tag of an append's block write queued on the connection: the journal entry that follows
/// it takes it back and sends both in one statement (see `JournalStore::append_journal`).
pub(super) const APPEND_BLOCK: &str = "append_block";

/// What the append's statement refusing itself means.
const PAD_CHANGED: &str =
    "the pad's row changed while this append was prepared; nothing was written, retry";

/// The common table expressions of an append's block: `p` updates the pad to its new fields
/// ($9–$13) only if its row is the one the block continues (count $2, head $3, state $11), `b`
/// inserts the block ($1–$8) only if `p` did; the pad's own chain lock is taken in `p`. The
/// statement ends with `SELECT 1 / COUNT(*)::INT FROM b`: no block inserted divides by zero.
pub(super) fn append_block_ctes() -> String {
    format!(
        "p AS (UPDATE pads SET block_count = $9, current_bytes = $10, state = $11, \
         head_hash = $12, sealed_at = $13 \
         FROM (SELECT pg_advisory_xact_lock({PAD_LOCK_CLASS}, hashtext($1))) AS chain_lock \
         WHERE id = $1 AND block_count = $2 AND head_hash = $3 AND state = $11 RETURNING id), \
         b AS (INSERT INTO blocks ({BLOCK_COLS}) SELECT $1, $2, $3, $4, $5, $6, $7, $8 \
         FROM p RETURNING pad_id)"
    )
}

/// How many parameters [`append_block_ctes`] takes.
pub(super) const APPEND_BLOCK_PARAMS: usize = 13;

impl PgTx<'_> {
    /// Inserts `b` (a block copied in, `store copy`). The pad's own chain lock is taken in the
    /// statement; the journal's lock, held since BEGIN, already excludes every other writer.
    fn put_block(&self, b: &BlockRow) -> Result<()> {
        let sql = format!(
            "INSERT INTO blocks ({BLOCK_COLS}) SELECT $1, $2, $3, $4, $5, $6, $7, $8 \
             FROM (SELECT pg_advisory_xact_lock({PAD_LOCK_CLASS}, hashtext($1))) AS chain_lock \
             ON CONFLICT DO NOTHING"
        );
        let (seq, prev, curr) = (sql_i64(b.seq), b.prev_hash.to_hex(), b.curr_hash.to_hex());
        let pruned = b.pruned_bytes.map(sql_i64);
        let params: [&(dyn ToSql + Sync); 8] =
            [&b.pad_id, &seq, &prev, &curr, &b.content_type, &b.payload, &b.created_at, &pruned];
        if self.exec(&sql, &params)? == 0 {
            return Err(StoreError::Duplicate(format!(
                "block {} of pad {} exists",
                b.seq, b.pad_id
            )));
        }
        Ok(())
    }
}

impl PadStore for PgTx<'_> {
    fn pad(&self, id: &str) -> Result<Option<PadRow>> {
        if let Some(p) = self.conn.borrow().known.pad(id) {
            return Ok(Some(p));
        }
        let p = self.one(&format!("SELECT {PAD_COLS} FROM pads WHERE id = $1"), &[&id], pad_row)?;
        if let Some(p) = &p {
            self.conn.borrow_mut().known.set_pad(p);
        }
        Ok(p)
    }

    fn pads(&self, q: &PadQuery) -> Result<Vec<PadRow>> {
        let sql = format!(
            "SELECT {PAD_COLS} FROM pads WHERE ($1::TEXT IS NULL OR scope = $1) \
             AND ($2::TEXT IS NULL OR id > $2) ORDER BY id LIMIT $3"
        );
        self.all(&sql, &[&q.scope, &q.after, &sql_i64(q.limit)], pad_row)
    }

    fn for_each_pad(&self, f: &mut dyn FnMut(PadRow) -> Flow) -> Result<()> {
        self.stream(&format!("SELECT {PAD_COLS} FROM pads ORDER BY id"), pad_row, f)
    }

    fn blocks(&self, pad: &str, from: u64, to: u64) -> Result<Vec<BlockRow>> {
        let sql = format!(
            "SELECT {BLOCK_COLS} FROM blocks WHERE pad_id = $1 AND seq BETWEEN $2 AND $3 \
             ORDER BY seq"
        );
        self.all(&sql, &[&pad, &sql_i64(from), &sql_i64(to)], block_row)
    }

    fn blocks_bytes(&self, pad: &str, from: u64, to: u64) -> Result<u64> {
        let row = self.conn.borrow_mut().query_one(
            "SELECT COALESCE(SUM(length(payload)), 0)::BIGINT FROM blocks \
             WHERE pad_id = $1 AND seq BETWEEN $2 AND $3",
            &[&pad, &sql_i64(from), &sql_i64(to)],
        )?;
        Ok(u64::try_from(row.int(0)?).unwrap_or(0))
    }

    fn for_each_block(&self, pad: &str, f: &mut dyn FnMut(BlockRow) -> Flow) -> Result<()> {
        let sql = format!(
            "SELECT {BLOCK_COLS} FROM blocks WHERE pad_id = {} ORDER BY seq",
            literal(pad)?
        );
        self.stream(&sql, block_row, f)
    }

    fn for_each_stored_block(&self, f: &mut dyn FnMut(&BlockRef<'_>) -> Flow) -> Result<()> {
        // The primary key's order: every pad's blocks in sequence, from one index scan.
        let sql = format!("SELECT {BLOCK_COLS} FROM blocks ORDER BY pad_id, seq");
        self.stream(&sql, block_row, &mut |b| f(&b.as_ref()))
    }

    fn ticket(&self, digest: &Digest) -> Result<Option<TicketRow>> {
        let sql = format!("SELECT {TICKET_COLS} FROM tickets WHERE digest = $1");
        self.one(&sql, &[&digest.to_hex()], ticket_row)
    }

    fn for_each_ticket(&self, f: &mut dyn FnMut(TicketRow) -> Flow) -> Result<()> {
        self.stream(&format!("SELECT {TICKET_COLS} FROM tickets ORDER BY digest"), ticket_row, f)
    }

    fn insert_pad(&mut self, p: &PadRow) -> Result<()> {
        self.conn.get_mut().known.forget_pad(&p.id);
        self.insert(
            "pads",
            PAD_COLS,
            &[
                &p.id,
                &p.scope,
                &p.created_at,
                &p.expires_at,
                &i64::from(p.max_blocks),
                &sql_i64(p.max_bytes),
                &sql_i64(p.block_count),
                &sql_i64(p.current_bytes),
                &p.state.as_str(),
                &p.write_key_hash.to_hex(),
                &p.head_hash.to_hex(),
                &p.sealed_at,
                &p.pruned_at,
            ],
        )
    }

    fn update_pad(&mut self, p: &PadRow) -> Result<()> {
        self.conn.get_mut().known.forget_pad(&p.id);
        self.exec(
            "UPDATE pads SET block_count = $2, current_bytes = $3, state = $4, head_hash = $5, \
             sealed_at = $6 WHERE id = $1",
            &[
                &p.id,
                &sql_i64(p.block_count),
                &sql_i64(p.current_bytes),
                &p.state.as_str(),
                &p.head_hash.to_hex(),
                &p.sealed_at,
            ],
        )?;
        Ok(())
    }

    fn insert_block(&mut self, b: &BlockRow) -> Result<()> {
        self.put_block(b)
    }

    /// Inserts `b` and updates its pad to `p` (its new fields, counted with it) in one
    /// statement, taking the pad's own chain lock in it too. The update holds only if the
    /// pad's row is still the one `b` continues (its count, head and state): a row changed
    /// behind locker's back since it was read (or kept from an earlier transaction, see
    /// `Known`) refuses the statement instead of forking the chain. Sent with the
    /// transaction's next statement, or when it (or its savepoint) ends; a block that exists
    /// already fails it as [`StoreError::Duplicate`] then (the journal's lock, held since
    /// BEGIN, excludes every other writer, so only a damaged store can have one).
    fn append_block(&mut self, b: &BlockRow, p: &PadRow) -> Result<()> {
        self.check_writable()?;
        let sql = format!("WITH {} SELECT 1 / COUNT(*)::INT FROM b", append_block_ctes());
        let params: OwnedParams = vec![
            Box::new(b.pad_id.clone()),
            Box::new(sql_i64(b.seq)),
            Box::new(b.prev_hash.to_hex()),
            Box::new(b.curr_hash.to_hex()),
            Box::new(b.content_type.clone()),
            Box::new(b.payload.clone()),
            Box::new(b.created_at),
            Box::new(b.pruned_bytes.map(sql_i64)),
            Box::new(sql_i64(p.block_count)),
            Box::new(sql_i64(p.current_bytes)),
            Box::new(p.state.as_str()),
            Box::new(p.head_hash.to_hex()),
            Box::new(p.sealed_at),
        ];
        let conn = self.conn.get_mut();
        conn.defer(&sql, params, Some(PAD_CHANGED), APPEND_BLOCK)?;
        conn.known.set_pad(p);
        Ok(())
    }

    fn insert_ticket(&mut self, t: &TicketRow) -> Result<()> {
        self.insert(
            "tickets",
            TICKET_COLS,
            &[
                &t.digest.to_hex(),
                &t.pad_id,
                &t.ticket_type.as_str(),
                &t.created_at,
                &t.lease_started_at,
                &t.revoked_at,
            ],
        )
    }

    fn update_ticket(&mut self, t: &TicketRow) -> Result<()> {
        self.exec(
            "UPDATE tickets SET lease_started_at = $2, revoked_at = $3 WHERE digest = $1",
            &[&t.digest.to_hex(), &t.lease_started_at, &t.revoked_at],
        )?;
        Ok(())
    }
}
