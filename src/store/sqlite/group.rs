//! A SQLite group commit: one `BEGIN IMMEDIATE` transaction shared by several operations, each
//! operation's transaction a savepoint inside it.

use std::path::Path;

use rusqlite::Connection;

use super::error::SqlResult as _;
use super::tx::{GroupFiles, SqliteTx};
use crate::store::{Group, Result, Savepoints, Store, StoreError, Tx};

/// One `BEGIN IMMEDIATE` transaction shared by several operations: each operation's
/// transaction is a savepoint inside it.
pub(super) struct SqliteGroup<'c> {
    conn: &'c mut Connection,
    objects: &'c Path,
    /// Committed (or known to be gone): nothing to roll back when dropped.
    finished: bool,
    /// What the group's committed savepoints did to blob files.
    files: GroupFiles,
}

impl<'c> SqliteGroup<'c> {
    /// The group of the transaction just begun on `conn`.
    pub(super) fn new(conn: &'c mut Connection, objects: &'c Path) -> Self {
        Self { conn, objects, finished: false, files: GroupFiles::default() }
    }
}

impl Drop for SqliteGroup<'_> {
    fn drop(&mut self) {
        if !self.finished && !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

impl Savepoints for SqliteGroup<'_> {
    fn backend_kind(&self) -> &'static str {
        "sqlite"
    }

    fn savepoint(&mut self, writable: bool) -> Result<Box<dyn Tx + '_>> {
        if self.conn.is_autocommit() {
            return Err(StoreError::Io("the group's transaction was rolled back".into()));
        }
        let sp = self.conn.savepoint().db()?;
        Ok(Box::new(SqliteTx::nested(sp, writable, self.objects, &mut self.files)))
    }
}

impl Group for SqliteGroup<'_> {
    fn store(&mut self) -> &mut dyn Store {
        self
    }

    fn is_open(&self) -> bool {
        !self.conn.is_autocommit()
    }

    fn commit(mut self: Box<Self>) -> Result<()> {
        if self.conn.is_autocommit() {
            self.finished = true;
            return Err(StoreError::Io("the group's transaction was rolled back".into()));
        }
        self.conn.execute_batch("COMMIT").db()?;
        self.finished = true;
        self.files.created.keep();
        for path in self.files.remove.drain(..) {
            // A file that cannot be removed stays behind as a stray file for the next gc.
            let _ = std::fs::remove_file(path);
        }
        Ok(())
    }
}
