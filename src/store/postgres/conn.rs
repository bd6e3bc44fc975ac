//! A connection to PostgreSQL with its prepared statements, and PostgreSQL's errors as
//! [`StoreError`]s.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use postgres::types::ToSql;
use postgres::{Client, NoTls, Row, Statement};

use super::known::Known;
use super::url::{parse_url, redact, resolve_password, user_of};
use super::{JOURNAL_LOCK, LOCK_TIMEOUT_MS};
use crate::store::{Result, StoreError};

/// Runs `f` on a thread of its own when called from inside a Tokio runtime (the MCP server's
/// tool calls, a server dropping its stores at shutdown): the synchronous client drives its own
/// runtime, which cannot start inside another. A thread marked [`crate::store::blocking`] (a
/// `spawn_blocking` thread, where a runtime's handle is current but no task runs) runs `f`
/// itself: a thread per query cost every read of `locker serve` on PostgreSQL a spawn and a
/// join per statement.
fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if tokio::runtime::Handle::try_current().is_err() || crate::store::may_block() {
        return f();
    }
    std::thread::scope(|s| match s.spawn(f).join() {
        Ok(v) => v,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

/// Connects to the database a URL names.
pub fn connect(url: &str, password_file: Option<&Path>) -> Result<Client> {
    let mut cfg = parse_url(url)?;
    if cfg.get_user().is_none() {
        cfg.user(&user_of(&cfg));
    }
    if let Some(p) = resolve_password(&cfg, password_file)? {
        cfg.password(p);
    }
    if cfg.get_connect_timeout().is_none() {
        cfg.connect_timeout(Duration::from_secs(10));
    }
    let options = format!(
        "{} -c lock_timeout={LOCK_TIMEOUT_MS} -c standard_conforming_strings=on",
        cfg.get_options().unwrap_or("")
    );
    cfg.options(options.trim());
    if cfg.get_application_name().is_none() {
        cfg.application_name("locker");
    }
    let (_, tls) = super::tls::split_url(url)?;
    let connected = match super::tls::client_config(&tls)? {
        None => off_runtime(|| cfg.connect(NoTls)),
        Some(c) => {
            let tls = tokio_postgres_rustls::MakeRustlsConnect::new(c);
            off_runtime(|| cfg.connect(tls))
        }
    };
    connected.map_err(|e| {
        let detail = format!("cannot connect to PostgreSQL at {}: {}", redact(url), error_text(&e));
        // Nobody answered (refused, reset, timed out, shutting down): the database is
        // unavailable, and locker connects again later. Anything else (a password, a
        // database or a certificate refused) needs the user, not a retry.
        if is_connection_loss(&e) && !is_tls_failure(&e) {
            StoreError::Unreachable(detail)
        } else {
            StoreError::Io(detail)
        }
    })
}

fn error_text(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => db.message().to_owned(),
        None => {
            let mut s = e.to_string();
            let mut src = std::error::Error::source(e);
            while let Some(inner) = src {
                s = format!("{s}: {inner}");
                src = inner.source();
            }
            s
        }
    }
}

/// Whether `e` means the connection is gone (closed, reset, or the server shutting down or
/// restarting): the next transaction needs a new connection, and one that failed at its first
/// statement can run again on it.
fn is_connection_loss(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.as_db_error() {
        // connection_exception (08…), admin_shutdown, crash_shutdown, cannot_connect_now
        Some(db) => {
            let code = db.code().code();
            code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03")
        }
        // No answer from the server at all: an I/O error on the socket.
        None => std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>()),
    }
}

/// Whether `e` comes from the TLS handshake (rustls reports through an `InvalidData` I/O
/// error): a certificate refused is no outage.
fn is_tls_failure(e: &postgres::Error) -> bool {
    let mut src = std::error::Error::source(e);
    while let Some(inner) = src {
        if let Some(io) = inner.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::InvalidData {
                return true;
            }
        }
        if inner.is::<rustls::Error>() {
            return true;
        }
        src = inner.source();
    }
    false
}

