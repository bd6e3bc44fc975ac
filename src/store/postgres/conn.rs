//! A connection to PostgreSQL with its prepared statements, and PostgreSQL's errors as
//! [`StoreError`]s.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use tokio::task::JoinHandle;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Error as PgError, NoTls, Row, Statement};

use super::known::{self, Known};
use super::url::{parse_url, redact, resolve_password, user_of};
use super::{JOURNAL_LOCK, LOCK_TIMEOUT_MS};
use crate::store::sql::{journal_head_row, merkle_row, setting_row, sql_i64, Columns as _};
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

/// Connects to the database a URL names: a client, and a runtime of its own that drives the
/// connection whenever the client waits for an answer (see [`Conn`]).
pub(super) fn connect(url: &str, password_file: Option<&Path>) -> Result<Conn> {
    let mut cfg = parse_url(url)?;
    if cfg.get_user().is_none() {
        cfg.user(user_of(&cfg));
    }
    if let Some(p) = resolve_password(&cfg, password_file)? {
        cfg.password(p);
    }
    if cfg.get_connect_timeout().is_none() {
        cfg.connect_timeout(Duration::from_secs(10));
    }
    let options = format!("{} -c standard_conforming_strings=on", cfg.get_options().unwrap_or(""));
    cfg.options(options.trim());
    if cfg.get_application_name().is_none() {
        cfg.application_name("locker");
    }
    let (_, tls) = super::tls::split_url(url)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| StoreError::Io(format!("cannot start PostgreSQL's client runtime: {e}")))?;
    let connected = match super::tls::client_config(&tls)? {
        None => off_runtime(|| {
            rt.block_on(cfg.connect(NoTls)).map(|(client, c)| (client, rt.spawn(drive(c))))
        }),
        Some(c) => {
            let tls = tokio_postgres_rustls::MakeRustlsConnect::new(c);
            off_runtime(|| {
                rt.block_on(cfg.connect(tls)).map(|(client, c)| (client, rt.spawn(drive(c))))
            })
        }
    };
    let (client, driver) = connected.map_err(|e| {
        let detail = format!("cannot connect to PostgreSQL at {}: {}", redact(url), error_text(&e));
        // Nobody answered (refused, reset, timed out, shutting down): the database is
        // unavailable, and locker connects again later. Anything else (a password, a
        // database or a certificate refused) needs the user, not a retry.
        if is_connection_loss(&e) && !is_tls_failure(&e) {
            StoreError::Unreachable(detail)
        } else {
            StoreError::Io(detail)
        }
    })?;
    Ok(Conn::new(client, rt, driver))
}

/// Runs a connection until it closes (its client dropped, or the server gone); notices are
/// logged.
async fn drive<S, T>(connection: tokio_postgres::Connection<S, T>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    if let Err(e) = connection.await {
        tracing::debug!(target: "locker::store", "the PostgreSQL connection ended: {e}");
    }
}

