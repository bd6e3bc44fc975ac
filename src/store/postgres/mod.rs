//! The PostgreSQL store: several `locker serve` processes (on several hosts) sharing one
//! repository.
//!
//! Every write transaction is `BEGIN` followed at once by `pg_advisory_xact_lock` on the
//! journal's key, in the same round trip: the lock is transaction-scoped (released by `COMMIT`
//! or `ROLLBACK`, never by a statement's end, the peer's fork in
//! `reference/agentstate-and-ledger-client.md` A.9 #2), and every writer takes it before its
//! first read, so the journal head, the next sequence number, each pad's head and each lease's
//! holder are read and written by one writer at a time across every server. Appending to a pad
//! also takes that pad's own transaction-scoped lock. Under that lock `READ COMMITTED` sees
//! every earlier commit, so no write can fork a chain or win a compare-and-swap twice; the
//! primary keys (journal sequence, block sequence, one active lease per work item) refuse a
//! fork even if the lock were bypassed.
//!
//! Read transactions are `REPEATABLE READ READ ONLY`: one snapshot, taking no lock. Inserts
//! that can meet an existing row use `ON CONFLICT DO NOTHING` and report
//! [`StoreError::Duplicate`] without aborting the caller's transaction (the peer's
//! `InFailedSQLTransaction`, A.9 #3); a statement that fails anyway marks the transaction
//! failed, and committing it is an error, never PostgreSQL's silent `ROLLBACK`.
//!
//! Blobs live in the database (`BYTEA`), whatever their size. The schema is versioned by
//! append-only migrations recorded in `locker_schema`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use postgres::types::ToSql;
use postgres::{Client, NoTls, Row, Statement};

use super::{
    AgentKeyRow, AgentRow, ArtifactHeadRow, ArtifactQuery, ArtifactVersionRow, BlobFiles, BlobRow,
    BlobStorage, BlockRow, CheckpointRow, Counts, Flow, Group, JournalHead, JournalQuery,
    JournalRow, LeaseQuery, LeaseRow, Maintenance, PadQuery, PadRow, PaymentRow, PlanRow,
    ReceiptRow, Result, Savepoints, StepRow, Store, StoreError, StoreInfo, TicketRow, Tx,
};
use crate::domain::digest::Digest;
use crate::domain::pad::{StoredState, TicketType};
use crate::domain::work::{Fence, LeaseState};

/// Append-only migrations; the schema version is their count, recorded in `locker_schema`.
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/0001_init.sql"),
    include_str!("migrations/0002_work_retention.sql"),
    include_str!("migrations/0003_merkle_and_keys.sql"),
];

/// The schema version this binary writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The advisory lock of the journal (ASCII `lockerJL`): every write transaction takes it first.
const JOURNAL_LOCK: i64 = 0x6C6F_636B_6572_4A4C;
/// The advisory lock migrations run under (ASCII `lockerMG`).
const MIGRATION_LOCK: i64 = 0x6C6F_636B_6572_4D47;
/// The first half of a pad's two-key advisory lock (ASCII `lp`); the second is a hash of its id.
const PAD_LOCK_CLASS: i32 = 0x6C70;

/// How long a writer waits for the write lock before giving up with [`StoreError::Busy`].
const LOCK_TIMEOUT_MS: u64 = 60_000;
/// Rows fetched at a time when streaming.
const FETCH: usize = 128;

/// Runs `f` on a thread of its own when called from inside a Tokio runtime (the MCP server's
/// tool calls, a server dropping its stores at shutdown): the synchronous client drives its own
/// runtime, which cannot start inside another.
fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    std::thread::scope(|s| match s.spawn(f).join() {
        Ok(v) => v,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

/// Whether a store URL names a PostgreSQL database.
pub fn is_url(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// Parses a store URL; a password in it is refused (it would end up in `config.json`,
/// process listings and shell histories).
pub fn parse_url(url: &str) -> Result<postgres::Config> {
    if !is_url(url) {
        return Err(StoreError::Io(format!(
            "`{}` is not a PostgreSQL URL (postgres://USER@HOST:PORT/DATABASE)",
            redact(url)
        )));
    }
    let cfg: postgres::Config = url.parse().map_err(|e| {
        StoreError::Io(format!("the PostgreSQL URL `{}` is malformed: {e}", redact(url)))
    })?;
    if cfg.get_password().is_some() {
        return Err(StoreError::Io(format!(
            "the PostgreSQL URL `{}` carries a password; give it in PGPASSWORD or a password \
             file (--store-password-file) instead",
            redact(url)
        )));
    }
    Ok(cfg)
}

/// A URL with any password replaced by `***`, for messages.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let (auth_end, _) =
        rest.char_indices().find(|&(_, c)| c == '/' || c == '?').unwrap_or((rest.len(), ' '));
    let (authority, tail) = rest.split_at(auth_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

/// The password to connect with: from `password_file` (its first line), else `PGPASSWORD`,
/// else the `PGPASSFILE` or `~/.pgpass` entry matching the connection, as libpq does.
pub fn resolve_password(
    cfg: &postgres::Config,
    password_file: Option<&Path>,
) -> Result<Option<Vec<u8>>> {
    if let Some(path) = password_file {
        let text = std::fs::read_to_string(path).map_err(|e| {
            StoreError::Io(format!("cannot read the password file {}: {e}", path.display()))
        })?;
        let line = text.lines().next().unwrap_or("");
        return Ok(Some(line.as_bytes().to_vec()));
    }
    if let Some(p) = std::env::var_os("PGPASSWORD") {
        return Ok(Some(p.into_encoded_bytes()));
    }
    let passfile = std::env::var_os("PGPASSFILE")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".pgpass")));
    let Some(passfile) = passfile else { return Ok(None) };
    let Ok(text) = std::fs::read_to_string(&passfile) else { return Ok(None) };
    let host = match cfg.get_hosts().first() {
        Some(postgres::config::Host::Tcp(h)) => h.clone(),
        _ => "localhost".to_owned(),
    };
    let port = cfg.get_ports().first().copied().unwrap_or(5432).to_string();
    let user = user_of(cfg);
    let db = cfg.get_dbname().map_or_else(|| user.clone(), str::to_owned);
    for line in text.lines() {
        if line.starts_with('#') {
            continue;
        }
        let fields = split_pgpass(line);
        if fields.len() != 5 {
            continue;
        }
        let want = [&host, &port, &db, &user];
        if fields.iter().zip(want).all(|(f, w)| f == "*" || f == w) {
            return Ok(Some(fields[4].as_bytes().to_vec()));
        }
    }
    Ok(None)
}

/// A `.pgpass` line's fields (`:` separated, `\:` and `\\` escaped).
fn split_pgpass(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    out.last_mut().expect("never empty").push(n);
                }
            }
            ':' => out.push(String::new()),
            c => out.last_mut().expect("never empty").push(c),
        }
    }
    out
}