/// Maps PostgreSQL failures that a user can act on to their own variants.
fn pg(e: postgres::Error) -> StoreError {
    if is_connection_loss(&e) {
        return StoreError::Unreachable(format!(
            "the connection to PostgreSQL was lost: {}",
            error_text(&e)
        ));
    }
    if let Some(db) = e.as_db_error() {
        return match db.code().code() {
            "23505" => StoreError::Duplicate(db.message().to_owned()),
            // serialization_failure, deadlock_detected, lock_not_available, query_canceled
            "40001" | "40P01" | "55P03" | "57014" => StoreError::Busy,
            "53100" => StoreError::DiskFull,
            "25006" => StoreError::ReadOnly,
            code => StoreError::Backend {
                backend: "PostgreSQL",
                detail: format!("{code}: {}", db.message()),
            },
        };
    }
    StoreError::Io(format!("PostgreSQL: {}", error_text(&e)))
}

/// The error of a `COMMIT` that failed: when the connection was lost during it, whether the
/// transaction committed cannot be known from here, and the error says so.
pub(super) fn commit_outcome_unknown(conn: &Conn, e: StoreError) -> StoreError {
    if !conn.is_lost() {
        return e;
    }
    StoreError::Unreachable(format!(
        "the connection to PostgreSQL was lost during COMMIT, so these writes may or may not \
         have been committed ({e}); retrying with the same idempotency key is safe"
    ))
}

/// A value that cannot be read as the row type says, as [`StoreError::Corrupt`].
pub(super) fn corrupt(e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(e.to_string())
}

/// One connection with its prepared statements.
pub(super) struct Conn {
    /// `None` only while being dropped.
    pub(super) client: Option<Client>,
    pub(super) cache: HashMap<String, Statement>,
    /// Cursors open in the current transaction (their names are `lc0`, `lc1`…).
    pub(super) cursors: usize,
    /// Savepoints made so far (their names are `ls1`, `ls2`…).
    pub(super) savepoints: u64,
    /// A statement of the open transaction failed: PostgreSQL refuses everything after it
    /// (until a rollback to a savepoint) and would turn a `COMMIT` into a silent `ROLLBACK`.
    pub(super) failed: bool,
    /// The connection is gone (see `is_connection_loss`): the next transaction reconnects.
    pub(super) lost: bool,
    /// Seconds to add to this host's clock to read the server's (see [`Conn::measure_clock`]).
    pub(super) clock_offset: i64,
    /// What the open write transaction has read or written (see [`Known`]).
    pub(super) known: Known,
    /// A savepoint committed but not yet released: its `RELEASE` goes in the same round trip
    /// as the next statement sent as text (the next `SAVEPOINT`), or before the next prepared
    /// one, and a `COMMIT` releases it with the rest. A failed release fails that statement,
    /// and with it the group (nothing of it is acknowledged before the group commits).
    pub(super) unreleased: Option<String>,
}

pub(super) type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

impl Conn {
    pub(super) fn new(client: Client) -> Self {
        Self {
            client: Some(client),
            cache: HashMap::new(),
            cursors: 0,
            savepoints: 0,
            failed: false,
            lost: false,
            clock_offset: 0,
            known: Known::default(),
            unreleased: None,
        }
    }

    fn client(&mut self) -> &mut Client {
        self.client.as_mut().expect("the client lives as long as its connection")
    }

    fn stmt(&mut self, sql: &str) -> Result<Statement> {
        if self.unreleased.is_some() {
            self.batch("")?;
        }
        if let Some(s) = self.cache.get(sql) {
            return Ok(s.clone());
        }
        let client = self.client();
        let s = off_runtime(|| client.prepare(sql)).map_err(|e| self.fail(e))?;
        self.cache.insert(sql.to_owned(), s.clone());
        Ok(s)
    }

    fn fail(&mut self, e: postgres::Error) -> StoreError {
        self.failed = true;
        self.lost |= is_connection_loss(&e);
        pg(e)
    }