fn error_text(e: &tokio_postgres::Error) -> String {
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
fn is_connection_loss(e: &tokio_postgres::Error) -> bool {
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
fn is_tls_failure(e: &tokio_postgres::Error) -> bool {
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
fn pg(e: tokio_postgres::Error) -> StoreError {
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

/// How long closing a connection waits for the server to see it closed.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// Most statements waiting for a round trip (see [`Conn::defer`]).
const MAX_PENDING: usize = 64;

/// A statement not sent yet: it goes out in the round trip of the next statement whose answer
/// is needed, before it and in order (see [`Conn`]).
enum Deferred {
    /// `SAVEPOINT name`: a savepoint that has sent nothing yet.
    Savepoint(String),
    /// `RELEASE SAVEPOINT name`: a savepoint committed inside a group.
    Release(String),
    /// A write whose only answer is whether it failed (an append's block and journal entry).
    Write(Write),
}

/// A write waiting for a round trip.
pub(super) struct Write {
    st: Statement,
    params: OwnedParams,
    /// What a division by zero in it means (a statement's way of refusing itself).
    refused: Option<&'static str>,
    /// What it is, for [`Conn::take_deferred`].
    tag: &'static str,
    /// Its savepoint ended without waiting for it (see [`Conn::optimistic`]): a failure is no
    /// longer the operation's that is running when it is answered.
    ahead: bool,
}

/// One statement of a round trip.
enum Req<'a> {
    /// Sent as a simple query (one or more statements, no parameters).
    Text(String),
    /// A prepared statement, answered by its row count.
    Exec(&'a Statement, Vec<&'a (dyn ToSql + Sync)>),
    /// A prepared statement, answered by its rows.
    Query(&'a Statement, Params<'a>),
    /// Prepared and run at once (two messages apart): only ever the last of a round trip.
    Unprepared(&'a str),
}

/// The answer to one [`Req`].
enum Out {
    Done,
    Count(u64),
    Rows(Vec<Row>),
}

/// Sends every request of `reqs` at once, in order, and waits for all their answers: one round
/// trip however many there are. `tokio_postgres` sends a request when its future is first
/// polled, and the futures are first polled in order.
async fn in_order(client: &Client, reqs: &[Req<'_>]) -> Vec<std::result::Result<Out, PgError>> {
    type Answer<'f> = Pin<Box<dyn Future<Output = std::result::Result<Out, PgError>> + 'f>>;
    let mut futures: Vec<Answer<'_>> = reqs
        .iter()
        .map(|r| -> Answer<'_> {
            match r {
                Req::Text(sql) => {
                    Box::pin(async move { client.batch_execute(sql).await.map(|()| Out::Done) })
                }
                Req::Exec(st, p) => {
                    Box::pin(async move { client.execute(*st, p).await.map(Out::Count) })
                }
                Req::Query(st, p) => {
                    Box::pin(async move { client.query(*st, p).await.map(Out::Rows) })
                }
                Req::Unprepared(sql) => {
                    Box::pin(async move { client.query(*sql, &[]).await.map(Out::Rows) })
                }
            }
        })
        .collect();
    let mut outs: Vec<Option<std::result::Result<Out, PgError>>> =
        futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut waiting = false;
        for (f, out) in futures.iter_mut().zip(outs.iter_mut()) {
            if out.is_none() {
                match f.as_mut().poll(cx) {
                    Poll::Ready(r) => *out = Some(r),
                    Poll::Pending => waiting = true,
                }
            }
        }
        if waiting {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    outs.into_iter().map(|o| o.expect("every request was answered")).collect()
}

/// `seq, hash, subject` of a journal entry, for [`known::Since`].
fn since_row(r: &Row) -> Result<(u64, crate::domain::digest::Digest, String)> {
    Ok((r.uint(0)?, r.chain_hash(1)?, r.text(2)?))
}

/// One connection with its prepared statements.
///
/// The client is `tokio_postgres`'s, driven by a single-threaded runtime of the connection's
/// own while it waits for an answer, so that several statements can share one round trip
/// (pipelining): statements whose answer is not needed at once wait in `pending` and go out
/// with the next statement whose answer is. Within a group commit a request's `SAVEPOINT`
/// goes out with its first read, the previous request's `RELEASE` before it, and an append's
/// block and journal entry in one statement. In an [`optimistic`](Conn::optimistic) group
/// (the usual case) an ended request's writes wait for the next round trip, the group's
/// `COMMIT` at the latest: a group of appends whose pads are known from an earlier
/// transaction (see [`Known`]) is two round trips in all. Otherwise each request's writes
/// go out when its savepoint ends, so that a failure is reported to the request that
/// caused it.
pub(super) struct Conn {
    /// `None` only while being dropped.
    client: Option<Client>,
    /// Drives the connection (`None` only while being dropped).
    rt: Option<tokio::runtime::Runtime>,
    /// The task running the connection, awaited when closing.
    driver: Option<tokio::task::JoinHandle<()>>,
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
    /// Seconds to add to this host's clock to read the server's (see [`Conn::begin_session`]).
    pub(super) clock_offset: i64,
    /// What the open write transaction has read or written (see [`Known`]).
    pub(super) known: Known,
    /// Statements not sent yet, in order (see [`Deferred`]).
    pending: Vec<Deferred>,
    /// The open transaction is a group's that sends ahead: an ended savepoint's writes wait
    /// for the next round trip (the group's `COMMIT`, at the latest) instead of one of their
    /// own. A group of appends is then a `BEGIN` round trip and a `COMMIT` round trip, which
    /// is also all the time it holds the journal's lock. The price: a write that fails there
    /// fails the whole group, which then runs again with this off ([`Conn::run_again`]), so
    /// that each failure is still only its own operation's.
    pub(super) optimistic: bool,
    /// A write sent ahead failed: the group that sent it must run again, waiting for each
    /// operation's writes.
    pub(super) run_again: bool,
}

pub(super) type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

/// The parameters of a statement sent later.
pub(super) type OwnedParams = Vec<Box<dyn ToSql + Sync + Send>>;

impl Conn {
    fn new(client: Client, rt: tokio::runtime::Runtime, driver: JoinHandle<()>) -> Self {
        Self {
            client: Some(client),
            rt: Some(rt),
            driver: Some(driver),
            cache: HashMap::new(),
            cursors: 0,
            savepoints: 0,
            failed: false,
            lost: false,
            clock_offset: 0,
            known: Known::default(),
            pending: Vec::new(),
            optimistic: false,
            run_again: false,
        }
    }

    fn stmt(&mut self, sql: &str) -> Result<Statement> {
        if let Some(s) = self.cache.get(sql) {
            return Ok(s.clone());
        }
        // Preparing changes nothing, so it need not wait for what is pending.
        let (client, rt) = self.parts();
        let s = off_runtime(|| rt.block_on(client.prepare(sql))).map_err(|e| self.fail(e))?;
        self.cache.insert(sql.to_owned(), s.clone());
        Ok(s)
    }

    fn parts(&self) -> (&Client, &tokio::runtime::Runtime) {
        match (&self.client, &self.rt) {
            (Some(c), Some(rt)) => (c, rt),
            _ => unreachable!("the client lives as long as its connection"),
        }
    }

    fn fail(&mut self, e: PgError) -> StoreError {
        self.failed = true;
        self.lost |= is_connection_loss(&e);
        pg(e)
    }

    /// Sends what is pending, then `now`, in one round trip, and returns the answers to `now`.
    /// The first failure in order is the error (a statement after a failed one fails only
    /// because the transaction is aborted).
    fn round_trip(&mut self, now: Vec<Req<'_>>) -> Result<Vec<Out>> {
        let pending = std::mem::take(&mut self.pending);
        let mut reqs: Vec<Req<'_>> = Vec::with_capacity(pending.len() + now.len());
        // What a request refusing itself means, and whether it was sent ahead of an ended
        // savepoint, by position.
        let mut refusals: Vec<Option<&'static str>> = Vec::new();
        let mut sent_ahead: Vec<bool> = Vec::new();
        let mut text = String::new();
        for d in &pending {
            match d {
                Deferred::Savepoint(name) => text.push_str(&format!("SAVEPOINT {name}; ")),
                Deferred::Release(name) => text.push_str(&format!("RELEASE SAVEPOINT {name}; ")),
                Deferred::Write(w) => {
                    if !text.is_empty() {
                        reqs.push(Req::Text(std::mem::take(&mut text)));
                        refusals.push(None);
                        sent_ahead.push(false);
                    }
                    refusals.push(w.refused);
                    sent_ahead.push(w.ahead);
                    reqs.push(Req::Exec(&w.st, w.params.iter().map(|p| &**p as _).collect()));
                }
            }
        }
        // A text statement now goes in the same simple query as trailing savepoints' text.
        let mut now = now.into_iter().peekable();
        let merged = matches!(now.peek(), Some(Req::Text(_)));
        if let (true, Some(Req::Text(sql))) = (merged, now.peek()) {
            text.push_str(sql);
        }
        if merged {
            now.next();
        }
        let ahead = reqs.len() + usize::from(!text.is_empty() && !merged);
        if !text.is_empty() {
            reqs.push(Req::Text(text));
        }
        reqs.extend(now);
        if reqs.is_empty() {
            return Ok(Vec::new());
        }
        let (client, rt) = self.parts();
        let answers = off_runtime(|| rt.block_on(in_order(client, &reqs)));
        drop(reqs);
        let mut outs = Vec::with_capacity(answers.len().saturating_sub(ahead));
        for (i, a) in answers.into_iter().enumerate() {
            match a {
                Err(e) => {
                    let e = self.fail(e);
                    // A write of an operation that has ended: the operation running now is
                    // not the one that failed. The group runs again, waiting for each write.
                    self.run_again |= sent_ahead.get(i).copied().unwrap_or(false);
                    return Err(match (refusals.get(i).copied().flatten(), &e) {
                        (Some(why), StoreError::Backend { detail, .. })
                            if detail.starts_with("22012") =>
                        {
                            StoreError::Io(why.to_owned())
                        }
                        _ => e,
                    });
                }
                Ok(out) if i >= ahead => outs.push(out),
                Ok(_) => {}
            }
        }
        Ok(outs)
    }

    /// A writing session's first statement. Measures how far the server's clock is from this
    /// host's (against the midpoint of the round trip, to the second), for journal times in
    /// the server's clock; and sets how long a statement waits for a lock (the journal's, as a
    /// write transaction begins) to locker's default where nothing set one (the server's
    /// configuration, the database, the role or the URL's `options`: a `lock_timeout` of 0
    /// set there, waiting for ever, is kept too).
    pub(super) fn begin_session(&mut self) -> Result<()> {
        let local = || {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64())
        };
        let sql = format!(
            "SELECT EXTRACT(EPOCH FROM clock_timestamp())::float8, set_config('lock_timeout', \
             CASE source WHEN 'default' THEN '{LOCK_TIMEOUT_MS}ms' ELSE setting END, false) \
             FROM pg_settings WHERE name = 'lock_timeout'"
        );
        let before = local();
        let row = self.query_one(&sql, &[])?;
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
        rows(self.round_trip(vec![Req::Query(&st, params)])?)
    }

    pub(super) fn query_opt(&mut self, sql: &str, params: Params<'_>) -> Result<Option<Row>> {
        let mut rows = self.query(sql, params)?;
        if rows.len() > 1 {
            self.failed = true;
            return Err(StoreError::Io(format!(
                "PostgreSQL: a query answered {} rows where at most one was expected",
                rows.len()
            )));
        }
        Ok(rows.pop())
    }

    pub(super) fn query_one(&mut self, sql: &str, params: Params<'_>) -> Result<Row> {
        self.query_opt(sql, params)?.ok_or_else(|| {
            self.failed = true;
            StoreError::Io("PostgreSQL: a query answered no row where one was expected".into())
        })
    }

    /// Runs a statement that is not worth preparing once for all (a cursor's `FETCH`, whose
    /// row type depends on the cursor).
    pub(super) fn query_unprepared(&mut self, sql: &str) -> Result<Vec<Row>> {
        rows(self.round_trip(vec![Req::Unprepared(sql)])?)
    }

    pub(super) fn execute(&mut self, sql: &str, params: Params<'_>) -> Result<u64> {
        let st = self.stmt(sql)?;
        let params = params.to_vec();
        match self.round_trip(vec![Req::Exec(&st, params)])?.pop() {
            Some(Out::Count(n)) => Ok(n),
            _ => Ok(0),
        }
    }

    /// Queues a write to go out with the next statement sent, at the latest when the
    /// transaction or savepoint it belongs to ends; its failure is reported then, and fails
    /// the transaction. `refused`: what the statement dividing by zero means (its way of
    /// refusing itself); `tag`: what it is, for [`Conn::take_deferred`].
    pub(super) fn defer(
        &mut self,
        sql: &str,
        params: OwnedParams,
        refused: Option<&'static str>,
        tag: &'static str,
    ) -> Result<()> {
        let st = self.stmt(sql)?;
        self.pending.push(Deferred::Write(Write { st, params, refused, tag, ahead: false }));
        // A bulk load (`store copy`) does not pile its rows up: a round trip at most every
        // so many writes.
        if self.pending.len() >= MAX_PENDING {
            self.round_trip(Vec::new())?;
        }
        Ok(())
    }

    /// Takes back the parameters of the last write queued, if it was queued as `tag` and
    /// nothing was queued after it: the caller sends them in a statement of its own instead
    /// (an append's block with its journal entry, one statement for both).
    pub(super) fn take_deferred(
        &mut self,
        tag: &str,
    ) -> Option<(OwnedParams, Option<&'static str>)> {
        match self.pending.last() {
            Some(Deferred::Write(w)) if w.tag == tag => {}
            _ => return None,
        }
        match self.pending.pop() {
            Some(Deferred::Write(w)) => Some((w.params, w.refused)),
            _ => None,
        }
    }

    /// Runs `sql` as text (after what is pending, in one round trip).
    pub(super) fn batch(&mut self, sql: &str) -> Result<()> {
        self.round_trip(vec![Req::Text(sql.to_owned())]).map(drop)
    }

    /// Runs `sql` ignoring failures (a rollback on a connection that may be gone); nothing
    /// pending is sent: a rollback undoes it anyway.
    pub(super) fn quietly(&mut self, sql: &str) -> bool {
        self.pending.clear();
        self.round_trip(vec![Req::Text(sql.to_owned())]).is_ok()
    }

    /// Begins savepoint `name`: its `SAVEPOINT` goes out with its first statement.
    pub(super) fn begin_savepoint(&mut self, name: &str) {
        self.pending.push(Deferred::Savepoint(name.to_owned()));
    }

    /// Ends savepoint `name`, keeping what it did: its writes are sent now, so that a failure
    /// is its own; its `RELEASE` goes out with the next statement (a `COMMIT` releases it with
    /// the rest). A savepoint that sent nothing and wrote nothing simply never existed.
    ///
    /// In an [`optimistic`](Conn::optimistic) group the writes wait for the next round trip
    /// instead, marked as sent ahead; a savepoint that sent nothing yet then never exists
    /// either (its writes are the group's).
    pub(super) fn end_savepoint(&mut self, name: &str) -> Result<()> {
        let unsent = self.unsent(name);
        if let Some(at) = unsent {
            if at + 1 == self.pending.len() {
                self.pending.pop();
                return Ok(());
            }
        }
        if self.optimistic {
            // Everything pending from its `SAVEPOINT` on is its own (when that was sent, so
            // was everything before it).
            let from = unsent.unwrap_or(0);
            for d in &mut self.pending[from..] {
                if let Deferred::Write(w) = d {
                    w.ahead = true;
                }
            }
            match unsent {
                Some(at) => {
                    self.pending.remove(at);
                }
                None => self.pending.push(Deferred::Release(name.to_owned())),
            }
            return Ok(());
        }
        if self.pending.iter().any(|d| matches!(d, Deferred::Write(_))) {
            self.round_trip(Vec::new())?;
        }
        self.pending.push(Deferred::Release(name.to_owned()));
        Ok(())
    }

    /// Undoes savepoint `name` and what it did: the transaction it was in is usable again,
    /// unless this fails. Nothing of it that is still pending is sent.
    pub(super) fn undo_savepoint(&mut self, name: &str) -> Result<()> {
        if let Some(at) = self.unsent(name) {
            self.pending.truncate(at);
            // Nothing of it reached the server: a failure before it is the transaction's.
            if self.failed {
                return Err(StoreError::Io(
                    "a statement of the transaction failed, so nothing was committed".into(),
                ));
            }
            return Ok(());
        }
        // Sent: so is everything before it, and what is pending is its own.
        self.pending.clear();
        self.batch(&format!("ROLLBACK TO SAVEPOINT {name}; RELEASE SAVEPOINT {name}"))?;
        self.failed = false;
        Ok(())
    }

    /// Where savepoint `name`'s `SAVEPOINT` waits, if it was not sent yet.
    fn unsent(&self, name: &str) -> Option<usize> {
        self.pending.iter().rposition(|d| matches!(d, Deferred::Savepoint(n) if n == name))
    }

    /// Commits the open transaction, with what is pending in the same round trip (a
    /// savepoint's `RELEASE` is not sent: `COMMIT` releases it). A pending write that fails
    /// makes PostgreSQL roll the transaction back, and its error is the commit's.
    pub(super) fn commit(&mut self) -> Result<()> {
        self.pending.retain(|d| !matches!(d, Deferred::Release(_)));
        self.batch("COMMIT")?;
        self.known.committed();
        Ok(())
    }

    /// Starts a read-only transaction on one snapshot.
    pub(super) fn begin_read(&mut self) -> Result<()> {
        self.failed = false;
        self.optimistic = false;
        self.cursors = 0;
        self.pending.clear();
        self.known.begin(false);
        self.batch("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    }

    /// Starts a write transaction holding the journal's lock, and reads what every write
    /// reads first (the journal's head, the Merkle tree's size and the settings) in the same
    /// round trip.
    pub(super) fn begin_write(&mut self) -> Result<()> {
        self.failed = false;
        self.optimistic = false;
        self.cursors = 0;
        self.pending.clear();
        self.known.begin(true);
        let r = self.begin_write_reading();
        if r.is_err() {
            self.quietly("ROLLBACK");
        }
        r
    }

    fn begin_write_reading(&mut self) -> Result<()> {
        let head = self.stmt("SELECT seq, hash FROM journal_head WHERE id = 1")?;
        let count = self.stmt("SELECT MAX(idx) FROM merkle_hashes")?;
        let settings = self.stmt("SELECT name, value FROM repo_settings")?;
        let entries = self
            .stmt("SELECT seq, hash, subject FROM journal WHERE seq >= $1 ORDER BY seq LIMIT $2")?;
        let hashes =
            self.stmt("SELECT idx, hash FROM merkle_hashes WHERE idx >= $1 ORDER BY idx LIMIT $2")?;
        let begin = format!(
            "BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock({JOURNAL_LOCK})"
        );
        // What others journaled since this connection's last commit, if it kept anything.
        let from = self.known.catch_up_from();
        let (seq, tree) = from.map_or((0, 0), |(s, n)| (sql_i64(s), sql_i64(n)));
        let (n_entries, n_hashes) =
            (sql_i64(known::CATCH_UP_ENTRIES + 1), sql_i64(known::CATCH_UP_HASHES));
        let entries_params: [&(dyn ToSql + Sync); 2] = [&seq, &n_entries];
        let hashes_params: [&(dyn ToSql + Sync); 2] = [&tree, &n_hashes];
        let mut reqs = vec![
            Req::Text(begin),
            Req::Query(&head, &[]),
            Req::Query(&count, &[]),
            Req::Query(&settings, &[]),
        ];
        if from.is_some() {
            reqs.push(Req::Query(&entries, &entries_params));
            reqs.push(Req::Query(&hashes, &hashes_params));
        }
        let mut outs = self.round_trip(reqs)?.into_iter().skip(1);
        let mut next = || rows(outs.next().into_iter().collect());
        let head = next()?.first().map(journal_head_row).transpose()?;
        let count = next()?;
        let settings = next()?;
        let since = match from {
            Some(_) => Some(known::Since {
                entries: next()?.iter().map(since_row).collect::<Result<_>>()?,
                hashes: next()?.iter().map(merkle_row).collect::<Result<_>>()?,
            }),
            None => None,
        };
        self.known.confirm(head, since);
        let count = match count.first() {
            Some(r) => r.opt_int(0)?.and_then(|n| u64::try_from(n + 1).ok()).unwrap_or(0),
            None => 0,
        };
        self.known.set_merkle_count(count);
        let settings = settings.iter().map(setting_row).collect::<Result<Vec<_>>>()?;
        self.known.set_all_settings(settings);
        Ok(())
    }
}

/// The rows of a round trip's one answer.
fn rows(mut outs: Vec<Out>) -> Result<Vec<Row>> {
    match outs.pop() {
        Some(Out::Rows(rows)) => Ok(rows),
        _ => Err(StoreError::Io("PostgreSQL: a query answered no rows".into())),
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        // Statements are closed and the connection told to end (the client dropped), then
        // the connection's task is run until it has said goodbye.
        self.pending.clear();
        self.cache.clear();
        let (client, rt, driver) = (self.client.take(), self.rt.take(), self.driver.take());
        let close = move || {
            drop(client);
            if let (Some(rt), Some(driver)) = (rt, driver) {
                let _ = rt.block_on(async { tokio::time::timeout(CLOSE_WAIT, driver).await });
            }
        };
        // Blocking on a runtime is not allowed inside another one.
        if tokio::runtime::Handle::try_current().is_ok() {
            let _ = std::thread::spawn(close).join();
        } else {
            close();
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
