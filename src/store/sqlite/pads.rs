//! [`PadStore`] on SQLite: pads, blocks and read tickets.

use rusqlite::params;

use super::error::SqlResult as _;
use super::rows::{block_row, pad_row, ticket_row};
use super::tx::SqliteTx;
use crate::domain::digest::Digest;
use crate::store::sql::{sql_i64, BLOCK_COLS, PAD_COLS, TICKET_COLS};
use crate::store::{BlockRow, Flow, PadQuery, PadRow, PadStore, Result, TicketRow};

impl PadStore for SqliteTx<'_> {
    fn pad(&self, id: &str) -> Result<Option<PadRow>> {
        self.one(&format!("SELECT {PAD_COLS} FROM pads WHERE id = ?1"), [id], pad_row)
    }

    fn pads(&self, q: &PadQuery) -> Result<Vec<PadRow>> {
        let sql = format!(
            "SELECT {PAD_COLS} FROM pads WHERE (?1 IS NULL OR scope = ?1) \
             AND (?2 IS NULL OR id > ?2) ORDER BY id LIMIT ?3"
        );
        self.all(&sql, params![q.scope, q.after, sql_i64(q.limit)], pad_row)
    }

    fn for_each_pad(&self, f: &mut dyn FnMut(PadRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {PAD_COLS} FROM pads ORDER BY id");
        self.stream(&sql, &[], pad_row, f)
    }

    fn blocks(&self, pad: &str, from: u64, to: u64) -> Result<Vec<BlockRow>> {
        let sql = format!(
            "SELECT {BLOCK_COLS} FROM blocks WHERE pad_id = ?1 AND seq BETWEEN ?2 AND ?3 ORDER BY seq"
        );
        self.all(&sql, params![pad, sql_i64(from), sql_i64(to)], block_row)
    }

    fn blocks_bytes(&self, pad: &str, from: u64, to: u64) -> Result<u64> {
        let mut stmt = self
            .tx
            .prepare_cached(
                "SELECT COALESCE(SUM(length(payload)), 0) FROM blocks \
                 WHERE pad_id = ?1 AND seq BETWEEN ?2 AND ?3",
            )
            .db()?;
        let n: i64 = stmt.query_row(params![pad, sql_i64(from), sql_i64(to)], |r| r.get(0)).db()?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    fn for_each_block(&self, pad: &str, f: &mut dyn FnMut(BlockRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {BLOCK_COLS} FROM blocks WHERE pad_id = ?1 ORDER BY seq");
        self.stream(&sql, &[&pad], block_row, f)
    }

    fn for_each_stored_block(&self, f: &mut dyn FnMut(BlockRow) -> Flow) -> Result<()> {
        // Row id order: the table's own b-tree, walked once page after page.
        let sql = format!("SELECT {BLOCK_COLS} FROM blocks ORDER BY id");
        self.stream(&sql, &[], block_row, f)
    }

    fn ticket(&self, digest: &Digest) -> Result<Option<TicketRow>> {
        let sql = format!("SELECT {TICKET_COLS} FROM tickets WHERE digest = ?1");
        self.one(&sql, [digest.to_hex()], ticket_row)
    }

    fn for_each_ticket(&self, f: &mut dyn FnMut(TicketRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {TICKET_COLS} FROM tickets ORDER BY digest");
        self.stream(&sql, &[], ticket_row, f)
    }

    fn insert_pad(&mut self, p: &PadRow) -> Result<()> {
        let sql = format!(
            "INSERT INTO pads ({PAD_COLS}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
        );
        self.exec(
            &sql,
            params![
                p.id,
                p.scope,
                p.created_at,
                p.expires_at,
                p.max_blocks,
                sql_i64(p.max_bytes),
                sql_i64(p.block_count),
                sql_i64(p.current_bytes),
                p.state.as_str(),
                p.write_key_hash.to_hex(),
                p.head_hash.to_hex(),
                p.sealed_at,
                p.pruned_at
            ],
        )?;
        Ok(())
    }

    fn update_pad(&mut self, p: &PadRow) -> Result<()> {
        self.exec(
            "UPDATE pads SET block_count = ?2, current_bytes = ?3, state = ?4, head_hash = ?5, \
             sealed_at = ?6 WHERE id = ?1",
            params![
                p.id,
                sql_i64(p.block_count),
                sql_i64(p.current_bytes),
                p.state.as_str(),
                p.head_hash.to_hex(),
                p.sealed_at
            ],
        )?;
        Ok(())
    }

    fn insert_block(&mut self, b: &BlockRow) -> Result<()> {
        let sql =
            format!("INSERT INTO blocks ({BLOCK_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
        self.exec(
            &sql,
            params![
                b.pad_id,
                sql_i64(b.seq),
                b.prev_hash.to_hex(),
                b.curr_hash.to_hex(),
                b.content_type,
                b.payload,
                b.created_at,
                b.pruned_bytes.map(sql_i64)
            ],
        )?;
        Ok(())
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