    /// Measures how far the server's clock is from this host's (against the midpoint of the
    /// round trip, to the second), for journal times in the server's clock.
    pub(super) fn measure_clock(&mut self) -> Result<()> {
        let local = || {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64())
        };
        let before = local();
        let row = self.query_one("SELECT EXTRACT(EPOCH FROM clock_timestamp())::float8", &[])?;
        let after = local();
        let server: f64 = row.try_get(0).map_err(corrupt)?;
        self.clock_offset = (server - (before + after) / 2.0).round() as i64;
        Ok(())
    }

    /// Whether this connection is known to be gone.
    pub(super) fn is_lost(&self) -> bool {
        self.lost || self.client.as_ref().is_none_or(Client::is_closed)
    }

    pub(super) fn query(&mut self, sql: &str, params: Params<'_>) -> Result<Vec<Row>> {
        let st = self.stmt(sql)?;
        let client = self.client();
        off_runtime(|| client.query(&st, params)).map_err(|e| self.fail(e))
    }

    pub(super) fn query_opt(&mut self, sql: &str, params: Params<'_>) -> Result<Option<Row>> {
        let st = self.stmt(sql)?;
        let client = self.client();
        off_runtime(|| client.query_opt(&st, params)).map_err(|e| self.fail(e))
    }

    pub(super) fn query_one(&mut self, sql: &str, params: Params<'_>) -> Result<Row> {
        let st = self.stmt(sql)?;
        let client = self.client();
        off_runtime(|| client.query_one(&st, params)).map_err(|e| self.fail(e))
    }

    /// Runs a statement that is not worth preparing once for all (a cursor's `FETCH`, whose
    /// row type depends on the cursor).
    pub(super) fn query_unprepared(&mut self, sql: &str) -> Result<Vec<Row>> {
        let client = self.client();
        off_runtime(|| client.query(sql, &[])).map_err(|e| self.fail(e))
    }

    pub(super) fn execute(&mut self, sql: &str, params: Params<'_>) -> Result<u64> {
        let st = self.stmt(sql)?;
        let client = self.client();
        off_runtime(|| client.execute(&st, params)).map_err(|e| self.fail(e))
    }

    /// Runs `sql` as text (after the release of an unreleased savepoint, in one round trip).
    pub(super) fn batch(&mut self, sql: &str) -> Result<()> {
        let sql = match self.unreleased.take() {
            Some(name) => format!("RELEASE SAVEPOINT {name}; {sql}"),
            None => sql.to_owned(),
        };
        let client = self.client();
        off_runtime(|| client.batch_execute(&sql)).map_err(|e| self.fail(e))
    }

    /// Runs `sql` ignoring failures (a rollback on a connection that may be gone); a savepoint
    /// not yet released is rolled back with the rest.
    pub(super) fn quietly(&mut self, sql: &str) -> bool {
        self.unreleased = None;
        let client = self.client();
        off_runtime(|| client.batch_execute(sql)).is_ok()
    }

    /// Starts a read-only transaction on one snapshot.
    pub(super) fn begin_read(&mut self) -> Result<()> {
        self.failed = false;
        self.cursors = 0;
        self.unreleased = None;
        self.known.begin(false);
        self.batch("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    }

    /// Starts a write transaction holding the journal's lock.
    pub(super) fn begin_write(&mut self) -> Result<()> {
        self.failed = false;
        self.cursors = 0;
        self.unreleased = None;
        self.known.begin(true);
        let r = self.batch(&format!(
            "BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock({JOURNAL_LOCK})"
        ));
        if r.is_err() {
            self.quietly("ROLLBACK");
        }
        r
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        // Closing the client blocks on its own runtime: not inside another one.
        if tokio::runtime::Handle::try_current().is_ok() {
            if let Some(client) = self.client.take() {
                let _ = std::thread::spawn(move || drop(client)).join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::off_runtime;

    /// Where `off_runtime` runs its work, seen from a `spawn_blocking` thread: inline when the
    /// thread is marked [`crate::store::blocking`], on a thread of its own otherwise; and
    /// inline outside any runtime.
    #[test]
    fn a_marked_blocking_thread_runs_the_client_itself() {
        let me = || std::thread::current().id();
        assert_eq!(off_runtime(me), me(), "outside a runtime");
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .expect("a runtime");
        let (marked, unmarked) = rt.block_on(async move {
            tokio::task::spawn_blocking(move || {
                let here = me();
                let marked = crate::store::blocking(|| off_runtime(me)) == here;
                let unmarked = off_runtime(me) == here;
                (marked, unmarked)
            })
            .await
            .expect("joined")
        });
        assert!(marked, "a marked blocking thread runs the query itself");
        assert!(!unmarked, "an unmarked thread with a runtime handle hands it to a new thread");
    }
}