fn user_of(cfg: &postgres::Config) -> String {
    cfg.get_user()
        .map(str::to_owned)
        .or_else(|| std::env::var("PGUSER").ok())
        .or_else(|| std::env::var("USER").ok())
        .unwrap_or_else(|| "postgres".to_owned())
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
    off_runtime(|| cfg.connect(NoTls)).map_err(|e| {
        StoreError::Io(format!(
            "cannot connect to PostgreSQL at {}: {}",
            redact(url),
            error_text(&e)
        ))
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

/// Maps PostgreSQL failures that a user can act on to their own variants.
fn pg(e: postgres::Error) -> StoreError {
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

/// One connection with its prepared statements.
struct Conn {
    /// `None` only while being dropped.
    client: Option<Client>,
    cache: HashMap<String, Statement>,
    /// Cursors open in the current transaction (their names are `lc0`, `lc1`…).
    cursors: usize,
    /// Savepoints made so far (their names are `ls1`, `ls2`…).
    savepoints: u64,
    /// A statement of the open transaction failed: PostgreSQL refuses everything after it
    /// (until a rollback to a savepoint) and would turn a `COMMIT` into a silent `ROLLBACK`.
    failed: bool,
}

type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

impl Conn {
    fn new(client: Client) -> Self {
        Self {
            client: Some(client),
            cache: HashMap::new(),
            cursors: 0,
            savepoints: 0,
            failed: false,
        }
    }

    fn client(&mut self) -> &mut Client {
        self.client.as_mut().expect("the client lives as long as its connection")
    }

    fn stmt(&mut self, sql: &str) -> Result<Statement> {
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
        pg(e)
    }

    fn query(&mut self, sql: &str, params: Params<'_>) -> Result<Vec<Row>> {
        let st = self.stmt(sql)?;
        let client = self.client();
        off_runtime(|| client.query(&st, params)).map_err(|e| self.fail(e))
    }

    fn query_opt(&mut self, sql: &str, params: Params<'_>) -> Result<Option<Row>> {
        let st = self.stmt(sql)?;
        let client = self.client();
        off_runtime(|| client.query_opt(&st, params)).map_err(|e| self.fail(e))
    }

    fn query_one(&mut self, sql: &str, params: Params<'_>) -> Result<Row> {
        let st = self.stmt(sql)?;
        let client = self.client();
        off_runtime(|| client.query_one(&st, params)).map_err(|e| self.fail(e))
    }

    /// Runs a statement that is not worth preparing once for all (a cursor's `FETCH`, whose
    /// row type depends on the cursor).
    fn query_unprepared(&mut self, sql: &str) -> Result<Vec<Row>> {
        let client = self.client();
        off_runtime(|| client.query(sql, &[])).map_err(|e| self.fail(e))
    }

    fn execute(&mut self, sql: &str, params: Params<'_>) -> Result<u64> {
        let st = self.stmt(sql)?;
        let client = self.client();
        off_runtime(|| client.execute(&st, params)).map_err(|e| self.fail(e))
    }

    fn batch(&mut self, sql: &str) -> Result<()> {
        let client = self.client();
        off_runtime(|| client.batch_execute(sql)).map_err(|e| self.fail(e))
    }

    /// Runs `sql` ignoring failures (a rollback on a connection that may be gone).
    fn quietly(&mut self, sql: &str) -> bool {
        let client = self.client();
        off_runtime(|| client.batch_execute(sql)).is_ok()
    }

    /// Starts a write transaction holding the journal's lock.
    fn begin_write(&mut self) -> Result<()> {
        self.failed = false;
        self.cursors = 0;
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

/// A repository's PostgreSQL database.
pub struct PgStore {
    conn: Conn,
}

impl PgStore {
    /// Connects to the database `url` names and brings its schema up to date.
    pub fn open(url: &str, password_file: Option<&Path>) -> Result<Self> {
        let mut conn = Conn::new(connect(url, password_file)?);
        migrate(&mut conn)?;
        Ok(Self { conn })
    }

    /// The schema version recorded in the database.
    pub fn schema_version(&mut self) -> Result<i64> {
        schema_version(&mut self.conn)
    }
}

fn schema_version(conn: &mut Conn) -> Result<i64> {
    let exists: bool = conn
        .query_one("SELECT to_regclass('locker_schema') IS NOT NULL", &[])?
        .try_get(0)
        .map_err(corrupt)?;
    if !exists {
        return Ok(0);
    }
    conn.query_one("SELECT COALESCE(MAX(version), 0) FROM locker_schema", &[])?
        .try_get(0)
        .map_err(corrupt)
}

fn migrate(conn: &mut Conn) -> Result<()> {
    let current = schema_version(conn)?;
    if current > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew { found: current, supported: SCHEMA_VERSION });
    }
    if current == SCHEMA_VERSION {
        return Ok(());
    }
    conn.batch(&format!(
        "BEGIN; SELECT pg_advisory_xact_lock({MIGRATION_LOCK}); \
         CREATE TABLE IF NOT EXISTS locker_schema (version BIGINT PRIMARY KEY, \
         applied_at BIGINT NOT NULL)"
    ))?;
    let result = (|| {
        let current = schema_version(conn)?;
        if current > SCHEMA_VERSION {
            return Err(StoreError::SchemaTooNew { found: current, supported: SCHEMA_VERSION });
        }
        let from = usize::try_from(current).unwrap_or(0);
        for (i, m) in MIGRATIONS.iter().enumerate().skip(from) {
            conn.batch(m)?;
            let version = i as i64 + 1;
            conn.execute(
                "INSERT INTO locker_schema (version, applied_at) \
                 VALUES ($1, EXTRACT(EPOCH FROM now())::BIGINT)",
                &[&version],
            )?;
        }
        conn.batch("COMMIT")
    })();
    if result.is_err() {
        conn.quietly("ROLLBACK");
    }
    // Statements prepared before the schema changed are stale.
    conn.cache.clear();
    result
}

/// Reads the schema version and the newest journal time without migrating anything.
pub fn inspect(url: &str, password_file: Option<&Path>) -> Result<StoreInfo> {
    let mut conn = Conn::new(connect(url, password_file)?);
    let schema_version = schema_version(&mut conn)?;
    let has_journal: bool = conn
        .query_one("SELECT to_regclass('journal') IS NOT NULL", &[])?
        .try_get(0)
        .map_err(corrupt)?;
    let newest_journal_time = if has_journal {
        conn.query_one("SELECT MAX(time) FROM journal", &[])?.try_get(0).map_err(corrupt)?
    } else {
        None
    };
    Ok(StoreInfo {
        kind: "postgres",
        schema_version,
        supported_schema: SCHEMA_VERSION,
        files: Vec::new(),
        newest_journal_time,
        sqlite: None,
    })
}

impl Store for PgStore {
    fn kind(&self) -> &'static str {
        "postgres"
    }

    fn read(&mut self) -> Result<Box<dyn Tx + '_>> {
        self.conn.failed = false;
        self.conn.cursors = 0;
        self.conn.batch("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")?;
        Ok(Box::new(PgTx::top(&mut self.conn, false)))
    }

    fn write(&mut self) -> Result<Box<dyn Tx + '_>> {
        self.conn.begin_write()?;
        Ok(Box::new(PgTx::top(&mut self.conn, true)))
    }

    fn group(&mut self) -> Result<Box<dyn Group + '_>> {
        self.conn.begin_write()?;
        Ok(Box::new(PgGroup { conn: &mut self.conn, finished: false }))
    }

    fn maintenance(&mut self) -> Option<&mut dyn Maintenance> {
        // The server checkpoints its own write-ahead log; backups are pg_dump's (or `locker
        // store copy`'s).
        None
    }
}

