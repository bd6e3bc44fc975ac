//! A PostgreSQL group commit: one write transaction shared by several operations, each
//! operation's transaction a savepoint inside it.

use super::conn::Conn;
use super::tx::PgTx;
use crate::store::{Group, Result, Savepoints, Store, StoreError, Tx};

/// One write transaction shared by several operations: each operation's transaction is a
/// savepoint inside it.
pub(super) struct PgGroup<'c> {
    conn: &'c mut Conn,
    finished: bool,
}

impl Drop for PgGroup<'_> {
    fn drop(&mut self) {
        if !self.finished {
            self.conn.quietly("ROLLBACK");
        }
    }
}

impl<'c> PgGroup<'c> {
    /// The group of the write transaction just begun on `conn`.
    pub(super) fn new(conn: &'c mut Conn) -> Self {
        Self { conn, finished: false }
    }
}

impl Savepoints for PgGroup<'_> {
    fn backend_kind(&self) -> &'static str {
        "postgres"
    }

    fn backend_clock_offset(&self) -> i64 {
        self.conn.clock_offset
    }

    fn savepoint(&mut self, writable: bool) -> Result<Box<dyn Tx + '_>> {
        if !self.is_open() {
            return Err(StoreError::Io("the group's transaction was rolled back".into()));
        }
        self.conn.savepoints += 1;
        let name = format!("ls{}", self.conn.savepoints);
        // Sent with the savepoint's first statement (see `Conn`).
        self.conn.begin_savepoint(&name);
        Ok(Box::new(PgTx::nested(self.conn, writable, name)))
    }
}

impl Group for PgGroup<'_> {
    fn store(&mut self) -> &mut dyn Store {
        self
    }

    fn is_open(&self) -> bool {
        !self.finished && !self.conn.failed && !self.conn.is_lost()
    }

    fn commit(mut self: Box<Self>) -> Result<()> {
        if !self.is_open() {
            return Err(StoreError::Io("the group's transaction was rolled back".into()));
        }
        // Every savepoint's writes were sent when it ended, and `COMMIT` releases them all:
        // a failure can only be the commit's.
        let r = self.conn.commit();
        self.finished = true;
        r.map_err(|e| super::conn::commit_outcome_unknown(self.conn, e))
    }
}
