//! The SQLite store: one file in WAL mode with `synchronous=FULL`, every write transaction a
//! `BEGIN IMMEDIATE`, and a busy handler with jittered backoff so that concurrent writer
//! processes neither starve nor see `SQLITE_BUSY`.
//!
//! - `conn`, `schema`, `error`: the connection's set-up, the migrations, SQLite's errors;
//! - `tx`, `group`: transactions, and groups of them sharing one `BEGIN IMMEDIATE`;
//! - `rows`: result rows as row types;
//! - `merkle`: the journal's Merkle hashes, kept in its rows;
//! - `pads`, `journal`, `work`, `artifacts`, `agents`, `payments`, `retention`: each capability
//!   of [`Tx`];
//! - `maintenance`: the write-ahead log, backups and [`inspect`].

mod agents;
mod artifacts;
mod conn;
mod error;
mod group;
mod hashes;
mod journal;
mod maintenance;
mod merkle;
mod pads;
mod payments;
mod retention;
mod rows;
mod schema;
mod tx;
mod work;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

pub use conn::begin_without_waiting;
pub use maintenance::inspect;
pub use schema::SCHEMA_VERSION;

use crate::store::{objects, Group, Maintenance, Result, Seal, Store, StoreError, Tx};
use error::SqlResult as _;

/// A repository's SQLite database.
pub struct SqliteStore {
    conn: Connection,
    /// The database file.
    path: PathBuf,
    /// Where blobs too large to keep inline go: `objects/` beside the database.
    objects: PathBuf,
    /// Run in each write transaction before it commits ([`Store::set_seal`]).
    seal: Option<Seal>,
}

impl SqliteStore {
    /// Opens (and migrates) an existing repository's database file. A file with no schema (empty,
    /// truncated, or cut off from its write-ahead log) is refused, never initialised: only
    /// [`create`] makes a schema.
    pub fn open(path: &Path) -> Result<Self> {
        Self::open_with(path, false)
    }

    /// Opens a database file: an existing repository's, or (`new`) one `locker init` is making.
    fn open_with(path: &Path, new: bool) -> Result<Self> {
        let mut conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        let objects = path.parent().unwrap_or_else(|| Path::new(".")).join(objects::DIR);
        conn.busy_handler(Some(conn::busy_backoff))?;
        // Before anything is written (even WAL mode's header): a database with no schema is
        // refused untouched.
        if !new && schema::version(&conn)? == 0 {
            schema::require_repository(&conn)?;
        }
        conn::configure(&mut conn)?;
        if new {
            schema::migrate_new(&mut conn)?;
        } else {
            schema::migrate_existing(&mut conn)?;
        }
        Ok(Self { conn, path: path.to_owned(), objects, seal: None })
    }

    /// Opens an existing repository's database file for reading only: no migration, no
    /// pragma that writes, and SQLite refuses every write (`query_only`). A schema other than
    /// this locker's is refused rather than read with the wrong queries.
    pub fn open_read_only(path: &Path) -> Result<Self> {
        let mut conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_handler(Some(conn::busy_backoff))?;
        conn.execute_batch("PRAGMA query_only=ON;").db()?;
        let found = schema::version(&conn)?;
        if found != SCHEMA_VERSION {
            return Err(StoreError::Unsupported(format!(
                "schema version {found}, not {SCHEMA_VERSION}: not read without migrating it"
            )));
        }
        let objects = path.parent().unwrap_or_else(|| Path::new(".")).join(objects::DIR);
        Ok(Self { conn, path: path.to_owned(), objects, seal: None })
    }

    /// The schema version recorded in the database.
    pub fn schema_version(&self) -> Result<i64> {
        schema::version(&self.conn)
    }
}

/// Creates a new, empty database file with mode 0600 at `path` and applies the schema.
pub fn create(path: &Path) -> Result<SqliteStore> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| StoreError::Io(format!("{}: {e}", path.display())))?;
    SqliteStore::open_with(path, true)
}