/// One write transaction shared by several operations: each operation's transaction is a
/// savepoint inside it.
struct PgGroup<'c> {
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

impl Savepoints for PgGroup<'_> {
    fn backend_kind(&self) -> &'static str {
        "postgres"
    }

    fn savepoint(&mut self, writable: bool) -> Result<Box<dyn Tx + '_>> {
        if !self.is_open() {
            return Err(StoreError::Io("the group's transaction was rolled back".into()));
        }
        self.conn.savepoints += 1;
        let name = format!("ls{}", self.conn.savepoints);
        self.conn.batch(&format!("SAVEPOINT {name}"))?;
        Ok(Box::new(PgTx {
            conn: RefCell::new(&mut *self.conn),
            writable,
            savepoint: Some(name),
            done: false,
        }))
    }
}

impl Group for PgGroup<'_> {
    fn store(&mut self) -> &mut dyn Store {
        self
    }

    fn is_open(&self) -> bool {
        !self.finished
            && !self.conn.failed
            && !self.conn.client.as_ref().is_none_or(Client::is_closed)
    }

    fn commit(mut self: Box<Self>) -> Result<()> {
        if !self.is_open() {
            return Err(StoreError::Io("the group's transaction was rolled back".into()));
        }
        let r = self.conn.batch("COMMIT");
        self.finished = true;
        r
    }
}

/// A transaction of its own, or a savepoint inside a group's.
struct PgTx<'c> {
    conn: RefCell<&'c mut Conn>,
    writable: bool,
    /// `Some(name)`: a savepoint inside a group's transaction.
    savepoint: Option<String>,
    done: bool,
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
                let undo = format!("ROLLBACK TO SAVEPOINT {name}; RELEASE SAVEPOINT {name}");
                // Once undone, the group's transaction is usable again.
                conn.failed = !conn.quietly(&undo);
            }
        }
    }
}

fn corrupt(e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(e.to_string())
}

fn i64_at(r: &Row, idx: usize) -> Result<i64> {
    r.try_get(idx).map_err(corrupt)
}

fn opt_i64(r: &Row, idx: usize) -> Result<Option<i64>> {
    r.try_get(idx).map_err(corrupt)
}

fn u64_at(r: &Row, idx: usize) -> Result<u64> {
    let v = i64_at(r, idx)?;
    u64::try_from(v).map_err(|_| StoreError::Corrupt(format!("column {idx} holds {v}")))
}

fn str_at(r: &Row, idx: usize) -> Result<String> {
    r.try_get(idx).map_err(corrupt)
}

fn opt_str(r: &Row, idx: usize) -> Result<Option<String>> {
    r.try_get(idx).map_err(corrupt)
}

fn bytes_at(r: &Row, idx: usize) -> Result<Vec<u8>> {
    r.try_get(idx).map_err(corrupt)
}

fn digest_at(r: &Row, idx: usize) -> Result<Digest> {
    let s = str_at(r, idx)?;
    Digest::parse(&s).map_err(corrupt)
}

fn sql_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn unknown(what: &str, v: &str) -> StoreError {
    StoreError::Corrupt(format!("unknown {what} `{v}`"))
}

const PAD_COLS: &str = "id, scope, created_at, expires_at, max_blocks, max_bytes, block_count, \
                        current_bytes, state, write_key_hash, head_hash, sealed_at, pruned_at";

fn pad_row(r: &Row) -> Result<PadRow> {
    let state = str_at(r, 8)?;
    let max_blocks = i64_at(r, 4)?;
    Ok(PadRow {
        id: str_at(r, 0)?,
        scope: str_at(r, 1)?,
        created_at: i64_at(r, 2)?,
        expires_at: i64_at(r, 3)?,
        max_blocks: u32::try_from(max_blocks)
            .map_err(|_| StoreError::Corrupt(format!("max_blocks {max_blocks}")))?,
        max_bytes: u64_at(r, 5)?,
        block_count: u64_at(r, 6)?,
        current_bytes: u64_at(r, 7)?,
        state: StoredState::parse(&state).ok_or_else(|| unknown("pad state", &state))?,
        write_key_hash: digest_at(r, 9)?,
        head_hash: digest_at(r, 10)?,
        sealed_at: opt_i64(r, 11)?,
        pruned_at: opt_i64(r, 12)?,
    })
}

const BLOCK_COLS: &str =
    "pad_id, seq, prev_hash, curr_hash, content_type, payload, created_at, pruned_bytes";

fn block_row(r: &Row) -> Result<BlockRow> {
    Ok(BlockRow {
        pad_id: str_at(r, 0)?,
        seq: u64_at(r, 1)?,
        prev_hash: digest_at(r, 2)?,
        curr_hash: digest_at(r, 3)?,
        content_type: str_at(r, 4)?,
        payload: bytes_at(r, 5)?,
        created_at: i64_at(r, 6)?,
        pruned_bytes: opt_i64(r, 7)?.map(|n| u64::try_from(n).unwrap_or(u64::MAX)),
    })
}

