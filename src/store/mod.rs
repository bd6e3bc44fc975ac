//! The storage trait and its backends.
//!
//! [`Store`] opens transactions; a [`Tx`] reads and writes rows, one capability trait at a
//! time ([`PadStore`], [`JournalStore`], [`WorkStore`], [`ArtifactStore`], [`AgentStore`],
//! [`PaymentStore`], [`RetentionStore`]; [`prelude`] brings them all into scope). Every rule
//! (check order, hashing, journaling) lives above these traits in `ops`, so another backend
//! (PostgreSQL, for several servers sharing one repository) only has to persist rows and
//! serialise writers: a write transaction must hold a lock that excludes every other writer of
//! the repository from its first read to its commit.
//!
//! - `rows`: the row types and queries; `tx`: the capability traits; `maintenance`: the
//!   housekeeping traits; `sql`: what the SQL backends share (column lists, row mapping);
//! - `sqlite`, `postgres`: the backends, each split the same way; `objects`: blob files.
//!
//! Housekeeping that only some backends need (SQLite's write-ahead log, file-by-file backups,
//! blob files outside the database) is apart from data access: [`Maintenance`], reached
//! through [`Store::maintenance`], and [`BlobFiles`], reached through
//! [`RetentionStore::blob_files`]. Neither the traits nor [`StoreError`] name a backend's
//! types: each backend converts its own errors.

mod maintenance;
pub mod objects;
pub mod postgres;
pub mod prelude;
mod rows;
mod sql;
pub mod sqlite;
mod tx;

use std::path::Path;

pub use maintenance::{BackupStats, BlobFiles, CheckpointStats, Maintenance, StrayFile};
pub use rows::{
    AgentKeyRow, AgentRow, ArtifactHeadRow, ArtifactQuery, ArtifactVersionRow, BlobRow,
    BlobStorage, BlockRef, BlockRow, CheckpointRow, Counts, JournalHead, JournalQuery, JournalRow,
    LeaseCounts, LeaseQuery, LeaseRow, PadQuery, PadRow, PaymentRow, PlanRow, ReceiptRow,
    SignerRow, StepRow, TicketRow,
};
pub use tx::{
    AgentStore, ArtifactStore, JournalStore, PadStore, PaymentStore, RetentionStore, Tx, WorkStore,
};

use crate::domain::digest::Digest;

