//! A PostgreSQL transaction: a `BEGIN` of its own, or a savepoint inside a group's, and the
//! helpers every capability's statements run through.

use std::cell::RefCell;

use tokio_postgres::Row;

use super::conn::{Conn, Params};
use super::FETCH;
use crate::store::{Flow, Result, Seal, StoreError, Tx};

/// A transaction of its own, or a savepoint inside a group's.
pub(super) struct PgTx<'c> {
    pub(super) conn: RefCell<&'c mut Conn>,
    writable: bool,
    /// `Some(name)`: a savepoint inside a group's transaction.
    savepoint: Option<String>,
    done: bool,
    /// Run before the commit, in a savepoint ([`crate::store::Store::set_seal`]).
    seal: Option<&'c mut Seal>,
}

impl Drop for PgTx<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let conn = self.conn.get_mut();
        match &self.savepoint {
            None => {
                conn.quietly("ROLLBACK");
            }
            Some(name) => {
                // Once undone, the group's transaction is usable again; what it had read or
                // written may be undone too.
                // (A failure marks the connection's transaction failed.)
                let _ = conn.undo_savepoint(name);
                conn.known.forget();
            }
        }
    }
}

/// `$1, $2, … $n`.
pub(super) fn placeholders(n: usize) -> String {
    (1..=n).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ")
}

/// An SQL string literal (standard_conforming_strings is on for every connection).
pub(super) fn literal(s: &str) -> Result<String> {
    if s.contains('\0') {
        return Err(StoreError::Io("a text value contains a NUL character".into()));
    }
    Ok(format!("'{}'", s.replace('\'', "''")))
}

impl<'c> PgTx<'c> {
    /// A transaction of its own.
    pub(super) fn top(conn: &'c mut Conn, writable: bool) -> Self {
        Self { conn: RefCell::new(conn), writable, savepoint: None, done: false, seal: None }
    }

    /// Runs `seal` before the commit, in a savepoint.
    pub(super) fn sealed(mut self, seal: Option<&'c mut Seal>) -> Self {
        self.seal = seal;
        self
    }

    /// The savepoint `name`, just made inside a group's transaction.
    pub(super) fn nested(conn: &'c mut Conn, writable: bool, name: String) -> Self {
        Self { conn: RefCell::new(conn), writable, savepoint: Some(name), done: false, seal: None }
    }

    pub(super) fn check_writable(&self) -> Result<()> {
        if self.writable {
            Ok(())
        } else {
            Err(StoreError::Io("write attempted in a read-only transaction".into()))
        }
    }

    pub(super) fn all<T>(
        &self,
        sql: &str,
        params: Params<'_>,
        map: fn(&Row) -> Result<T>,
    ) -> Result<Vec<T>> {
        let rows = self.conn.borrow_mut().query(sql, params)?;
        rows.iter().map(map).collect()
    }

    pub(super) fn one<T>(
        &self,
        sql: &str,
        params: Params<'_>,
        map: fn(&Row) -> Result<T>,
    ) -> Result<Option<T>> {
        let row = self.conn.borrow_mut().query_opt(sql, params)?;
        row.as_ref().map(map).transpose()
    }

    pub(super) fn exec(&self, sql: &str, params: Params<'_>) -> Result<u64> {
        self.check_writable()?;
        self.conn.borrow_mut().execute(sql, params)
    }

    /// Inserts one row; none inserted (`ON CONFLICT DO NOTHING`) is [`StoreError::Duplicate`],
    /// and the transaction stays usable.
    pub(super) fn insert(&self, table: &str, cols: &str, params: Params<'_>) -> Result<()> {
        let sql = format!(
            "INSERT INTO {table} ({cols}) VALUES ({}) ON CONFLICT DO NOTHING",
            placeholders(params.len())
        );
        match self.exec(&sql, params)? {
            0 => Err(StoreError::Duplicate(format!("the {table} row exists already"))),
            _ => Ok(()),
        }
    }

    /// Streams the rows of `sql` through a cursor, [`FETCH`] at a time; the connection is free
    /// for other queries between fetches (callbacks read other rows while they stream).
    pub(super) fn stream<T>(
        &self,
        sql: &str,
        map: fn(&Row) -> Result<T>,
        f: &mut dyn FnMut(T) -> Flow,
    ) -> Result<()> {
        let name = {
            let mut conn = self.conn.borrow_mut();
            let name = format!("lc{}", conn.cursors);
            conn.batch(&format!("DECLARE {name} NO SCROLL CURSOR FOR {sql}"))?;
            conn.cursors += 1;
            name
        };
        let fetch = format!("FETCH {FETCH} FROM {name}");
        let result = (|| loop {
            let rows = self.conn.borrow_mut().query_unprepared(&fetch)?;
            let n = rows.len();
            for row in &rows {
                if f(map(row)?).is_break() {
                    return Ok(());
                }
            }
            if n < FETCH {
                return Ok(());
            }
        })();
        let mut conn = self.conn.borrow_mut();
        conn.cursors -= 1;
        if !conn.failed {
            conn.batch(&format!("CLOSE {name}"))?;
        }
        result
    }
}

impl Tx for PgTx<'_> {
    fn commit(mut self: Box<Self>) -> Result<()> {
        let conn = self.conn.get_mut();
        if conn.failed {
            // PostgreSQL would answer COMMIT with a silent ROLLBACK; Drop rolls back.
            return Err(StoreError::Io(
                "a statement of the transaction failed, so nothing was committed".into(),
            ));
        }
        if let Some(seal) = self.seal.take() {
            conn.begin_savepoint("seal");
            let keep = seal(self.as_mut());
            let conn = self.conn.get_mut();
            if keep && !conn.failed {
                conn.end_savepoint("seal")?;
            } else {
                // What the seal read or wrote is undone; the transaction is usable again.
                conn.undo_savepoint("seal")?;
                conn.known.forget();
            }
        }
        let conn = self.conn.get_mut();
        if let Some(name) = &self.savepoint {
            // Its writes are sent now (in an optimistic group, with the group's next round
            // trip), its release with the group's next statement; if they fail now, dropping
            // this undoes the savepoint.
            conn.end_savepoint(name)?;
            self.done = true;
            return Ok(());
        }
        let started = std::time::Instant::now();
        conn.commit().map_err(|e| super::conn::commit_outcome_unknown(conn, e))?;
        self.done = true;
        tracing::debug!(
            target: "locker::store",
            ms = started.elapsed().as_secs_f64() * 1e3,
            "PostgreSQL transaction committed"
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_quoted() {
        assert_eq!(literal("a'b").unwrap(), "'a''b'");
        assert!(literal("a\0b").is_err());
        assert_eq!(placeholders(3), "$1, $2, $3");
    }
}