const TICKET_COLS: &str = "digest, pad_id, type, created_at, lease_started_at, revoked_at";

fn ticket_row(r: &Row) -> Result<TicketRow> {
    let t = str_at(r, 2)?;
    Ok(TicketRow {
        digest: digest_at(r, 0)?,
        pad_id: str_at(r, 1)?,
        ticket_type: TicketType::parse(&t).ok_or_else(|| unknown("ticket type", &t))?,
        created_at: i64_at(r, 3)?,
        lease_started_at: opt_i64(r, 4)?,
        revoked_at: opt_i64(r, 5)?,
    })
}

const JOURNAL_COLS: &str = "seq, prev_hash, hash, entry, time, kind, actor, scope, subject";

fn journal_row(r: &Row) -> Result<JournalRow> {
    Ok(JournalRow {
        seq: u64_at(r, 0)?,
        prev_hash: digest_at(r, 1)?,
        hash: digest_at(r, 2)?,
        entry: bytes_at(r, 3)?,
        time: i64_at(r, 4)?,
        kind: str_at(r, 5)?,
        actor: str_at(r, 6)?,
        scope: str_at(r, 7)?,
        subject: str_at(r, 8)?,
    })
}

const AGENT_COLS: &str = "name, scope, token_hash, created_at, revoked_at";

fn agent_row(r: &Row) -> Result<AgentRow> {
    Ok(AgentRow {
        name: str_at(r, 0)?,
        scope: str_at(r, 1)?,
        token_hash: digest_at(r, 2)?,
        created_at: i64_at(r, 3)?,
        revoked_at: opt_i64(r, 4)?,
    })
}

const BLOB_COLS: &str = "digest, size, storage, created_at";

fn blob_row(r: &Row) -> Result<BlobRow> {
    let storage = str_at(r, 2)?;
    if storage != "inline" {
        return Err(unknown("blob storage", &storage));
    }
    Ok(BlobRow {
        digest: digest_at(r, 0)?,
        size: u64_at(r, 1)?,
        storage: BlobStorage::Inline,
        location: "inline".to_owned(),
        created_at: i64_at(r, 3)?,
    })
}

const CHECKPOINT_COLS: &str = "size, root, note, signed_at";

fn checkpoint_row(r: &Row) -> Result<CheckpointRow> {
    Ok(CheckpointRow {
        size: u64_at(r, 0)?,
        root: digest_at(r, 1)?,
        note: str_at(r, 2)?,
        signed_at: i64_at(r, 3)?,
    })
}

const AGENT_KEY_COLS: &str = "agent, key_id, vkey, created_at, revoked_at";

fn agent_key_row(r: &Row) -> Result<AgentKeyRow> {
    Ok(AgentKeyRow {
        agent: str_at(r, 0)?,
        key_id: str_at(r, 1)?,
        vkey: str_at(r, 2)?,
        created_at: i64_at(r, 3)?,
        revoked_at: opt_i64(r, 4)?,
    })
}

fn setting_row(r: &Row) -> Result<(String, String)> {
    Ok((str_at(r, 0)?, str_at(r, 1)?))
}

fn merkle_row(r: &Row) -> Result<(u64, Digest)> {
    Ok((u64_at(r, 0)?, digest_at(r, 1)?))
}

const VERSION_COLS: &str = "scope, key, version, blob, size, actor, op_id, created_at";

fn version_row(r: &Row) -> Result<ArtifactVersionRow> {
    Ok(ArtifactVersionRow {
        scope: str_at(r, 0)?,
        key: str_at(r, 1)?,
        version: u64_at(r, 2)?,
        blob: digest_at(r, 3)?,
        size: u64_at(r, 4)?,
        actor: str_at(r, 5)?,
        op_id: str_at(r, 6)?,
        created_at: i64_at(r, 7)?,
    })
}

fn head_row(r: &Row) -> Result<ArtifactHeadRow> {
    Ok(ArtifactHeadRow { scope: str_at(r, 0)?, key: str_at(r, 1)?, version: u64_at(r, 2)? })
}

const RECEIPT_COLS: &str =
    "actor, op_id, scope, key, expected_version, version, created_at, fence_work, fence_token";

fn receipt_row(r: &Row) -> Result<ReceiptRow> {
    Ok(ReceiptRow {
        actor: str_at(r, 0)?,
        op_id: str_at(r, 1)?,
        scope: str_at(r, 2)?,
        key: str_at(r, 3)?,
        expected_version: u64_at(r, 4)?,
        version: u64_at(r, 5)?,
        created_at: i64_at(r, 6)?,
        // A damaged half-fence reads as an impossible one, which `verify` then reports.
        fence: match (opt_str(r, 7)?, opt_i64(r, 8)?) {
            (None, None) => None,
            (work, token) => Some(Fence {
                work: work.unwrap_or_default(),
                token: token.and_then(|t| u64::try_from(t).ok()).unwrap_or(0),
            }),
        },
    })
}

const PAYMENT_COLS: &str = "tx_hash, pad_id, payer, amount_units, token, recipient, chain_id, \
     block_number, redeemed_at";

fn payment_row(r: &Row) -> Result<PaymentRow> {
    Ok(PaymentRow {
        tx_hash: str_at(r, 0)?,
        pad_id: str_at(r, 1)?,
        payer: str_at(r, 2)?,
        amount_units: str_at(r, 3)?,
        token: str_at(r, 4)?,
        recipient: str_at(r, 5)?,
        chain_id: u64_at(r, 6)?,
        block_number: u64_at(r, 7)?,
        redeemed_at: i64_at(r, 8)?,
    })
}

const LEASE_COLS: &str = "id, scope, work, fence, holder, state, ttl, acquired_at, expires_at, \
                          heartbeats, heartbeat_at, details, ended_at, result, pruned_at";

fn lease_row(r: &Row) -> Result<LeaseRow> {
    let state = str_at(r, 5)?;
    Ok(LeaseRow {
        id: str_at(r, 0)?,
        scope: str_at(r, 1)?,
        work: str_at(r, 2)?,
        fence: u64_at(r, 3)?,
        holder: str_at(r, 4)?,
        state: LeaseState::parse(&state).ok_or_else(|| unknown("lease state", &state))?,
        ttl: i64_at(r, 6)?,
        acquired_at: i64_at(r, 7)?,
        expires_at: i64_at(r, 8)?,
        heartbeats: u64_at(r, 9)?,
        heartbeat_at: opt_i64(r, 10)?,
        details: opt_str(r, 11)?,
        ended_at: opt_i64(r, 12)?,
        result: opt_str(r, 13)?,
        pruned_at: opt_i64(r, 14)?,
    })
}