/// A failure of the storage layer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the repository's schema version {found} is newer than this locker supports ({supported}); upgrade locker")]
    SchemaTooNew { found: i64, supported: i64 },
    #[error("the store is busy: another writer held the repository for too long")]
    Busy,
    #[error("the stored data is malformed: {0}")]
    Corrupt(String),
    /// The store's files are damaged below the rows (SQLite: a malformed page).
    #[error("the database file is damaged: {0}")]
    Damaged(String),
    /// A stored row holds a value locker never writes there (a column of another type, a
    /// digest that is not one, a state no version knows): the row was altered outside locker.
    /// `locker verify` reports it as a finding; every other command refuses as for
    /// [`StoreError::Damaged`].
    #[error("a stored row cannot be read: {0}")]
    Unreadable(String),
    #[error("a unique constraint was violated: {0}")]
    Duplicate(String),
    #[error("the disk is full")]
    DiskFull,
    #[error("the repository is read-only")]
    ReadOnly,
    #[error("storage I/O failed: {0}")]
    Io(String),
    /// The database server cannot be reached, or the connection to it was lost (PostgreSQL);
    /// locker connects again on its own once it is back.
    #[error("the database is unavailable: {0}")]
    Unreachable(String),
    /// Any other failure of the backend, in its own words: `backend` names it for people
    /// (`SQLite`, `PostgreSQL`).
    #[error("{backend}: {detail}")]
    Backend { backend: &'static str, detail: String },
    #[error("{0}")]
    Unsupported(String),
    /// The database holds no repository: no schema, or not the tables one needs. Only `locker
    /// init` creates a schema, so this is refused rather than initialised.
    #[error("the database holds no locker repository: {0}")]
    Uninitialized(String),
    #[error("blob {digest} is missing from the store ({location})")]
    BlobMissing { digest: Digest, location: String },
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// A callback's answer while streaming rows.
pub type Flow = std::ops::ControlFlow<()>;

/// A repository store.
pub trait Store: Send {
    /// `"sqlite"` or `"postgres"`.
    fn kind(&self) -> &'static str;
    /// A consistent read-only snapshot.
    fn read(&mut self) -> Result<Box<dyn Tx + '_>>;
    /// A write transaction holding the repository's write lock from its start to its commit.
    fn write(&mut self) -> Result<Box<dyn Tx + '_>>;
    /// A group commit: one write transaction (holding the write lock like [`Store::write`])
    /// in which several operations run one after another, each in a nested transaction of
    /// its own, made durable together by [`Group::commit`].
    fn group(&mut self) -> Result<Box<dyn Group + '_>>;
    /// Whether the last group failed on a write the store sent without waiting for its
    /// answer (PostgreSQL sends a group's writes ahead, see `Conn::optimistic`), while the
    /// store is still usable: the group's operations should run again in a new group, which
    /// waits for each operation's writes, so that a failure is only its own operation's.
    fn group_runs_again(&self) -> bool {
        false
    }
    /// The store's own housekeeping (SQLite: its write-ahead log, file-by-file backups), or
    /// `None` when it has none (PostgreSQL looks after itself) or none can run here (the store
    /// a [`Group`] lends).
    fn maintenance(&mut self) -> Option<&mut dyn Maintenance>;
    /// Seconds to add to this host's clock to read the store's (PostgreSQL: the database
    /// server's, so that every host journals in one clock); 0 for a store on this machine.
    fn clock_offset(&self) -> i64 {
        0
    }
    /// A second connection to the same store, for reading beside this one (`locker verify`
    /// walks the pads' chains on it while this connection reads the journal), or `None` when
    /// there is none: a group's savepoints, or a connection that cannot be opened. What it
    /// reads is a snapshot of its own; its caller checks that it is the same.
    fn parallel_reader(&self) -> Option<Box<dyn Store>> {
        None
    }
    /// Whether this store keeps the journal's Merkle hashes in the journal's rows, so that
    /// [`JournalStore::for_each_journal_with_tree`] reads them with the entries (SQLite) and a
    /// second read of them is wasted.
    fn journal_holds_tree(&self) -> bool {
        false
    }
    /// Runs `seal` in each write transaction of this store's own just before it commits, or
    /// stops with `None`. The store a group lends ignores it: the group's owner seals the
    /// group itself.
    fn set_seal(&mut self, _seal: Option<Seal>) {}
}

/// Work a store runs inside each write transaction of its own just before the commit, in a
/// savepoint: `true` keeps what it did, `false` undoes it, and the transaction commits either
/// way. What a short-lived writer makes durable in the same commit as its writes (the CLI signs
/// the checkpoint of the journal a command grew), instead of in a second transaction after it.
pub type Seal = Box<dyn FnMut(&mut dyn Tx) -> bool + Send>;

/// One write transaction shared by several operations. The store it lends
/// ([`Group::store`]) opens a nested transaction (a savepoint) on every `read()` and
/// `write()`: committing one keeps its changes in the group, dropping one undoes its changes
/// and nothing else. Nothing is durable before [`Group::commit`]; dropping the group undoes
/// everything.
pub trait Group: Send {
    /// The store the next operation runs on.
    fn store(&mut self) -> &mut dyn Store;
    /// Whether the group's transaction is still open (a storage failure can end it early,
    /// undoing everything done in it so far).
    fn is_open(&self) -> bool;
    /// Makes every kept change durable at once.
    fn commit(self: Box<Self>) -> Result<()>;
}

/// The store a backend's [`Group`] lends: every transaction it opens is a savepoint inside the
/// group's one write transaction. Each such type is a [`Store`] through the impl below, so what
/// a group refuses is written once for every backend.
pub trait Savepoints: Send {
    /// The backend's [`Store::kind`].
    fn backend_kind(&self) -> &'static str;
    /// The backend's [`Store::clock_offset`].
    fn backend_clock_offset(&self) -> i64 {
        0
    }
    /// A nested transaction (a savepoint), read-only unless `writable`.
    fn savepoint(&mut self, writable: bool) -> Result<Box<dyn Tx + '_>>;
}

impl<S: Savepoints> Store for S {
    fn kind(&self) -> &'static str {
        self.backend_kind()
    }

    fn read(&mut self) -> Result<Box<dyn Tx + '_>> {
        self.savepoint(false)
    }

    fn write(&mut self) -> Result<Box<dyn Tx + '_>> {
        self.savepoint(true)
    }

    fn group(&mut self) -> Result<Box<dyn Group + '_>> {
        Err(StoreError::Io("a group cannot be opened inside a group".into()))
    }

    fn maintenance(&mut self) -> Option<&mut dyn Maintenance> {
        // Housekeeping never runs inside a group's transaction.
        None
    }

    fn clock_offset(&self) -> i64 {
        self.backend_clock_offset()
    }
}

/// Facts about a store read without opening it for use (no migration, no writes), for
/// `locker doctor`.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreInfo {
    pub kind: &'static str,
    /// The schema version the stored data has, and the one this binary writes.
    pub schema_version: i64,
    pub supported_schema: i64,
    /// The store's files (relative to `.locker/`) and their sizes; none for a database kept
    /// by a server.
    pub files: Vec<(String, u64)>,
    /// The time of the newest journal entry, if any.
    pub newest_journal_time: Option<i64>,
    /// What only a SQLite store has.
    pub sqlite: Option<SqliteInfo>,
    /// What only a PostgreSQL store has.
    pub postgres: Option<PgInfo>,
}

