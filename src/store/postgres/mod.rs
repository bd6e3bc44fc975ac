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
//! [`StoreError::Duplicate`] without aborting the caller's
//! transaction (the peer's `InFailedSQLTransaction`, A.9 #3); a statement that fails anyway
//! marks the transaction failed, and committing it is an error, never PostgreSQL's silent
//! `ROLLBACK`. An append's block and journal entry, which only a damaged store can find
//! taken (the journal's lock excludes every other writer), are the exception: they wait to
//! share the round trip that ends their transaction or savepoint (`conn`), and a row found
//! there fails that transaction or savepoint as [`StoreError::Duplicate`].
//!
//! Blobs live in the database (`BYTEA`), whatever their size. The schema is versioned by
//! append-only migrations recorded in `locker_schema`.
//!
//! - `url`, `conn`, `schema`: URLs and passwords, the connection and PostgreSQL's errors, the
//!   migrations and [`inspect`];
//! - `tx`, `group`: transactions, and groups of them sharing one write transaction;
//! - `known`: what a write transaction has read or written of the journal's head, its Merkle
//!   tree and the settings, so that a group's later requests do not read them again;
//! - `rows`: result rows as row types;
//! - `pads`, `journal`, `work`, `artifacts`, `agents`, `payments`, `retention`: each capability
//!   of [`Tx`].

mod agents;
mod artifacts;
mod conn;
mod group;
mod journal;
mod known;
mod pads;
mod payments;
mod retention;
mod rows;
mod schema;
mod tls;
mod tx;
mod url;
mod work;

use std::path::Path;

use conn::{connect, Conn};
pub use schema::{inspect, ScratchSchema, SCHEMA_VERSION};
pub use url::{is_url, parse_url, redact, resolve_password};

use crate::store::{Group, Maintenance, Result, Seal, Store, StoreError, Tx};

/// How many times a transaction refused as busy when it began is begun again, and the first
/// pause (doubled each time: at most 0.62 s in all).
const BUSY_RETRIES: u32 = 5;
const BUSY_PAUSE: std::time::Duration = std::time::Duration::from_millis(20);

/// The advisory lock of the journal (ASCII `lockerJL`): every write transaction takes it first.
const JOURNAL_LOCK: i64 = 0x6C6F_636B_6572_4A4C;
/// The advisory lock migrations run under (ASCII `lockerMG`).
const MIGRATION_LOCK: i64 = 0x6C6F_636B_6572_4D47;
/// The first half of a pad's two-key advisory lock (ASCII `lp`); the second is a hash of its id.
const PAD_LOCK_CLASS: i32 = 0x6C70;

/// How long a writer waits for the write lock before giving up with [`StoreError::Busy`],
/// unless the server's configuration, the database, the role or the URL's `options` set a
/// `lock_timeout` of their own (`Conn::begin_session`).
const LOCK_TIMEOUT_MS: u64 = 60_000;
/// Rows fetched at a time when streaming.
const FETCH: usize = 128;

/// A repository's PostgreSQL database.
pub struct PgStore {
    conn: Conn,
    /// Where to connect again when the connection is lost.
    url: String,
    password_file: Option<std::path::PathBuf>,
    /// Run in each write transaction before it commits ([`Store::set_seal`]).
    seal: Option<Seal>,
}

impl PgStore {
    /// Connects to the database `url` names, which must hold a repository, and brings its
    /// schema up to date. A database with no schema is refused, never initialised.
    pub fn open(url: &str, password_file: Option<&Path>) -> Result<Self> {
        let mut conn = connect(url, password_file)?;
        conn.begin_session()?;
        schema::migrate_existing(&mut conn)?;
        Ok(Self {
            conn,
            url: url.to_owned(),
            password_file: password_file.map(Path::to_owned),
            seal: None,
        })
    }

    /// Connects to the database `url` names and creates its schema if it has none (`locker
    /// init --store`, `locker store copy --to`), or brings it up to date.
    pub fn create(url: &str, password_file: Option<&Path>) -> Result<Self> {
        let mut conn = connect(url, password_file)?;
        conn.begin_session()?;
        schema::migrate(&mut conn)?;
        Ok(Self {
            conn,
            url: url.to_owned(),
            password_file: password_file.map(Path::to_owned),
            seal: None,
        })
    }