const PLAN_COLS: &str = "scope, work, version, lease_id, steps, committed_at, pruned_at";

fn plan_row(r: &Row) -> Result<PlanRow> {
    Ok(PlanRow {
        scope: str_at(r, 0)?,
        work: str_at(r, 1)?,
        version: u64_at(r, 2)?,
        lease_id: str_at(r, 3)?,
        steps_json: str_at(r, 4)?,
        committed_at: i64_at(r, 5)?,
        pruned_at: opt_i64(r, 6)?,
    })
}

const STEP_COLS: &str =
    "scope, work, lease_id, step, planned, executed, gate, recorded_at, pruned_at";

fn step_row(r: &Row) -> Result<StepRow> {
    Ok(StepRow {
        scope: str_at(r, 0)?,
        work: str_at(r, 1)?,
        lease_id: str_at(r, 2)?,
        step: str_at(r, 3)?,
        planned: opt_str(r, 4)?,
        executed: opt_str(r, 5)?,
        gate: str_at(r, 6)?,
        recorded_at: i64_at(r, 7)?,
        pruned_at: opt_i64(r, 8)?,
    })
}

/// `$1, $2, … $n`.
fn placeholders(n: usize) -> String {
    (1..=n).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ")
}

/// An SQL string literal (standard_conforming_strings is on for every connection).
fn literal(s: &str) -> Result<String> {
    if s.contains('\0') {
        return Err(StoreError::Io("a text value contains a NUL character".into()));
    }
    Ok(format!("'{}'", s.replace('\'', "''")))
}

impl<'c> PgTx<'c> {
    fn top(conn: &'c mut Conn, writable: bool) -> Self {
        Self { conn: RefCell::new(conn), writable, savepoint: None, done: false }
    }

    fn check_writable(&self) -> Result<()> {
        if self.writable {
            Ok(())
        } else {
            Err(StoreError::Io("write attempted in a read-only transaction".into()))
        }
    }

    fn all<T>(&self, sql: &str, params: Params<'_>, map: fn(&Row) -> Result<T>) -> Result<Vec<T>> {
        let rows = self.conn.borrow_mut().query(sql, params)?;
        rows.iter().map(map).collect()
    }

    fn one<T>(
        &self,
        sql: &str,
        params: Params<'_>,
        map: fn(&Row) -> Result<T>,
    ) -> Result<Option<T>> {
        let row = self.conn.borrow_mut().query_opt(sql, params)?;
        row.as_ref().map(map).transpose()
    }

    fn exec(&self, sql: &str, params: Params<'_>) -> Result<u64> {
        self.check_writable()?;
        self.conn.borrow_mut().execute(sql, params)
    }