/// Facts about the PostgreSQL server behind a store, for `locker doctor`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PgInfo {
    /// `SHOW server_version`.
    pub server_version: String,
    /// The TLS version of this connection, if it is encrypted.
    pub tls: Option<String>,
    /// Whether the server is a standby (in recovery).
    pub in_recovery: bool,
    /// Standbys streaming from it, and how many of them are synchronous.
    pub standbys: u64,
    pub sync_standbys: u64,
    /// Connections to the server, and its limit.
    pub connections: u64,
    pub max_connections: u64,
    /// Who holds the journal's lock now, if anyone: the holder's application name and how
    /// long its transaction has been open (seconds).
    pub lock_holder: Option<(String, f64)>,
}

/// Facts only a SQLite store has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SqliteInfo {
    /// Bytes of the write-ahead log not yet folded into the database (0 if none).
    pub wal_bytes: u64,
    /// Unused pages inside the database file, in bytes.
    pub free_bytes: u64,
}

/// Where a repository's store is: the `store` of its `config.json` (`sqlite:FILE`, relative to
/// `.locker/`, or `postgres://USER@HOST:PORT/DATABASE`) and, for PostgreSQL, the file holding
/// the password (else `PGPASSWORD` or `~/.pgpass`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreUrl {
    pub url: String,
    pub password_file: Option<std::path::PathBuf>,
}

impl StoreUrl {
    /// A store URL without a password file.
    pub fn new(url: impl Into<String>) -> Self {
        Self { url: url.into(), password_file: None }
    }

    /// Whether it names a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        postgres::is_url(&self.url)
    }
}

/// Reads facts about the store a repository's config names without opening it for use.
pub fn inspect(loc: &StoreUrl, dot_locker: &Path) -> Result<StoreInfo> {
    if loc.is_postgres() {
        return postgres::inspect(&loc.url, loc.password_file.as_deref());
    }
    match loc.url.strip_prefix("sqlite:") {
        Some(rel) => sqlite::inspect(&dot_locker.join(rel)),
        None => Err(StoreError::Corrupt(format!("unknown store `{}` in config.json", loc.url))),
    }
}

/// Opens a PostgreSQL database for a new repository (or one joining it), creating its schema
/// if it has none: what `locker init --store` and `locker store copy --to` do. (A new SQLite
/// database is [`sqlite::create`]d.)
pub fn create_shared(loc: &StoreUrl) -> Result<Box<dyn Store>> {
    Ok(Box::new(postgres::PgStore::create(&loc.url, loc.password_file.as_deref())?))
}

thread_local! {
    /// Whether this thread was marked by [`blocking`].
    static MAY_BLOCK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with this thread marked as one that may block although a Tokio runtime's handle is
/// current: a `spawn_blocking` thread, where the server runs every read. A store may then drive
/// a synchronous client inline there (PostgreSQL's runs a runtime of its own, which Tokio
/// allows on a blocking thread but not inside a task) instead of on a new thread per query.
pub fn blocking<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            MAY_BLOCK.with(|m| m.set(self.0));
        }
    }
    let _restore = Restore(MAY_BLOCK.with(|m| m.replace(true)));
    f()
}

/// Runs `f` with the write group it begins on this thread refused at once
/// ([`StoreError::Busy`]) where another process holds the write lock, instead of waiting for
/// it: SQLite's (see [`sqlite::begin_without_waiting`]); PostgreSQL's client waits as ever.
pub fn begin_without_waiting<T>(f: impl FnOnce() -> T) -> T {
    sqlite::begin_without_waiting(f)
}

/// Whether this thread runs inside [`blocking`].
pub(crate) fn may_block() -> bool {
    MAY_BLOCK.with(std::cell::Cell::get)
}

/// Opens the store a repository's config names (a SQLite file relative to its `.locker/`
/// directory, or a PostgreSQL database), bringing its schema up to date. A store that holds
/// no repository (no schema, no journal) is refused with [`StoreError::Uninitialized`]: only
/// `locker init` creates one.
pub fn open(loc: &StoreUrl, dot_locker: &Path) -> Result<Box<dyn Store>> {
    if loc.is_postgres() {
        return Ok(Box::new(postgres::PgStore::open(&loc.url, loc.password_file.as_deref())?));
    }
    match loc.url.strip_prefix("sqlite:") {
        Some(rel) => Ok(Box::new(sqlite::SqliteStore::open(&dot_locker.join(rel))?)),
        None => Err(StoreError::Corrupt(format!("unknown store `{}` in config.json", loc.url))),
    }
}

/// Opens a repository's SQLite store for reading only (see
/// [`sqlite::SqliteStore::open_read_only`]): nothing is migrated or written. A PostgreSQL store
/// is refused (connecting to it is not the quick, local read this is for).
pub fn open_read_only(loc: &StoreUrl, dot_locker: &Path) -> Result<Box<dyn Store>> {
    match loc.url.strip_prefix("sqlite:") {
        Some(rel) if !loc.is_postgres() => {
            Ok(Box::new(sqlite::SqliteStore::open_read_only(&dot_locker.join(rel))?))
        }
        _ => Err(StoreError::Unsupported(format!("no read-only opening of `{}`", loc.url))),
    }
}