    /// Begins a transaction with `begin`. A connection known to be lost is replaced first;
    /// one found lost by `begin` itself (a database restarted since the connection was last
    /// used answers its first statement with a shutdown notice or a closed socket) is
    /// replaced and `begin` runs once more: nothing had run on it, so nothing is repeated. A
    /// transaction that fails later is never retried here.
    fn begin(&mut self, begin: fn(&mut Conn) -> Result<()>) -> Result<()> {
        // A transaction refused as it began, waiting for the journal's lock (`lock_timeout`,
        // `statement_timeout`, a deadlock or serialization failure: `Busy`), ran nothing: it is
        // begun again, a bounded number of times with a growing pause. A failure after it began
        // is never retried here (the operation would have to run again).
        let mut pause = BUSY_PAUSE;
        for _ in 0..BUSY_RETRIES {
            match self.begin_once(begin) {
                Err(StoreError::Busy) => {
                    tracing::debug!(target: "locker::store", "the journal's lock is busy; again in {pause:?}");
                    std::thread::sleep(pause);
                    pause *= 2;
                }
                r => return r,
            }
        }
        self.begin_once(begin)
    }

    fn begin_once(&mut self, begin: fn(&mut Conn) -> Result<()>) -> Result<()> {
        if self.conn.is_lost() {
            self.reconnect()?;
            return begin(&mut self.conn);
        }
        match begin(&mut self.conn) {
            Err(e) if self.conn.is_lost() => {
                tracing::warn!(
                    target: "locker::store",
                    "the PostgreSQL connection was lost ({e}); connecting again"
                );
                self.reconnect()?;
                begin(&mut self.conn)
            }
            r => r,
        }
    }

    /// Replaces the connection with a new one.
    fn reconnect(&mut self) -> Result<()> {
        crate::obs::metrics::metrics().store_reconnects.inc(&[]);
        let mut conn = connect(&self.url, self.password_file.as_deref())?;
        conn.begin_session()?;
        self.conn = conn;
        Ok(())
    }

    /// The schema version recorded in the database.
    pub fn schema_version(&mut self) -> Result<i64> {
        schema::version(&mut self.conn)
    }
}

impl Store for PgStore {
    fn kind(&self) -> &'static str {
        "postgres"
    }

    fn read(&mut self) -> Result<Box<dyn Tx + '_>> {
        self.begin(Conn::begin_read)?;
        Ok(Box::new(tx::PgTx::top(&mut self.conn, false)))
    }

    fn write(&mut self) -> Result<Box<dyn Tx + '_>> {
        self.begin(Conn::begin_write)?;
        Ok(Box::new(tx::PgTx::top(&mut self.conn, true).sealed(self.seal.as_mut())))
    }

    fn group(&mut self) -> Result<Box<dyn Group + '_>> {
        self.begin(Conn::begin_write)?;
        // A group that failed on a write it sent ahead runs again waiting for each write.
        self.conn.optimistic = !std::mem::take(&mut self.conn.run_again);
        Ok(Box::new(group::PgGroup::new(&mut self.conn)))
    }

    fn group_runs_again(&self) -> bool {
        self.conn.run_again && !self.conn.is_lost()
    }

    fn maintenance(&mut self) -> Option<&mut dyn Maintenance> {
        // The server checkpoints its own write-ahead log; backups are pg_dump's (or `locker
        // store copy`'s).
        None
    }

    fn clock_offset(&self) -> i64 {
        self.conn.clock_offset
    }

    fn set_seal(&mut self, seal: Option<Seal>) {
        self.seal = seal;
    }

    fn parallel_reader(&self) -> Option<Box<dyn Store>> {
        // The schema is the one this connection brought up to date; nothing is migrated.
        let conn = connect(&self.url, self.password_file.as_deref()).ok()?;
        Some(Box::new(Self {
            conn,
            url: self.url.clone(),
            password_file: self.password_file.clone(),
            seal: None,
        }))
    }
}