    /// Inserts one row; none inserted (`ON CONFLICT DO NOTHING`) is [`StoreError::Duplicate`],
    /// and the transaction stays usable.
    fn insert(&self, table: &str, cols: &str, params: Params<'_>) -> Result<()> {
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
    fn stream<T>(
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
    fn pad(&self, id: &str) -> Result<Option<PadRow>> {
        self.one(&format!("SELECT {PAD_COLS} FROM pads WHERE id = $1"), &[&id], pad_row)
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
        Ok(u64::try_from(i64_at(&row, 0)?).unwrap_or(0))
    }

    fn for_each_block(&self, pad: &str, f: &mut dyn FnMut(BlockRow) -> Flow) -> Result<()> {
        let sql = format!(
            "SELECT {BLOCK_COLS} FROM blocks WHERE pad_id = {} ORDER BY seq",
            literal(pad)?
        );
        self.stream(&sql, block_row, f)
    }

    fn ticket(&self, digest: &Digest) -> Result<Option<TicketRow>> {
        let sql = format!("SELECT {TICKET_COLS} FROM tickets WHERE digest = $1");
        self.one(&sql, &[&digest.to_hex()], ticket_row)
    }

    fn for_each_ticket(&self, f: &mut dyn FnMut(TicketRow) -> Flow) -> Result<()> {
        self.stream(&format!("SELECT {TICKET_COLS} FROM tickets ORDER BY digest"), ticket_row, f)
    }

    fn journal_head(&self) -> Result<Option<JournalHead>> {
        self.one("SELECT seq, hash FROM journal_head WHERE id = 1", &[], |r| {
            Ok(JournalHead { seq: u64_at(r, 0)?, hash: digest_at(r, 1)? })
        })
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
             AND ($5::TEXT IS NULL OR scope = $5) AND ($6::BIGINT IS NULL OR seq > $6) \
             AND ($7::BIGINT IS NULL OR seq < $7) ORDER BY seq {order} LIMIT $8"
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
        let n = |i| i64_at(&row, i).map(|v| u64::try_from(v).unwrap_or(0));
        Ok(Counts { journal: n(0)?, pads: n(1)?, blocks: n(2)? })
    }

    fn lease(&self, id: &str) -> Result<Option<LeaseRow>> {
        self.one(&format!("SELECT {LEASE_COLS} FROM leases WHERE id = $1"), &[&id], lease_row)
    }

    fn newest_lease(&self, scope: &str, work: &str) -> Result<Option<LeaseRow>> {
        let sql = format!(
            "SELECT {LEASE_COLS} FROM leases WHERE scope = $1 AND work = $2 \
             ORDER BY fence DESC LIMIT 1"
        );
        self.one(&sql, &[&scope, &work], lease_row)
    }

    fn work_leases(&self, scope: &str, work: &str) -> Result<Vec<LeaseRow>> {
        let sql = format!(
            "SELECT {LEASE_COLS} FROM leases WHERE scope = $1 AND work = $2 ORDER BY fence"
        );
        self.all(&sql, &[&scope, &work], lease_row)
    }

    fn leases(&self, q: &LeaseQuery) -> Result<Vec<LeaseRow>> {
        let sql = format!(
            "SELECT {LEASE_COLS} FROM leases WHERE ($1::TEXT IS NULL OR scope = $1) \
             AND ($2::TEXT IS NULL OR state = $2) ORDER BY scope, work, fence LIMIT $3"
        );
        let state = q.state.map(LeaseState::as_str);
        self.all(&sql, &[&q.scope, &state, &sql_i64(q.limit)], lease_row)
    }

    fn expired_leases(&self, now: i64) -> Result<Vec<LeaseRow>> {
        let sql = format!(
            "SELECT {LEASE_COLS} FROM leases WHERE state = 'active' AND expires_at <= $1 \
             ORDER BY scope, work, fence"
        );
        self.all(&sql, &[&now], lease_row)
    }

    fn for_each_lease(&self, f: &mut dyn FnMut(LeaseRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {LEASE_COLS} FROM leases ORDER BY scope, work, fence");
        self.stream(&sql, lease_row, f)
    }

    fn plans(&self, scope: &str, work: &str) -> Result<Vec<PlanRow>> {
        let sql = format!(
            "SELECT {PLAN_COLS} FROM plans WHERE scope = $1 AND work = $2 ORDER BY version"
        );
        self.all(&sql, &[&scope, &work], plan_row)
    }

    fn for_each_plan(&self, f: &mut dyn FnMut(PlanRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {PLAN_COLS} FROM plans ORDER BY scope, work, version");
        self.stream(&sql, plan_row, f)
    }

    fn step(&self, lease_id: &str, step: &str) -> Result<Option<StepRow>> {
        let sql = format!("SELECT {STEP_COLS} FROM steps WHERE lease_id = $1 AND step = $2");
        self.one(&sql, &[&lease_id, &step], step_row)
    }

    fn work_steps(&self, scope: &str, work: &str) -> Result<Vec<StepRow>> {
        let sql =
            format!("SELECT {STEP_COLS} FROM steps WHERE scope = $1 AND work = $2 ORDER BY id");
        self.all(&sql, &[&scope, &work], step_row)
    }

    fn for_each_step(&self, f: &mut dyn FnMut(StepRow) -> Flow) -> Result<()> {
        self.stream(&format!("SELECT {STEP_COLS} FROM steps ORDER BY id"), step_row, f)
    }

    fn insert_pad(&mut self, p: &PadRow) -> Result<()> {
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
        // The pad's own chain lock, taken in the same statement (no extra round trip); the
        // journal's lock, held since BEGIN, already excludes every other writer.
        let sql = format!(
            "INSERT INTO blocks ({BLOCK_COLS}) SELECT $1, $2, $3, $4, $5, $6, $7, $8 \
             FROM (SELECT pg_advisory_xact_lock({PAD_LOCK_CLASS}, hashtext($1))) AS chain_lock \
             ON CONFLICT DO NOTHING"
        );
        let n = self.exec(
            &sql,
            &[
                &b.pad_id,
                &sql_i64(b.seq),
                &b.prev_hash.to_hex(),
                &b.curr_hash.to_hex(),
                &b.content_type,
                &b.payload,
                &b.created_at,
                &b.pruned_bytes.map(sql_i64),
            ],
        )?;
        if n == 0 {
            return Err(StoreError::Duplicate(format!(
                "block {} of pad {} exists",
                b.seq, b.pad_id
            )));
        }
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

    fn insert_lease(&mut self, l: &LeaseRow) -> Result<()> {
        self.insert(
            "leases",
            LEASE_COLS,
            &[
                &l.id,
                &l.scope,
                &l.work,
                &sql_i64(l.fence),
                &l.holder,
                &l.state.as_str(),
                &l.ttl,
                &l.acquired_at,
                &l.expires_at,
                &sql_i64(l.heartbeats),
                &l.heartbeat_at,
                &l.details,
                &l.ended_at,
                &l.result,
                &l.pruned_at,
            ],
        )
    }

    fn update_lease(&mut self, l: &LeaseRow) -> Result<()> {
        self.exec(
            "UPDATE leases SET state = $2, expires_at = $3, heartbeats = $4, heartbeat_at = $5, \
             details = $6, ended_at = $7, result = $8 WHERE id = $1",
            &[
                &l.id,
                &l.state.as_str(),
                &l.expires_at,
                &sql_i64(l.heartbeats),
                &l.heartbeat_at,
                &l.details,
                &l.ended_at,
                &l.result,
            ],
        )?;
        Ok(())
    }

    fn insert_plan(&mut self, p: &PlanRow) -> Result<()> {
        self.insert(
            "plans",
            PLAN_COLS,
            &[
                &p.scope,
                &p.work,
                &sql_i64(p.version),
                &p.lease_id,
                &p.steps_json,
                &p.committed_at,
                &p.pruned_at,
            ],
        )
    }

    fn insert_step(&mut self, s: &StepRow) -> Result<()> {
        self.insert(
            "steps",
            STEP_COLS,
            &[
                &s.scope,
                &s.work,
                &s.lease_id,
                &s.step,
                &s.planned,
                &s.executed,
                &s.gate,
                &s.recorded_at,
                &s.pruned_at,
            ],
        )
    }

    fn insert_journal(&mut self, j: &JournalRow) -> Result<()> {
        // The row and the head move in one statement.
        let sql = format!(
            "WITH j AS (INSERT INTO journal ({JOURNAL_COLS}) VALUES ({}) \
             ON CONFLICT DO NOTHING RETURNING seq, hash) \
             INSERT INTO journal_head (id, seq, hash) SELECT 1, seq, hash FROM j \
             ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
            placeholders(9)
        );
        let n = self.exec(
            &sql,
            &[
                &sql_i64(j.seq),
                &j.prev_hash.to_hex(),
                &j.hash.to_hex(),
                &j.entry,
                &j.time,
                &j.kind,
                &j.actor,
                &j.scope,
                &j.subject,
            ],
        )?;
        if n == 0 {
            return Err(StoreError::Duplicate(format!("journal entry {} exists", j.seq)));
        }
        Ok(())
    }

    fn merkle_count(&self) -> Result<u64> {
        let row = self.conn.borrow_mut().query_one("SELECT MAX(idx) FROM merkle_hashes", &[])?;
        Ok(opt_i64(&row, 0)?.and_then(|n| u64::try_from(n + 1).ok()).unwrap_or(0))
    }

    fn merkle_hash(&self, idx: u64) -> Result<Option<Digest>> {
        self.one("SELECT hash FROM merkle_hashes WHERE idx = $1", &[&sql_i64(idx)], |r| {
            digest_at(r, 0)
        })
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

    fn agent_keys(&self, agent: &str) -> Result<Vec<AgentKeyRow>> {
        let sql = format!(
            "SELECT {AGENT_KEY_COLS} FROM agent_keys WHERE agent = $1 ORDER BY created_at, key_id"
        );
        self.all(&sql, &[&agent], agent_key_row)
    }

    fn for_each_agent_key(&self, f: &mut dyn FnMut(AgentKeyRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {AGENT_KEY_COLS} FROM agent_keys ORDER BY agent, key_id");
        self.stream(&sql, agent_key_row, f)
    }

    fn insert_agent_key(&mut self, k: &AgentKeyRow) -> Result<()> {
        self.insert(
            "agent_keys",
            AGENT_KEY_COLS,
            &[&k.agent, &k.key_id, &k.vkey, &k.created_at, &k.revoked_at],
        )
    }

    fn update_agent_key(&mut self, k: &AgentKeyRow) -> Result<()> {
        self.exec(
            "UPDATE agent_keys SET revoked_at = $3 WHERE agent = $1 AND key_id = $2",
            &[&k.agent, &k.key_id, &k.revoked_at],
        )?;
        Ok(())
    }

    fn setting(&self, name: &str) -> Result<Option<String>> {
        self.one("SELECT value FROM repo_settings WHERE name = $1", &[&name], |r| str_at(r, 0))
    }

    fn for_each_setting(&self, f: &mut dyn FnMut((String, String)) -> Flow) -> Result<()> {
        self.stream("SELECT name, value FROM repo_settings ORDER BY name", setting_row, f)
    }

    fn set_setting(&mut self, name: &str, value: &str) -> Result<()> {
        self.exec(
            "INSERT INTO repo_settings (name, value) VALUES ($1, $2) \
             ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            &[&name, &value],
        )?;
        Ok(())
    }

    fn agent(&self, name: &str) -> Result<Option<AgentRow>> {
        self.one(&format!("SELECT {AGENT_COLS} FROM agents WHERE name = $1"), &[&name], agent_row)
    }

    fn agent_by_token(&self, token_hash: &Digest) -> Result<Option<AgentRow>> {
        let sql = format!("SELECT {AGENT_COLS} FROM agents WHERE token_hash = $1");
        self.one(&sql, &[&token_hash.to_hex()], agent_row)
    }

    fn for_each_agent(&self, f: &mut dyn FnMut(AgentRow) -> Flow) -> Result<()> {
        self.stream(&format!("SELECT {AGENT_COLS} FROM agents ORDER BY name"), agent_row, f)
    }

    fn insert_agent(&mut self, a: &AgentRow) -> Result<()> {
        self.insert(
            "agents",
            AGENT_COLS,
            &[&a.name, &a.scope, &a.token_hash.to_hex(), &a.created_at, &a.revoked_at],
        )
    }

    fn update_agent(&mut self, a: &AgentRow) -> Result<()> {
        self.exec("UPDATE agents SET revoked_at = $2 WHERE name = $1", &[&a.name, &a.revoked_at])?;
        Ok(())
    }

    fn blob_row(&self, digest: &Digest) -> Result<Option<BlobRow>> {
        let sql = format!("SELECT {BLOB_COLS} FROM blobs WHERE digest = $1");
        self.one(&sql, &[&digest.to_hex()], blob_row)
    }

    fn blob(&self, digest: &Digest) -> Result<Option<Vec<u8>>> {
        self.one("SELECT data FROM blobs WHERE digest = $1", &[&digest.to_hex()], |r| {
            bytes_at(r, 0)
        })
    }

    fn put_blob(&mut self, digest: &Digest, bytes: &[u8], now: i64) -> Result<()> {
        self.check_writable()?;
        if self.blob_row(digest)?.is_some() {
            return Ok(());
        }
        self.exec(
            "INSERT INTO blobs (digest, size, storage, data, created_at) \
             VALUES ($1, $2, 'inline', $3, $4) ON CONFLICT DO NOTHING",
            &[&digest.to_hex(), &(bytes.len() as i64), &bytes, &now],
        )?;
        Ok(())
    }

    fn for_each_blob(&self, f: &mut dyn FnMut(BlobRow) -> Flow) -> Result<()> {
        self.stream(&format!("SELECT {BLOB_COLS} FROM blobs ORDER BY digest"), blob_row, f)
    }

    fn artifact_head(&self, scope: &str, key: &str) -> Result<Option<u64>> {
        self.one(
            "SELECT version FROM artifact_heads WHERE scope = $1 AND key = $2",
            &[&scope, &key],
            |r| u64_at(r, 0),
        )
    }

    fn artifact_version(
        &self,
        scope: &str,
        key: &str,
        version: u64,
    ) -> Result<Option<ArtifactVersionRow>> {
        let sql = format!(
            "SELECT {VERSION_COLS} FROM artifact_versions \
             WHERE scope = $1 AND key = $2 AND version = $3"
        );
        self.one(&sql, &[&scope, &key, &sql_i64(version)], version_row)
    }

    fn artifact_versions(
        &self,
        scope: &str,
        key: &str,
        after: u64,
        limit: u64,
    ) -> Result<Vec<ArtifactVersionRow>> {
        let sql = format!(
            "SELECT {VERSION_COLS} FROM artifact_versions \
             WHERE scope = $1 AND key = $2 AND version > $3 ORDER BY version LIMIT $4"
        );
        self.all(&sql, &[&scope, &key, &sql_i64(after), &sql_i64(limit)], version_row)
    }

    fn artifact_heads(&self, q: &ArtifactQuery) -> Result<Vec<ArtifactVersionRow>> {
        let cols =
            VERSION_COLS.split(", ").map(|c| format!("v.{c}")).collect::<Vec<_>>().join(", ");
        let sql = format!(
            "SELECT {cols} FROM artifact_heads h JOIN artifact_versions v \
             ON v.scope = h.scope AND v.key = h.key AND v.version = h.version \
             WHERE h.scope = $1 AND ($2::TEXT IS NULL OR h.key > $2) ORDER BY h.key LIMIT $3"
        );
        self.all(&sql, &[&q.scope, &q.after, &sql_i64(q.limit)], version_row)
    }

    fn for_each_artifact_version(
        &self,
        f: &mut dyn FnMut(ArtifactVersionRow) -> Flow,
    ) -> Result<()> {
        let sql =
            format!("SELECT {VERSION_COLS} FROM artifact_versions ORDER BY scope, key, version");
        self.stream(&sql, version_row, f)
    }

    fn for_each_artifact_head(&self, f: &mut dyn FnMut(ArtifactHeadRow) -> Flow) -> Result<()> {
        self.stream(
            "SELECT scope, key, version FROM artifact_heads ORDER BY scope, key",
            head_row,
            f,
        )
    }

    fn receipt(&self, actor: &str, op_id: &str) -> Result<Option<ReceiptRow>> {
        let sql =
            format!("SELECT {RECEIPT_COLS} FROM artifact_receipts WHERE actor = $1 AND op_id = $2");
        self.one(&sql, &[&actor, &op_id], receipt_row)
    }

    fn for_each_receipt(&self, f: &mut dyn FnMut(ReceiptRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {RECEIPT_COLS} FROM artifact_receipts ORDER BY actor, op_id");
        self.stream(&sql, receipt_row, f)
    }

    fn insert_artifact_version(&mut self, v: &ArtifactVersionRow) -> Result<()> {
        self.insert(
            "artifact_versions",
            VERSION_COLS,
            &[
                &v.scope,
                &v.key,
                &sql_i64(v.version),
                &v.blob.to_hex(),
                &sql_i64(v.size),
                &v.actor,
                &v.op_id,
                &v.created_at,
            ],
        )
    }

    fn set_artifact_head(&mut self, h: &ArtifactHeadRow) -> Result<()> {
        self.exec(
            "INSERT INTO artifact_heads (scope, key, version) VALUES ($1, $2, $3) \
             ON CONFLICT (scope, key) DO UPDATE SET version = excluded.version",
            &[&h.scope, &h.key, &sql_i64(h.version)],
        )?;
        Ok(())
    }

    fn insert_receipt(&mut self, r: &ReceiptRow) -> Result<()> {
        self.insert(
            "artifact_receipts",
            RECEIPT_COLS,
            &[
                &r.actor,
                &r.op_id,
                &r.scope,
                &r.key,
                &sql_i64(r.expected_version),
                &sql_i64(r.version),
                &r.created_at,
                &r.fence.as_ref().map(|f| f.work.as_str()),
                &r.fence.as_ref().map(|f| sql_i64(f.token)),
            ],
        )
    }

    fn payment(&self, tx_hash: &str) -> Result<Option<PaymentRow>> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payment_receipts WHERE tx_hash = $1");
        self.one(&sql, &[&tx_hash], payment_row)
    }

    fn for_each_payment(&self, f: &mut dyn FnMut(PaymentRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payment_receipts ORDER BY tx_hash");
        self.stream(&sql, payment_row, f)
    }

    fn insert_payment(&mut self, p: &PaymentRow) -> Result<()> {
        self.insert(
            "payment_receipts",
            PAYMENT_COLS,
            &[
                &p.tx_hash,
                &p.pad_id,
                &p.payer,
                &p.amount_units,
                &p.token,
                &p.recipient,
                &sql_i64(p.chain_id),
                &sql_i64(p.block_number),
                &p.redeemed_at,
            ],
        )
    }

    fn prune_pad(&mut self, pad_id: &str, now: i64) -> Result<u64> {
        let n = self.exec(
            "UPDATE blocks SET pruned_bytes = length(payload), payload = ''::BYTEA \
             WHERE pad_id = $1 AND pruned_bytes IS NULL",
            &[&pad_id],
        )?;
        self.exec("UPDATE pads SET pruned_at = $2 WHERE id = $1", &[&pad_id, &now])?;
        Ok(n)
    }

    fn prune_lease_work(&mut self, lease_id: &str, now: i64) -> Result<()> {
        self.exec(
            "UPDATE leases SET details = NULL, result = NULL, pruned_at = $2 WHERE id = $1",
            &[&lease_id, &now],
        )?;
        self.exec(
            "UPDATE plans SET steps = '[]', pruned_at = $2 WHERE lease_id = $1",
            &[&lease_id, &now],
        )?;
        self.exec(
            "UPDATE steps SET planned = NULL, executed = NULL, pruned_at = $2 WHERE lease_id = $1",
            &[&lease_id, &now],
        )?;
        Ok(())
    }

    fn unreferenced_blobs(&self) -> Result<Vec<BlobRow>> {
        let cols = BLOB_COLS.split(", ").map(|c| format!("b.{c}")).collect::<Vec<_>>().join(", ");
        let sql = format!(
            "SELECT {cols} FROM blobs b WHERE NOT EXISTS \
             (SELECT 1 FROM artifact_versions v WHERE v.blob = b.digest) ORDER BY b.digest"
        );
        self.all(&sql, &[], blob_row)
    }

    fn delete_blob(&mut self, digest: &Digest) -> Result<()> {
        self.exec("DELETE FROM blobs WHERE digest = $1", &[&digest.to_hex()])?;
        Ok(())
    }

    fn blob_files(&mut self) -> Option<&mut dyn BlobFiles> {
        // Every blob is a row: there is no file to stray.
        None
    }

    fn commit(mut self: Box<Self>) -> Result<()> {
        let conn = self.conn.get_mut();
        if conn.failed {
            // PostgreSQL would answer COMMIT with a silent ROLLBACK; Drop rolls back.
            return Err(StoreError::Io(
                "a statement of the transaction failed, so nothing was committed".into(),
            ));
        }
        let sql = match &self.savepoint {
            None => "COMMIT".to_owned(),
            Some(name) => format!("RELEASE SAVEPOINT {name}"),
        };
        conn.batch(&sql)?;
        self.done = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_and_passwords_never_shown() {
        assert!(is_url("postgres://u@h/db") && is_url("postgresql://u@h:5433/db"));
        assert!(!is_url("sqlite:locker.db"));
        assert!(parse_url("postgres://u@127.0.0.1:5432/db").is_ok());
        let Err(e) = parse_url("postgres://u:hunter2@h/db") else {
            panic!("a password in the URL is refused")
        };
        assert!(!e.to_string().contains("hunter2"), "{e}");
        assert!(e.to_string().contains("u:***@h"), "{e}");
        assert_eq!(redact("postgres://u:pw@h:1/db?x=1"), "postgres://u:***@h:1/db?x=1");
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        assert!(parse_url("mysql://u@h/db").is_err());
    }

    #[test]
    fn pgpass_lines_split_with_escapes() {
        assert_eq!(split_pgpass(r"h:5432:db:u:p\:w\\d"), ["h", "5432", "db", "u", r"p:w\d"]);
        assert_eq!(split_pgpass("*:*:*:*:x").len(), 5);
    }

    #[test]
    fn literals_are_quoted() {
        assert_eq!(literal("a'b").unwrap(), "'a''b'");
        assert!(literal("a\0b").is_err());
        assert_eq!(placeholders(3), "$1, $2, $3");
    }
}
