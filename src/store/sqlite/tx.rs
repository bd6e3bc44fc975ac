//! A SQLite transaction: a `BEGIN` of its own, or a savepoint inside a group's, and the blob
//! files it created or must remove.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, Row};

use super::error::SqlResult as _;
use crate::store::{Flow, Result, Seal, StoreError, Tx};

/// A transaction of its own, or a savepoint inside a group's.
pub(super) enum Handle<'c> {
    Top(rusqlite::Transaction<'c>),
    Nested(rusqlite::Savepoint<'c>),
}

impl std::ops::Deref for Handle<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        match self {
            Self::Top(t) => t,
            Self::Nested(s) => s,
        }
    }
}

pub(super) struct SqliteTx<'c> {
    // Declared first so that it is dropped (rolled back) before `created` removes its files.
    pub(super) tx: Handle<'c>,
    writable: bool,
    pub(super) objects: &'c Path,
    pub(super) created: CreatedFiles,
    /// Blob files whose rows this transaction deleted (or that no row names): removed once it
    /// commits. A crash in between leaves them as stray files for the next `locker gc`.
    pub(super) remove_on_commit: Vec<PathBuf>,
    /// In a group: where a committed savepoint hands its created and deleted files, so that
    /// they are dealt with when the group commits (or not).
    group: Option<&'c mut GroupFiles>,
    /// Run before the commit, in a savepoint ([`crate::store::Store::set_seal`]).
    seal: Option<&'c mut Seal>,
}

/// Blob files a write transaction created; removed again unless it commits. While the
/// transaction holds the write lock no other writer can come to rely on them, and no committed
/// row names them, so removing them is safe.
#[derive(Default)]
pub(super) struct CreatedFiles(pub(super) Vec<PathBuf>);

impl CreatedFiles {
    pub(super) fn keep(&mut self) {
        self.0.clear();
    }
}

impl Drop for CreatedFiles {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Blob files a group's committed savepoints created (removed unless the group commits) and
/// deleted rows of (removed once it commits).
#[derive(Default)]
pub(super) struct GroupFiles {
    pub(super) created: CreatedFiles,
    pub(super) remove: Vec<PathBuf>,
}

impl<'c> SqliteTx<'c> {
    /// A transaction of its own.
    pub(super) fn top(tx: rusqlite::Transaction<'c>, writable: bool, objects: &'c Path) -> Self {
        Self::new(Handle::Top(tx), writable, objects, None)
    }

    /// A savepoint inside a group's transaction, handing its files to the group's `files`.
    pub(super) fn nested(
        sp: rusqlite::Savepoint<'c>,
        writable: bool,
        objects: &'c Path,
        files: &'c mut GroupFiles,
    ) -> Self {
        Self::new(Handle::Nested(sp), writable, objects, Some(files))
    }

    fn new(
        tx: Handle<'c>,
        writable: bool,
        objects: &'c Path,
        group: Option<&'c mut GroupFiles>,
    ) -> Self {
        Self {
            tx,
            writable,
            objects,
            created: CreatedFiles::default(),
            remove_on_commit: Vec::new(),
            group,
            seal: None,
        }
    }

    /// Runs `seal` before the commit, in a savepoint.
    pub(super) fn sealed(mut self, seal: Option<&'c mut Seal>) -> Self {
        self.seal = seal;
        self
    }

    /// While on, SQLite overwrites everything it frees with zeros (free-list pages included,
    /// where FAST, the connection's default, zeroes only inside pages it writes anyway), so
    /// that what gc prunes leaves no copy (gc's checkpoint then truncates the write-ahead log).
    pub(super) fn secure_delete(&self, on: bool) -> Result<()> {
        let sql = if on { "PRAGMA secure_delete = ON" } else { "PRAGMA secure_delete = FAST" };
        self.tx.query_row(sql, [], |_| Ok(())).db()
    }

    pub(super) fn check_writable(&self) -> Result<()> {
        if self.writable {
            Ok(())
        } else {
            Err(StoreError::Io("write attempted in a read-only transaction".into()))
        }
    }

    /// Runs `sql` and hands its rows, mapped, to `f` one at a time until it breaks.
    pub(super) fn stream<T>(
        &self,
        sql: &str,
        params: &[&dyn rusqlite::ToSql],
        map: fn(&Row<'_>) -> rusqlite::Result<T>,
        f: &mut dyn FnMut(T) -> Flow,
    ) -> Result<()> {
        self.for_each_row(sql, params, &mut |row| Ok(f(map(row)?)))
    }

    /// Runs `sql` and hands its rows as SQLite holds them (what `f` reads of one may borrow
    /// from it) to `f` one at a time until it breaks; a row `f` cannot read is unreadable
    /// ([`super::rows::unreadable`] names it).
    pub(super) fn for_each_row(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        f: &mut dyn FnMut(&Row<'_>) -> rusqlite::Result<Flow>,
    ) -> Result<()> {
        let mut stmt = self.tx.prepare_cached(sql).db()?;
        let mut rows = stmt.query(params).db()?;
        while let Some(row) = rows.next().db()? {
            match f(row) {
                Ok(flow) if flow.is_break() => break,
                Ok(_) => {}
                Err(e) => return Err(super::rows::unreadable(sql, row, e)),
            }
        }
        Ok(())
    }

    /// Runs `sql` and collects its rows, mapped.
    pub(super) fn all<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        map: fn(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let mut out = Vec::new();
        self.for_each_row(sql, params, &mut |row| {
            out.push(map(row)?);
            Ok(Flow::Continue(()))
        })?;
        Ok(out)
    }

    /// Runs `sql` and maps its one row, if there is one.
    pub(super) fn one<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        map: fn(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Option<T>> {
        let mut out = None;
        self.for_each_row(sql, params, &mut |row| {
            out = Some(map(row)?);
            Ok(Flow::Break(()))
        })?;
        Ok(out)
    }

    /// Runs a statement that changes rows, in a write transaction; returns how many.
    pub(super) fn exec(&self, sql: &str, params: impl rusqlite::Params) -> Result<usize> {
        self.check_writable()?;
        self.tx.prepare_cached(sql).db()?.execute(params).db()
    }
}

impl Tx for SqliteTx<'_> {
    fn commit(mut self: Box<Self>) -> Result<()> {
        if let Some(seal) = self.seal.take() {
            self.tx.execute_batch("SAVEPOINT seal").db()?;
            let keep = seal(self.as_mut());
            let end = if keep { "RELEASE seal" } else { "ROLLBACK TO seal; RELEASE seal" };
            self.tx.execute_batch(end).db()?;
        }
        let SqliteTx { tx, mut created, mut remove_on_commit, group, .. } = *self;
        match tx {
            Handle::Top(t) => {
                let started = std::time::Instant::now();
                t.commit().db()?;
                tracing::debug!(
                    target: "locker::store",
                    ms = started.elapsed().as_secs_f64() * 1e3,
                    "SQLite transaction committed"
                );
            }
            Handle::Nested(s) => s.commit().db()?,
        }
        if let Some(g) = group {
            g.created.0.append(&mut created.0);
            g.remove.append(&mut remove_on_commit);
            return Ok(());
        }
        created.keep();
        for path in remove_on_commit {
            // A file that cannot be removed stays behind as a stray file for the next gc.
            let _ = std::fs::remove_file(path);
        }
        Ok(())
    }
}