impl Store for SqliteStore {
    fn kind(&self) -> &'static str {
        "sqlite"
    }

    fn read(&mut self) -> Result<Box<dyn Tx + '_>> {
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Deferred).db()?;
        Ok(Box::new(tx::SqliteTx::top(tx, false, &self.objects)))
    }

    fn write(&mut self) -> Result<Box<dyn Tx + '_>> {
        let Self { conn, objects, seal, .. } = self;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).db()?;
        conn::busy_done();
        Ok(Box::new(tx::SqliteTx::top(tx, true, objects).sealed(seal.as_mut())))
    }

    fn group(&mut self) -> Result<Box<dyn Group + '_>> {
        self.conn.execute_batch("BEGIN IMMEDIATE").db()?;
        conn::busy_done();
        Ok(Box::new(group::SqliteGroup::new(&mut self.conn, &self.objects)))
    }

    fn maintenance(&mut self) -> Option<&mut dyn Maintenance> {
        Some(self)
    }

    fn parallel_reader(&self) -> Option<Box<dyn Store>> {
        Some(Box::new(Self::open_read_only(&self.path).ok()?))
    }

    fn journal_holds_tree(&self) -> bool {
        true
    }

    fn set_seal(&mut self, seal: Option<Seal>) {
        self.seal = seal;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_once_and_refuses_a_newer_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("locker.db");
        let store = create(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        drop(store);
        let store = SqliteStore::open(&path).unwrap();
        let mode: String = store.conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
        assert_eq!(mode, "wal");
        let sync: i64 = store.conn.query_row("PRAGMA synchronous", [], |r| r.get(0)).unwrap();
        assert_eq!(sync, 2, "synchronous=FULL");
        let fk: i64 = store.conn.query_row("PRAGMA foreign_keys", [], |r| r.get(0)).unwrap();
        assert_eq!(fk, 1);
        store.conn.execute_batch(&format!("PRAGMA user_version = {}", SCHEMA_VERSION + 1)).unwrap();
        drop(store);
        match SqliteStore::open(&path) {
            Err(StoreError::SchemaTooNew { found, supported }) => {
                assert_eq!((found, supported), (SCHEMA_VERSION + 1, SCHEMA_VERSION));
            }
            other => panic!("expected SchemaTooNew, got {:?}", other.map(|_| ())),
        }
    }

    #[test]
    fn only_create_makes_a_schema() {
        let dir = tempfile::tempdir().unwrap();
        // An empty file (a truncated database, or one whose write-ahead log was lost).
        let path = dir.path().join("locker.db");
        std::fs::write(&path, b"").unwrap();
        assert!(matches!(SqliteStore::open(&path), Err(StoreError::Uninitialized(_))));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0, "nothing was written");
        // A schema missing its journal.
        let made = dir.path().join("made.db");
        drop(create(&made).unwrap());
        Connection::open(&made).unwrap().execute_batch("DROP TABLE journal").unwrap();
        match SqliteStore::open(&made) {
            Err(StoreError::Uninitialized(why)) => assert!(why.contains("journal"), "{why}"),
            other => panic!("expected Uninitialized, got {:?}", other.map(|_| ())),
        }
    }

    /// A seal that sets `sealed` to how many times it ran, and is kept while `keep` is on.
    fn counting_seal(
        runs: &std::sync::Arc<std::sync::atomic::AtomicUsize>,
        keep: &std::sync::Arc<std::sync::atomic::AtomicBool>,
    ) -> Seal {
        use std::sync::atomic::Ordering::SeqCst;
        let (runs, keep) = (std::sync::Arc::clone(runs), std::sync::Arc::clone(keep));
        Box::new(move |tx: &mut dyn Tx| {
            let n = runs.fetch_add(1, SeqCst) + 1;
            tx.set_setting("sealed", &n.to_string()).unwrap();
            keep.load(SeqCst)
        })
    }

    /// A write transaction of `store` that has set the setting `op`.
    fn writing<'s>(store: &'s mut dyn Store, op: &str) -> Box<dyn Tx + 's> {
        let mut tx = store.write().unwrap();
        tx.set_setting("op", op).unwrap();
        tx
    }

    #[test]
    fn a_seal_runs_in_each_write_transaction_before_its_commit() {
        use std::sync::atomic::Ordering::SeqCst;
        let dir = tempfile::tempdir().unwrap();
        let mut store = create(&dir.path().join("locker.db")).unwrap();
        let runs = std::sync::Arc::default();
        let keep = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        store.set_seal(Some(counting_seal(&runs, &keep)));
        let setting =
            |store: &mut SqliteStore, name: &str| store.read().unwrap().setting(name).unwrap();

        // Kept: committed with the transaction's own writes.
        writing(&mut store, "1").commit().unwrap();
        assert_eq!(runs.load(SeqCst), 1);
        assert_eq!(setting(&mut store, "op").as_deref(), Some("1"));
        assert_eq!(setting(&mut store, "sealed").as_deref(), Some("1"));

        // Refused: what it did is undone, the transaction's writes are committed.
        keep.store(false, SeqCst);
        writing(&mut store, "2").commit().unwrap();
        assert_eq!(runs.load(SeqCst), 2);
        assert_eq!(setting(&mut store, "op").as_deref(), Some("2"));
        assert_eq!(setting(&mut store, "sealed").as_deref(), Some("1"));

        // Not run: a read transaction, a write rolled back, a group's savepoints.
        keep.store(true, SeqCst);
        store.read().unwrap().commit().unwrap();
        drop(writing(&mut store, "dropped"));
        {
            let mut group = store.group().unwrap();
            writing(group.store(), "3").commit().unwrap();
            group.commit().unwrap();
        }
        assert_eq!(runs.load(SeqCst), 2);
        assert_eq!(setting(&mut store, "op").as_deref(), Some("3"));

        // Removed: no longer run.
        store.set_seal(None);
        store.write().unwrap().commit().unwrap();
        assert_eq!(runs.load(SeqCst), 2);
    }

    #[test]
    fn the_last_connection_to_close_folds_a_long_log_in() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("locker.db");
        let wal = maintenance::wal_path(&path);
        drop(create(&path).unwrap());
        let write = |store: &mut SqliteStore, bytes: usize| {
            let mut tx = store.write().unwrap();
            tx.set_setting("filler", &"x".repeat(bytes)).unwrap();
            tx.commit().unwrap();
        };
        // A short log is left for the next process (no fsync of the database on close).
        let mut store = SqliteStore::open(&path).unwrap();
        write(&mut store, 100);
        drop(store);
        let short = std::fs::metadata(&wal).unwrap().len();
        assert!(short > 0 && short < maintenance::FOLD_ON_CLOSE, "{short}");
        // A long one, beside another connection, is left to that one.
        let mut store = SqliteStore::open(&path).unwrap();
        let other = SqliteStore::open(&path).unwrap();
        write(&mut store, 2 * maintenance::FOLD_ON_CLOSE as usize);
        drop(store);
        assert!(std::fs::metadata(&wal).unwrap().len() >= maintenance::FOLD_ON_CLOSE);
        // The last connection to close folds it into the database and removes it.
        drop(other);
        assert!(!wal.exists(), "the log was folded in");
        let mut store = SqliteStore::open(&path).unwrap();
        let kept = store.read().unwrap().setting("filler").unwrap().unwrap();
        assert_eq!(kept.len(), 2 * maintenance::FOLD_ON_CLOSE as usize);
    }
}
