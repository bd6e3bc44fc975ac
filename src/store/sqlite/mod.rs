//! The SQLite store: one file in WAL mode with `synchronous=FULL`, every write transaction a
//! `BEGIN IMMEDIATE`, and a busy handler with jittered backoff so that concurrent writer
//! processes neither starve nor see `SQLITE_BUSY`.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{params, Connection, OpenFlags, OptionalExtension, Row, TransactionBehavior};

use super::{
    objects, AgentKeyRow, AgentRow, ArtifactHeadRow, ArtifactQuery, ArtifactVersionRow,
    BackupStats, BlobFiles, BlobRow, BlobStorage, BlockRow, CheckpointRow, CheckpointStats, Counts,
    Flow, Group, JournalHead, JournalQuery, JournalRow, LeaseQuery, LeaseRow, Maintenance,
    PadQuery, PadRow, PaymentRow, PlanRow, ReceiptRow, Result, Savepoints, SqliteInfo, StepRow,
    Store, StoreError, StoreInfo, StrayFile, TicketRow, Tx,
};
use crate::domain::digest::Digest;
use crate::domain::pad::{StoredState, TicketType};
use crate::domain::work::{Fence, LeaseState};

/// Append-only migrations; the schema version is their count (`PRAGMA user_version`).
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/0001_init.sql"),
    include_str!("migrations/0002_artifacts.sql"),
    include_str!("migrations/0003_leases.sql"),
    include_str!("migrations/0004_payments.sql"),
    include_str!("migrations/0005_retention.sql"),
    include_str!("migrations/0006_work_retention.sql"),
    include_str!("migrations/0007_merkle.sql"),
    include_str!("migrations/0008_agent_keys.sql"),
];

/// The schema version this binary writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// How long a writer keeps retrying a locked repository before giving up.
const BUSY_DEADLINE: Duration = Duration::from_secs(60);

/// A repository's SQLite database.
pub struct SqliteStore {
    conn: Connection,
    /// The database file.
    path: PathBuf,
    /// Where blobs too large to keep inline go: `objects/` beside the database.
    objects: PathBuf,
}

impl SqliteStore {
    /// Opens (and migrates) an existing database file.
    pub fn open(path: &Path) -> Result<Self> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        let objects = path.parent().unwrap_or_else(|| Path::new(".")).join(objects::DIR);
        Self::configure(conn, path.to_owned(), objects)
    }

    fn configure(mut conn: Connection, path: PathBuf, objects: PathBuf) -> Result<Self> {
        conn.busy_handler(Some(busy_backoff))?;
        let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Io(format!("could not enable WAL mode (got {mode})")));
        }
        // secure_delete=FAST: text a row update or gc replaces is zeroed inside the pages
        // being written anyway (no extra I/O), so pruned text leaves no copy in free space.
        conn.execute_batch(
            "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-16384; \
             PRAGMA secure_delete=FAST;",
        )?;
        // After a checkpoint has reset the write-ahead log, cut it back to this size, so that
        // one burst of writes does not leave a large file behind for good.
        conn.query_row("PRAGMA journal_size_limit=67108864", [], |_| Ok(()))?;
        // Closing a connection does not fold the write-ahead log into the database (two more
        // fsyncs for every short-lived CLI process); commits still do once it passes 1000
        // pages, so it stays bounded, and every commit is durable in it already.
        conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        migrate(&mut conn)?;
        Ok(Self { conn, path, objects })
    }

    /// The schema version recorded in the database.
    pub fn schema_version(&self) -> Result<i64> {
        Ok(self.conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }
}

fn migrate(conn: &mut Connection) -> Result<()> {
    let current: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if current > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew { found: current, supported: SCHEMA_VERSION });
    }
    if current == SCHEMA_VERSION {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let current: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if current > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew { found: current, supported: SCHEMA_VERSION });
    }
    let from = usize::try_from(current).unwrap_or(0);
    for m in &MIGRATIONS[from..] {
        tx.execute_batch(m)?;
    }
    tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))?;
    tx.commit()?;
    Ok(())
}

thread_local! {
    static BUSY_SINCE: Cell<Option<Instant>> = const { Cell::new(None) };
    static RNG: Cell<u64> = Cell::new(u64::from_le_bytes(crate::domain::secret::random_bytes::<8>()) | 1);
}

/// SQLite's busy handler: sleeps a random 25%–100% of an interval that doubles from 50 µs up
/// to 2 ms, so that waiting writers wake at different times and none is starved by the long,
/// fixed sleeps of the default handler; gives up after [`BUSY_DEADLINE`].
fn busy_backoff(attempt: i32) -> bool {
    let now = Instant::now();
    let since = BUSY_SINCE.with(|c| {
        if attempt == 0 || c.get().is_none() {
            c.set(Some(now));
        }
        c.get().unwrap_or(now)
    });
    if now.duration_since(since) > BUSY_DEADLINE {
        BUSY_SINCE.with(|c| c.set(None));
        return false;
    }
    let cap = 50u64 << attempt.clamp(0, 5);
    let r = RNG.with(|c| {
        let mut x = c.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        c.set(x);
        x
    });
    let micros = cap / 4 + r % (cap - cap / 4 + 1);
    std::thread::sleep(Duration::from_micros(micros));
    true
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        map_err(e)
    }
}

/// Maps SQLite failures that a user can act on to their own variants.
fn map_err(e: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode as C;
    match e.sqlite_error_code() {
        Some(C::DatabaseBusy | C::DatabaseLocked) => StoreError::Busy,
        Some(C::DiskFull) => StoreError::DiskFull,
        Some(C::ReadOnly) => StoreError::ReadOnly,
        Some(C::SystemIoFailure | C::CannotOpen) => StoreError::Io(e.to_string()),
        Some(C::ConstraintViolation) => StoreError::Duplicate(e.to_string()),
        _ => StoreError::Backend { backend: "SQLite", detail: e.to_string() },
    }
}

/// A failure writing a blob file; a full or read-only disk is named as such.
fn blob_io(digest: &Digest, e: &std::io::Error) -> StoreError {
    match e.kind() {
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => StoreError::DiskFull,
        std::io::ErrorKind::ReadOnlyFilesystem => StoreError::ReadOnly,
        _ => StoreError::Io(format!("{}: {e}", objects::display(digest))),
    }
}

trait SqlResult<T> {
    fn db(self) -> Result<T>;
}
impl<T> SqlResult<T> for rusqlite::Result<T> {
    fn db(self) -> Result<T> {
        self.map_err(map_err)
    }
}

impl Store for SqliteStore {
    fn kind(&self) -> &'static str {
        "sqlite"
    }

    fn read(&mut self) -> Result<Box<dyn Tx + '_>> {
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Deferred).db()?;
        Ok(Box::new(SqliteTx {
            tx: Handle::Top(tx),
            writable: false,
            objects: &self.objects,
            created: CreatedFiles::default(),
            remove_on_commit: Vec::new(),
            group: None,
        }))
    }

    fn write(&mut self) -> Result<Box<dyn Tx + '_>> {
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).db()?;
        BUSY_SINCE.with(|c| c.set(None));
        Ok(Box::new(SqliteTx {
            tx: Handle::Top(tx),
            writable: true,
            objects: &self.objects,
            created: CreatedFiles::default(),
            remove_on_commit: Vec::new(),
            group: None,
        }))
    }

    fn group(&mut self) -> Result<Box<dyn Group + '_>> {
        self.conn.execute_batch("BEGIN IMMEDIATE").db()?;
        BUSY_SINCE.with(|c| c.set(None));
        Ok(Box::new(SqliteGroup {
            conn: &mut self.conn,
            objects: &self.objects,
            finished: false,
            files: GroupFiles::default(),
        }))
    }

    fn maintenance(&mut self) -> Option<&mut dyn Maintenance> {
        Some(self)
    }
}

impl Maintenance for SqliteStore {
    fn defer_maintenance(&mut self) -> Result<()> {
        self.conn.execute_batch("PRAGMA wal_autocheckpoint = 0").db()
    }

    fn maintain(&mut self) -> Result<()> {
        // PASSIVE: copies what it can without waiting for (or blocking) readers and writers.
        self.conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())).db()
    }

    fn settle_on_close(&mut self) -> Result<()> {
        self.conn
            .set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, false)
            .db()?;
        Ok(())
    }

    fn backup(&mut self, dest_dot: &Path) -> Result<BackupStats> {
        use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
        let io = |what: &Path| {
            let what = what.display().to_string();
            move |e: std::io::Error| StoreError::Io(format!("{what}: {e}"))
        };
        let name = self.path.file_name().unwrap_or_else(|| std::ffi::OsStr::new("locker.db"));
        let dest_db = dest_dot.join(name);
        // VACUUM INTO fills an existing empty file, which keeps the mode it was made with.
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&dest_db)
            .map_err(io(&dest_db))?;
        let dest_str = dest_db
            .to_str()
            .ok_or_else(|| StoreError::Io(format!("{} is not valid UTF-8", dest_db.display())))?;
        // One read transaction: a consistent snapshot, while writers go on.
        self.conn.execute("VACUUM INTO ?1", [dest_str]).db()?;
        let dest_objects = dest_dot.join(objects::DIR);
        std::fs::DirBuilder::new().mode(0o700).create(&dest_objects).map_err(io(&dest_objects))?;
        let mut stats = BackupStats::default();
        {
            let mut dest = SqliteStore::open(&dest_db)?;
            // The copy is one self-contained file: its connection folds the log in on close.
            dest.settle_on_close()?;
            let files: Vec<(String, i64)> = {
                let mut stmt = dest
                    .conn
                    .prepare(
                        "SELECT digest, size FROM blobs WHERE storage = 'file' ORDER BY digest",
                    )
                    .db()?;
                let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).db()?;
                rows.collect::<rusqlite::Result<Vec<_>>>().db()?
            };
            for (hex, size) in files {
                let digest = Digest::parse(&hex).map_err(|_| {
                    StoreError::Corrupt(format!("blob digest `{hex}` is malformed"))
                })?;
                let size = u64::try_from(size).unwrap_or(0);
                match objects::read(&self.objects, &digest, size) {
                    Ok(bytes) => {
                        objects::write(&dest_objects, &digest, &bytes).map_err(|e| {
                            StoreError::Io(format!("{}: {e}", objects::display(&digest)))
                        })?;
                        stats.blob_files += 1;
                        stats.blob_bytes += bytes.len() as u64;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        // Removed by a `locker gc` that committed after the snapshot: gc only
                        // removes blobs no version names, so the copy can drop it too. If the
                        // source still has the row, its file is really missing, and the copy's
                        // verification will say so.
                        let still: bool = self
                            .conn
                            .query_row(
                                "SELECT EXISTS (SELECT 1 FROM blobs WHERE digest = ?1)",
                                [&hex],
                                |r| r.get(0),
                            )
                            .db()?;
                        if !still {
                            stats.blobs_dropped += dest
                                .conn
                                .execute(
                                    "DELETE FROM blobs WHERE digest = ?1 AND NOT EXISTS \
                                     (SELECT 1 FROM artifact_versions WHERE blob = ?1)",
                                    [&hex],
                                )
                                .db()? as u64;
                        }
                    }
                    Err(e) => {
                        return Err(StoreError::Io(format!("{}: {e}", objects::display(&digest))))
                    }
                }
            }
            // Closing the last connection folds the write-ahead log into the file.
        }
        std::fs::File::open(&dest_db).and_then(|f| f.sync_all()).map_err(io(&dest_db))?;
        std::fs::File::open(dest_dot).and_then(|f| f.sync_all()).map_err(io(dest_dot))?;
        stats.database_bytes = std::fs::metadata(&dest_db).map_err(io(&dest_db))?.len();
        Ok(stats)
    }

    fn checkpoint(&mut self) -> Result<CheckpointStats> {
        let wal = wal_path(&self.path);
        let before = file_len(&wal);
        let busy: i64 =
            self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0)).db()?;
        BUSY_SINCE.with(|c| c.set(None));
        Ok(CheckpointStats {
            busy: busy != 0,
            wal_bytes_before: before,
            wal_bytes_after: file_len(&wal),
        })
    }
}

/// The write-ahead log beside a database file.
fn wal_path(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push("-wal");
    PathBuf::from(s)
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Reads a database's schema version, sizes and newest journal time without migrating it or
/// writing to it.
pub fn inspect(path: &Path) -> Result<StoreInfo> {
    if !path.is_file() {
        return Err(StoreError::Io(format!("{} does not exist", path.display())));
    }
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_handler(Some(busy_backoff))?;
    let schema_version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let page_size: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
    let free_pages: i64 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0))?;
    let has_journal: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'journal')",
        [],
        |r| r.get(0),
    )?;
    let newest_journal_time: Option<i64> = if has_journal {
        conn.query_row("SELECT MAX(time) FROM journal", [], |r| r.get(0))?
    } else {
        None
    };
    drop(conn);
    let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let wal = wal_path(path);
    let mut files = vec![(name.clone(), file_len(path))];
    for suffix in ["-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        if let Ok(m) = std::fs::symlink_metadata(PathBuf::from(p)) {
            files.push((format!("{name}{suffix}"), m.len()));
        }
    }
    Ok(StoreInfo {
        kind: "sqlite",
        schema_version,
        supported_schema: SCHEMA_VERSION,
        files,
        newest_journal_time,
        sqlite: Some(SqliteInfo {
            wal_bytes: file_len(&wal),
            free_bytes: u64::try_from(page_size.saturating_mul(free_pages)).unwrap_or(0),
        }),
    })
}

/// One `BEGIN IMMEDIATE` transaction shared by several operations: each operation's
/// transaction is a savepoint inside it.
struct SqliteGroup<'c> {
    conn: &'c mut Connection,
    objects: &'c Path,
    /// Committed (or known to be gone): nothing to roll back when dropped.
    finished: bool,
    /// What the group's committed savepoints did to blob files.
    files: GroupFiles,
}

/// Blob files a group's committed savepoints created (removed unless the group commits) and
/// deleted rows of (removed once it commits).
#[derive(Default)]
struct GroupFiles {
    created: CreatedFiles,
    remove: Vec<PathBuf>,
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
        Ok(Box::new(SqliteTx {
            tx: Handle::Nested(sp),
            writable,
            objects: self.objects,
            created: CreatedFiles::default(),
            remove_on_commit: Vec::new(),
            group: Some(&mut self.files),
        }))
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

/// A transaction of its own, or a savepoint inside a group's.
enum Handle<'c> {
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

struct SqliteTx<'c> {
    // Declared first so that it is dropped (rolled back) before `created` removes its files.
    tx: Handle<'c>,
    writable: bool,
    objects: &'c Path,
    created: CreatedFiles,
    /// Blob files whose rows this transaction deleted (or that no row names): removed once it
    /// commits. A crash in between leaves them as stray files for the next `locker gc`.
    remove_on_commit: Vec<PathBuf>,
    /// In a group: where a committed savepoint hands its created and deleted files, so that
    /// they are dealt with when the group commits (or not).
    group: Option<&'c mut GroupFiles>,
}

/// Blob files a write transaction created; removed again unless it commits. While the
/// transaction holds the write lock no other writer can come to rely on them, and no committed
/// row names them, so removing them is safe.
#[derive(Default)]
struct CreatedFiles(Vec<PathBuf>);

impl CreatedFiles {
    fn keep(&mut self) {
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

fn digest_col(row: &Row<'_>, idx: usize) -> rusqlite::Result<Digest> {
    let s: String = row.get(idx)?;
    Digest::parse(&s).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, Box::new(e))
    })
}

fn u64_col(row: &Row<'_>, idx: usize) -> rusqlite::Result<u64> {
    let v: i64 = row.get(idx)?;
    u64::try_from(v).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Integer, Box::new(e))
    })
}

fn sql_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn bad_value(idx: usize, what: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        idx,
        rusqlite::types::Type::Text,
        format!("unknown {what}").into(),
    )
}

const PAD_COLS: &str = "id, scope, created_at, expires_at, max_blocks, max_bytes, block_count, \
                        current_bytes, state, write_key_hash, head_hash, sealed_at, pruned_at";

fn pad_row(r: &Row<'_>) -> rusqlite::Result<PadRow> {
    let state: String = r.get(8)?;
    Ok(PadRow {
        id: r.get(0)?,
        scope: r.get(1)?,
        created_at: r.get(2)?,
        expires_at: r.get(3)?,
        max_blocks: r.get(4)?,
        max_bytes: u64_col(r, 5)?,
        block_count: u64_col(r, 6)?,
        current_bytes: u64_col(r, 7)?,
        state: StoredState::parse(&state).ok_or_else(|| bad_value(8, "pad state"))?,
        write_key_hash: digest_col(r, 9)?,
        head_hash: digest_col(r, 10)?,
        sealed_at: r.get(11)?,
        pruned_at: r.get(12)?,
    })
}

const BLOCK_COLS: &str =
    "pad_id, seq, prev_hash, curr_hash, content_type, payload, created_at, pruned_bytes";

fn block_row(r: &Row<'_>) -> rusqlite::Result<BlockRow> {
    Ok(BlockRow {
        pad_id: r.get(0)?,
        seq: u64_col(r, 1)?,
        prev_hash: digest_col(r, 2)?,
        curr_hash: digest_col(r, 3)?,
        content_type: r.get(4)?,
        payload: r.get(5)?,
        created_at: r.get(6)?,
        pruned_bytes: r.get::<_, Option<i64>>(7)?.map(|n| u64::try_from(n).unwrap_or(u64::MAX)),
    })
}

const TICKET_COLS: &str = "digest, pad_id, type, created_at, lease_started_at, revoked_at";

fn ticket_row(r: &Row<'_>) -> rusqlite::Result<TicketRow> {
    let t: String = r.get(2)?;
    Ok(TicketRow {
        digest: digest_col(r, 0)?,
        pad_id: r.get(1)?,
        ticket_type: TicketType::parse(&t).ok_or_else(|| bad_value(2, "ticket type"))?,
        created_at: r.get(3)?,
        lease_started_at: r.get(4)?,
        revoked_at: r.get(5)?,
    })
}

const JOURNAL_COLS: &str = "seq, prev_hash, hash, entry, time, kind, actor, scope, subject";

fn journal_row(r: &Row<'_>) -> rusqlite::Result<JournalRow> {
    Ok(JournalRow {
        seq: u64_col(r, 0)?,
        prev_hash: digest_col(r, 1)?,
        hash: digest_col(r, 2)?,
        entry: r.get(3)?,
        time: r.get(4)?,
        kind: r.get(5)?,
        actor: r.get(6)?,
        scope: r.get(7)?,
        subject: r.get(8)?,
    })
}

const AGENT_COLS: &str = "name, scope, token_hash, created_at, revoked_at";

fn agent_row(r: &Row<'_>) -> rusqlite::Result<AgentRow> {
    Ok(AgentRow {
        name: r.get(0)?,
        scope: r.get(1)?,
        token_hash: digest_col(r, 2)?,
        created_at: r.get(3)?,
        revoked_at: r.get(4)?,
    })
}

const BLOB_COLS: &str = "digest, size, storage, created_at";

fn blob_row(r: &Row<'_>) -> rusqlite::Result<BlobRow> {
    let digest = digest_col(r, 0)?;
    let storage: String = r.get(2)?;
    let (storage, location) = match storage.as_str() {
        "inline" => (BlobStorage::Inline, "inline".to_owned()),
        "file" => (BlobStorage::File, objects::display(&digest)),
        _ => return Err(bad_value(2, "blob storage")),
    };
    Ok(BlobRow { digest, size: u64_col(r, 1)?, storage, location, created_at: r.get(3)? })
}

const VERSION_COLS: &str = "scope, key, version, blob, size, actor, op_id, created_at";

fn version_row(r: &Row<'_>) -> rusqlite::Result<ArtifactVersionRow> {
    Ok(ArtifactVersionRow {
        scope: r.get(0)?,
        key: r.get(1)?,
        version: u64_col(r, 2)?,
        blob: digest_col(r, 3)?,
        size: u64_col(r, 4)?,
        actor: r.get(5)?,
        op_id: r.get(6)?,
        created_at: r.get(7)?,
    })
}

fn head_row(r: &Row<'_>) -> rusqlite::Result<ArtifactHeadRow> {
    Ok(ArtifactHeadRow { scope: r.get(0)?, key: r.get(1)?, version: u64_col(r, 2)? })
}

const RECEIPT_COLS: &str =
    "actor, op_id, scope, key, expected_version, version, created_at, fence_work, fence_token";

const PAYMENT_COLS: &str = "tx_hash, pad_id, payer, amount_units, token, recipient, chain_id, \
     block_number, redeemed_at";

const CHECKPOINT_COLS: &str = "size, root, note, signed_at";

fn checkpoint_row(r: &Row<'_>) -> rusqlite::Result<CheckpointRow> {
    Ok(CheckpointRow {
        size: u64_col(r, 0)?,
        root: digest_col(r, 1)?,
        note: r.get(2)?,
        signed_at: r.get(3)?,
    })
}

fn payment_row(r: &Row<'_>) -> rusqlite::Result<PaymentRow> {
    Ok(PaymentRow {
        tx_hash: r.get(0)?,
        pad_id: r.get(1)?,
        payer: r.get(2)?,
        amount_units: r.get(3)?,
        token: r.get(4)?,
        recipient: r.get(5)?,
        chain_id: u64_col(r, 6)?,
        block_number: u64_col(r, 7)?,
        redeemed_at: r.get(8)?,
    })
}

const AGENT_KEY_COLS: &str = "agent, key_id, vkey, created_at, revoked_at";

fn agent_key_row(r: &Row<'_>) -> rusqlite::Result<AgentKeyRow> {
    Ok(AgentKeyRow {
        agent: r.get(0)?,
        key_id: r.get(1)?,
        vkey: r.get(2)?,
        created_at: r.get(3)?,
        revoked_at: r.get(4)?,
    })
}

fn setting_row(r: &Row<'_>) -> rusqlite::Result<(String, String)> {
    Ok((r.get(0)?, r.get(1)?))
}

fn receipt_row(r: &Row<'_>) -> rusqlite::Result<ReceiptRow> {
    Ok(ReceiptRow {
        actor: r.get(0)?,
        op_id: r.get(1)?,
        scope: r.get(2)?,
        key: r.get(3)?,
        expected_version: u64_col(r, 4)?,
        version: u64_col(r, 5)?,
        created_at: r.get(6)?,
        // A damaged half-fence reads as an impossible one (empty work or token 0), which
        // `verify` then reports instead of failing to read the row.
        fence: match (r.get::<_, Option<String>>(7)?, r.get::<_, Option<i64>>(8)?) {
            (None, None) => None,
            (work, token) => Some(Fence {
                work: work.unwrap_or_default(),
                token: token.and_then(|t| u64::try_from(t).ok()).unwrap_or(0),
            }),
        },
    })
}

const LEASE_COLS: &str = "id, scope, work, fence, holder, state, ttl, acquired_at, expires_at, \
                          heartbeats, heartbeat_at, details, ended_at, result, pruned_at";

fn lease_row(r: &Row<'_>) -> rusqlite::Result<LeaseRow> {
    let state: String = r.get(5)?;
    Ok(LeaseRow {
        id: r.get(0)?,
        scope: r.get(1)?,
        work: r.get(2)?,
        fence: u64_col(r, 3)?,
        holder: r.get(4)?,
        state: LeaseState::parse(&state).ok_or_else(|| bad_value(5, "lease state"))?,
        ttl: r.get(6)?,
        acquired_at: r.get(7)?,
        expires_at: r.get(8)?,
        heartbeats: u64_col(r, 9)?,
        heartbeat_at: r.get(10)?,
        details: r.get(11)?,
        ended_at: r.get(12)?,
        result: r.get(13)?,
        pruned_at: r.get(14)?,
    })
}

const PLAN_COLS: &str = "scope, work, version, lease_id, steps, committed_at, pruned_at";

fn plan_row(r: &Row<'_>) -> rusqlite::Result<PlanRow> {
    Ok(PlanRow {
        scope: r.get(0)?,
        work: r.get(1)?,
        version: u64_col(r, 2)?,
        lease_id: r.get(3)?,
        steps_json: r.get(4)?,
        committed_at: r.get(5)?,
        pruned_at: r.get(6)?,
    })
}

const STEP_COLS: &str =
    "scope, work, lease_id, step, planned, executed, gate, recorded_at, pruned_at";

fn step_row(r: &Row<'_>) -> rusqlite::Result<StepRow> {
    Ok(StepRow {
        scope: r.get(0)?,
        work: r.get(1)?,
        lease_id: r.get(2)?,
        step: r.get(3)?,
        planned: r.get(4)?,
        executed: r.get(5)?,
        gate: r.get(6)?,
        recorded_at: r.get(7)?,
        pruned_at: r.get(8)?,
    })
}

impl SqliteTx<'_> {
    /// While on, SQLite overwrites everything it frees with zeros (free-list pages included,
    /// where FAST, the connection's default, zeroes only inside pages it writes anyway), so
    /// that what gc prunes leaves no copy (gc's checkpoint then truncates the write-ahead log).
    fn secure_delete(&self, on: bool) -> Result<()> {
        let sql = if on { "PRAGMA secure_delete = ON" } else { "PRAGMA secure_delete = FAST" };
        self.tx.query_row(sql, [], |_| Ok(())).db()
    }

    fn check_writable(&self) -> Result<()> {
        if self.writable {
            Ok(())
        } else {
            Err(StoreError::Io("write attempted in a read-only transaction".into()))
        }
    }

    fn stream<T>(
        &self,
        sql: &str,
        params: &[&dyn rusqlite::ToSql],
        map: fn(&Row<'_>) -> rusqlite::Result<T>,
        f: &mut dyn FnMut(T) -> Flow,
    ) -> Result<()> {
        let mut stmt = self.tx.prepare_cached(sql).db()?;
        let mut rows = stmt.query(params).db()?;
        while let Some(row) = rows.next().db()? {
            let item = map(row).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            if f(item).is_break() {
                break;
            }
        }
        Ok(())
    }
}

impl Tx for SqliteTx<'_> {
    fn pad(&self, id: &str) -> Result<Option<PadRow>> {
        let sql = format!("SELECT {PAD_COLS} FROM pads WHERE id = ?1");
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        stmt.query_row([id], pad_row).optional().db()
    }

    fn pads(&self, q: &PadQuery) -> Result<Vec<PadRow>> {
        let sql = format!(
            "SELECT {PAD_COLS} FROM pads WHERE (?1 IS NULL OR scope = ?1) \
             AND (?2 IS NULL OR id > ?2) ORDER BY id LIMIT ?3"
        );
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        let rows = stmt.query_map(params![q.scope, q.after, sql_i64(q.limit)], pad_row).db()?;
        rows.collect::<rusqlite::Result<Vec<_>>>().db()
    }

    fn for_each_pad(&self, f: &mut dyn FnMut(PadRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {PAD_COLS} FROM pads ORDER BY id");
        self.stream(&sql, &[], pad_row, f)
    }

    fn blocks(&self, pad: &str, from: u64, to: u64) -> Result<Vec<BlockRow>> {
        let sql = format!(
            "SELECT {BLOCK_COLS} FROM blocks WHERE pad_id = ?1 AND seq BETWEEN ?2 AND ?3 ORDER BY seq"
        );
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        let rows = stmt.query_map(params![pad, sql_i64(from), sql_i64(to)], block_row).db()?;
        rows.collect::<rusqlite::Result<Vec<_>>>().db()
    }

    fn blocks_bytes(&self, pad: &str, from: u64, to: u64) -> Result<u64> {
        let mut stmt = self
            .tx
            .prepare_cached(
                "SELECT COALESCE(SUM(length(payload)), 0) FROM blocks \
                 WHERE pad_id = ?1 AND seq BETWEEN ?2 AND ?3",
            )
            .db()?;
        let n: i64 = stmt.query_row(params![pad, sql_i64(from), sql_i64(to)], |r| r.get(0)).db()?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    fn for_each_block(&self, pad: &str, f: &mut dyn FnMut(BlockRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {BLOCK_COLS} FROM blocks WHERE pad_id = ?1 ORDER BY seq");
        self.stream(&sql, &[&pad], block_row, f)
    }

    fn ticket(&self, digest: &Digest) -> Result<Option<TicketRow>> {
        let sql = format!("SELECT {TICKET_COLS} FROM tickets WHERE digest = ?1");
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        stmt.query_row([digest.to_hex()], ticket_row).optional().db()
    }

    fn for_each_ticket(&self, f: &mut dyn FnMut(TicketRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {TICKET_COLS} FROM tickets ORDER BY digest");
        self.stream(&sql, &[], ticket_row, f)
    }

    fn journal_head(&self) -> Result<Option<JournalHead>> {
        let mut stmt =
            self.tx.prepare_cached("SELECT seq, hash FROM journal_head WHERE id = 1").db()?;
        stmt.query_row([], |r| Ok(JournalHead { seq: u64_col(r, 0)?, hash: digest_col(r, 1)? }))
            .optional()
            .db()
    }

    fn journal(&self, q: &JournalQuery) -> Result<Vec<JournalRow>> {
        // A prefix is compared exactly: LIKE would ignore case and treat `_` as a wildcard.
        let (kind_exact, kind_prefix) = match &q.kind {
            Some(k) if k.ends_with('.') => (None, Some(k.clone())),
            Some(k) => (Some(k.clone()), None),
            None => (None, None),
        };
        let order = if q.ascending { "ASC" } else { "DESC" };
        let sql = format!(
            "SELECT {JOURNAL_COLS} FROM journal WHERE (?1 IS NULL OR kind = ?1) \
             AND (?2 IS NULL OR substr(kind, 1, length(?2)) = ?2) AND (?3 IS NULL OR subject = ?3) \
             AND (?4 IS NULL OR actor = ?4) AND (?5 IS NULL OR scope = ?5) \
             AND (?6 IS NULL OR seq > ?6) AND (?7 IS NULL OR seq < ?7) \
             ORDER BY seq {order} LIMIT ?8"
        );
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        let rows = stmt
            .query_map(
                params![
                    kind_exact,
                    kind_prefix,
                    q.subject,
                    q.actor,
                    q.scope,
                    q.after.map(sql_i64),
                    q.before.map(sql_i64),
                    sql_i64(q.limit)
                ],
                journal_row,
            )
            .db()?;
        rows.collect::<rusqlite::Result<Vec<_>>>().db()
    }

    fn for_each_journal(&self, f: &mut dyn FnMut(JournalRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {JOURNAL_COLS} FROM journal ORDER BY seq");
        self.stream(&sql, &[], journal_row, f)
    }

    fn counts(&self) -> Result<Counts> {
        let count = |table: &str| -> Result<u64> {
            // MAX(rowid) is O(1) and close enough for a progress bar.
            let n: Option<i64> = self
                .tx
                .query_row(&format!("SELECT MAX(rowid) FROM {table}"), [], |r| r.get(0))
                .db()?;
            Ok(n.and_then(|n| u64::try_from(n).ok()).unwrap_or(0))
        };
        Ok(Counts { journal: count("journal")?, pads: count("pads")?, blocks: count("blocks")? })
    }

    fn lease(&self, id: &str) -> Result<Option<LeaseRow>> {
        let sql = format!("SELECT {LEASE_COLS} FROM leases WHERE id = ?1");
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        stmt.query_row([id], lease_row).optional().db()
    }

    fn newest_lease(&self, scope: &str, work: &str) -> Result<Option<LeaseRow>> {
        let sql = format!(
            "SELECT {LEASE_COLS} FROM leases WHERE scope = ?1 AND work = ?2 \
             ORDER BY fence DESC LIMIT 1"
        );
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        stmt.query_row([scope, work], lease_row).optional().db()
    }

    fn work_leases(&self, scope: &str, work: &str) -> Result<Vec<LeaseRow>> {
        let sql = format!(
            "SELECT {LEASE_COLS} FROM leases WHERE scope = ?1 AND work = ?2 ORDER BY fence"
        );
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        let rows = stmt.query_map([scope, work], lease_row).db()?;
        rows.collect::<rusqlite::Result<Vec<_>>>().db()
    }

    fn leases(&self, q: &LeaseQuery) -> Result<Vec<LeaseRow>> {
        let sql = format!(
            "SELECT {LEASE_COLS} FROM leases WHERE (?1 IS NULL OR scope = ?1) \
             AND (?2 IS NULL OR state = ?2) ORDER BY scope, work, fence LIMIT ?3"
        );
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        let state = q.state.map(LeaseState::as_str);
        let rows = stmt.query_map(params![q.scope, state, sql_i64(q.limit)], lease_row).db()?;
        rows.collect::<rusqlite::Result<Vec<_>>>().db()
    }

    fn expired_leases(&self, now: i64) -> Result<Vec<LeaseRow>> {
        let sql = format!(
            "SELECT {LEASE_COLS} FROM leases WHERE state = 'active' AND expires_at <= ?1 \
             ORDER BY scope, work, fence"
        );
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        let rows = stmt.query_map([now], lease_row).db()?;
        rows.collect::<rusqlite::Result<Vec<_>>>().db()
    }

    fn for_each_lease(&self, f: &mut dyn FnMut(LeaseRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {LEASE_COLS} FROM leases ORDER BY scope, work, fence");
        self.stream(&sql, &[], lease_row, f)
    }

    fn plans(&self, scope: &str, work: &str) -> Result<Vec<PlanRow>> {
        let sql = format!(
            "SELECT {PLAN_COLS} FROM plans WHERE scope = ?1 AND work = ?2 ORDER BY version"
        );
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        let rows = stmt.query_map([scope, work], plan_row).db()?;
        rows.collect::<rusqlite::Result<Vec<_>>>().db()
    }

    fn for_each_plan(&self, f: &mut dyn FnMut(PlanRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {PLAN_COLS} FROM plans ORDER BY scope, work, version");
        self.stream(&sql, &[], plan_row, f)
    }

    fn step(&self, lease_id: &str, step: &str) -> Result<Option<StepRow>> {
        let sql = format!("SELECT {STEP_COLS} FROM steps WHERE lease_id = ?1 AND step = ?2");
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        stmt.query_row([lease_id, step], step_row).optional().db()
    }

    fn work_steps(&self, scope: &str, work: &str) -> Result<Vec<StepRow>> {
        let sql =
            format!("SELECT {STEP_COLS} FROM steps WHERE scope = ?1 AND work = ?2 ORDER BY id");
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        let rows = stmt.query_map([scope, work], step_row).db()?;
        rows.collect::<rusqlite::Result<Vec<_>>>().db()
    }

    fn for_each_step(&self, f: &mut dyn FnMut(StepRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {STEP_COLS} FROM steps ORDER BY id");
        self.stream(&sql, &[], step_row, f)
    }

    fn insert_pad(&mut self, p: &PadRow) -> Result<()> {
        self.check_writable()?;
        let sql = format!(
            "INSERT INTO pads ({PAD_COLS}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
        );
        self.tx
            .prepare_cached(&sql)
            .db()?
            .execute(params![
                p.id,
                p.scope,
                p.created_at,
                p.expires_at,
                p.max_blocks,
                sql_i64(p.max_bytes),
                sql_i64(p.block_count),
                sql_i64(p.current_bytes),
                p.state.as_str(),
                p.write_key_hash.to_hex(),
                p.head_hash.to_hex(),
                p.sealed_at,
                p.pruned_at
            ])
            .db()?;
        Ok(())
    }

    fn update_pad(&mut self, p: &PadRow) -> Result<()> {
        self.check_writable()?;
        self.tx
            .prepare_cached(
                "UPDATE pads SET block_count = ?2, current_bytes = ?3, state = ?4, head_hash = ?5, \
                 sealed_at = ?6 WHERE id = ?1",
            )
            .db()?
            .execute(params![
                p.id,
                sql_i64(p.block_count),
                sql_i64(p.current_bytes),
                p.state.as_str(),
                p.head_hash.to_hex(),
                p.sealed_at
            ])
            .db()?;
        Ok(())
    }

    fn insert_block(&mut self, b: &BlockRow) -> Result<()> {
        self.check_writable()?;
        let sql =
            format!("INSERT INTO blocks ({BLOCK_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
        self.tx
            .prepare_cached(&sql)
            .db()?
            .execute(params![
                b.pad_id,
                sql_i64(b.seq),
                b.prev_hash.to_hex(),
                b.curr_hash.to_hex(),
                b.content_type,
                b.payload,
                b.created_at,
                b.pruned_bytes.map(sql_i64)
            ])
            .db()?;
        Ok(())
    }

    fn insert_ticket(&mut self, t: &TicketRow) -> Result<()> {
        self.check_writable()?;
        let sql = format!("INSERT INTO tickets ({TICKET_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
        self.tx
            .prepare_cached(&sql)
            .db()?
            .execute(params![
                t.digest.to_hex(),
                t.pad_id,
                t.ticket_type.as_str(),
                t.created_at,
                t.lease_started_at,
                t.revoked_at
            ])
            .db()?;
        Ok(())
    }

    fn update_ticket(&mut self, t: &TicketRow) -> Result<()> {
        self.check_writable()?;
        self.tx
            .prepare_cached(
                "UPDATE tickets SET lease_started_at = ?2, revoked_at = ?3 WHERE digest = ?1",
            )
            .db()?
            .execute(params![t.digest.to_hex(), t.lease_started_at, t.revoked_at])
            .db()?;
        Ok(())
    }

    fn insert_lease(&mut self, l: &LeaseRow) -> Result<()> {
        self.check_writable()?;
        let sql = format!(
            "INSERT INTO leases ({LEASE_COLS}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
        );
        self.tx
            .prepare_cached(&sql)
            .db()?
            .execute(params![
                l.id,
                l.scope,
                l.work,
                sql_i64(l.fence),
                l.holder,
                l.state.as_str(),
                l.ttl,
                l.acquired_at,
                l.expires_at,
                sql_i64(l.heartbeats),
                l.heartbeat_at,
                l.details,
                l.ended_at,
                l.result,
                l.pruned_at
            ])
            .db()?;
        Ok(())
    }

    fn update_lease(&mut self, l: &LeaseRow) -> Result<()> {
        self.check_writable()?;
        self.tx
            .prepare_cached(
                "UPDATE leases SET state = ?2, expires_at = ?3, heartbeats = ?4, heartbeat_at = ?5, \
                 details = ?6, ended_at = ?7, result = ?8 WHERE id = ?1",
            )
            .db()?
            .execute(params![
                l.id,
                l.state.as_str(),
                l.expires_at,
                sql_i64(l.heartbeats),
                l.heartbeat_at,
                l.details,
                l.ended_at,
                l.result
            ])
            .db()?;
        Ok(())
    }

    fn insert_plan(&mut self, p: &PlanRow) -> Result<()> {
        self.check_writable()?;
        let sql = format!("INSERT INTO plans ({PLAN_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        self.tx
            .prepare_cached(&sql)
            .db()?
            .execute(params![
                p.scope,
                p.work,
                sql_i64(p.version),
                p.lease_id,
                p.steps_json,
                p.committed_at,
                p.pruned_at
            ])
            .db()?;
        Ok(())
    }

    fn insert_step(&mut self, s: &StepRow) -> Result<()> {
        self.check_writable()?;
        let sql =
            format!("INSERT INTO steps ({STEP_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
        self.tx
            .prepare_cached(&sql)
            .db()?
            .execute(params![
                s.scope,
                s.work,
                s.lease_id,
                s.step,
                s.planned,
                s.executed,
                s.gate,
                s.recorded_at,
                s.pruned_at
            ])
            .db()?;
        Ok(())
    }

    fn insert_journal(&mut self, j: &JournalRow) -> Result<()> {
        self.check_writable()?;
        let sql = format!(
            "INSERT INTO journal ({JOURNAL_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
        );
        self.tx
            .prepare_cached(&sql)
            .db()?
            .execute(params![
                sql_i64(j.seq),
                j.prev_hash.to_hex(),
                j.hash.to_hex(),
                j.entry,
                j.time,
                j.kind,
                j.actor,
                j.scope,
                j.subject
            ])
            .db()?;
        self.tx
            .prepare_cached(
                "INSERT INTO journal_head (id, seq, hash) VALUES (1, ?1, ?2) \
                 ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
            )
            .db()?
            .execute(params![sql_i64(j.seq), j.hash.to_hex()])
            .db()?;
        Ok(())
    }

    fn merkle_count(&self) -> Result<u64> {
        let n: Option<i64> = self
            .tx
            .prepare_cached("SELECT MAX(idx) FROM merkle_hashes")
            .db()?
            .query_row([], |r| r.get(0))
            .db()?;
        Ok(n.and_then(|n| u64::try_from(n + 1).ok()).unwrap_or(0))
    }

    fn merkle_hash(&self, idx: u64) -> Result<Option<Digest>> {
        self.tx
            .prepare_cached("SELECT hash FROM merkle_hashes WHERE idx = ?1")
            .db()?
            .query_row([sql_i64(idx)], |r| digest_col(r, 0))
            .optional()
            .db()
    }

    fn for_each_merkle_hash(&self, f: &mut dyn FnMut(u64, Digest) -> Flow) -> Result<()> {
        self.stream(
            "SELECT idx, hash FROM merkle_hashes ORDER BY idx",
            &[],
            |r| Ok((u64_col(r, 0)?, digest_col(r, 1)?)),
            &mut |(i, h)| f(i, h),
        )
    }

    fn insert_merkle_hashes(&mut self, start: u64, hashes: &[Digest]) -> Result<()> {
        self.check_writable()?;
        let mut stmt =
            self.tx.prepare_cached("INSERT INTO merkle_hashes (idx, hash) VALUES (?1, ?2)").db()?;
        for (i, h) in (start..).zip(hashes) {
            stmt.execute(params![sql_i64(i), h.to_hex()]).db()?;
        }
        Ok(())
    }

    fn latest_checkpoint(&self) -> Result<Option<CheckpointRow>> {
        let sql = format!("SELECT {CHECKPOINT_COLS} FROM checkpoints ORDER BY size DESC LIMIT 1");
        self.tx.prepare_cached(&sql).db()?.query_row([], checkpoint_row).optional().db()
    }

    fn checkpoint_at(&self, size: u64) -> Result<Option<CheckpointRow>> {
        let sql = format!("SELECT {CHECKPOINT_COLS} FROM checkpoints WHERE size = ?1");
        self.tx
            .prepare_cached(&sql)
            .db()?
            .query_row([sql_i64(size)], checkpoint_row)
            .optional()
            .db()
    }

    fn for_each_checkpoint(&self, f: &mut dyn FnMut(CheckpointRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {CHECKPOINT_COLS} FROM checkpoints ORDER BY size");
        self.stream(&sql, &[], checkpoint_row, f)
    }

    fn insert_checkpoint(&mut self, c: &CheckpointRow) -> Result<()> {
        self.check_writable()?;
        let sql = format!("INSERT INTO checkpoints ({CHECKPOINT_COLS}) VALUES (?1, ?2, ?3, ?4)");
        self.tx
            .prepare_cached(&sql)
            .db()?
            .execute(params![sql_i64(c.size), c.root.to_hex(), c.note, c.signed_at])
            .db()?;
        Ok(())
    }

    fn set_checkpoint_note(&mut self, size: u64, note: &str) -> Result<()> {
        self.check_writable()?;
        self.tx
            .prepare_cached("UPDATE checkpoints SET note = ?2 WHERE size = ?1")
            .db()?
            .execute(params![sql_i64(size), note])
            .db()?;
        Ok(())
    }

    fn agent(&self, name: &str) -> Result<Option<AgentRow>> {
        let sql = format!("SELECT {AGENT_COLS} FROM agents WHERE name = ?1");
        self.tx.prepare_cached(&sql).db()?.query_row([name], agent_row).optional().db()
    }

    fn agent_by_token(&self, token_hash: &Digest) -> Result<Option<AgentRow>> {
        let sql = format!("SELECT {AGENT_COLS} FROM agents WHERE token_hash = ?1");
        self.tx
            .prepare_cached(&sql)
            .db()?
            .query_row([token_hash.to_hex()], agent_row)
            .optional()
            .db()
    }

    fn for_each_agent(&self, f: &mut dyn FnMut(AgentRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {AGENT_COLS} FROM agents ORDER BY name");
        self.stream(&sql, &[], agent_row, f)
    }

    fn insert_agent(&mut self, a: &AgentRow) -> Result<()> {
        self.check_writable()?;
        let sql = format!("INSERT INTO agents ({AGENT_COLS}) VALUES (?1, ?2, ?3, ?4, ?5)");
        self.tx
            .prepare_cached(&sql)
            .db()?
            .execute(params![a.name, a.scope, a.token_hash.to_hex(), a.created_at, a.revoked_at])
            .db()?;
        Ok(())
    }

    fn update_agent(&mut self, a: &AgentRow) -> Result<()> {
        self.check_writable()?;
        self.tx
            .prepare_cached("UPDATE agents SET revoked_at = ?2 WHERE name = ?1")
            .db()?
            .execute(params![a.name, a.revoked_at])
            .db()?;
        Ok(())
    }

    fn blob_row(&self, digest: &Digest) -> Result<Option<BlobRow>> {
        let sql = format!("SELECT {BLOB_COLS} FROM blobs WHERE digest = ?1");
        self.tx.prepare_cached(&sql).db()?.query_row([digest.to_hex()], blob_row).optional().db()
    }

    fn blob(&self, digest: &Digest) -> Result<Option<Vec<u8>>> {
        let mut stmt = self
            .tx
            .prepare_cached("SELECT storage, size, data FROM blobs WHERE digest = ?1")
            .db()?;
        let row: Option<(String, i64, Option<Vec<u8>>)> = stmt
            .query_row([digest.to_hex()], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .optional()
            .db()?;
        let Some((storage, size, data)) = row else { return Ok(None) };
        match (storage.as_str(), data) {
            ("inline", Some(data)) => Ok(Some(data)),
            ("file", _) => {
                let size = u64::try_from(size).unwrap_or(0);
                match objects::read(self.objects, digest, size) {
                    Ok(bytes) => Ok(Some(bytes)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        Err(StoreError::BlobMissing {
                            digest: *digest,
                            location: objects::display(digest),
                        })
                    }
                    Err(e) => Err(StoreError::Io(format!("{}: {e}", objects::display(digest)))),
                }
            }
            _ => Err(StoreError::Corrupt(format!("blob {digest} has a malformed row"))),
        }
    }

    fn put_blob(&mut self, digest: &Digest, bytes: &[u8], now: i64) -> Result<()> {
        self.check_writable()?;
        if let Some(row) = self.blob_row(digest)? {
            if row.storage == BlobStorage::File {
                // Repair a damaged or missing file rather than point a new version at it; the
                // repaired file is kept even if this transaction rolls back.
                objects::write(self.objects, digest, bytes).map_err(|e| blob_io(digest, &e))?;
            }
            return Ok(());
        }
        let (storage, data) = if bytes.len() <= objects::INLINE_MAX {
            ("inline", Some(bytes))
        } else {
            let created =
                objects::write(self.objects, digest, bytes).map_err(|e| blob_io(digest, &e))?;
            self.created.0.extend(created);
            ("file", None)
        };
        self.tx
            .prepare_cached(
                "INSERT INTO blobs (digest, size, storage, data, created_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .db()?
            .execute(params![digest.to_hex(), bytes.len() as i64, storage, data, now])
            .db()?;
        Ok(())
    }

    fn for_each_blob(&self, f: &mut dyn FnMut(BlobRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {BLOB_COLS} FROM blobs ORDER BY digest");
        self.stream(&sql, &[], blob_row, f)
    }

    fn artifact_head(&self, scope: &str, key: &str) -> Result<Option<u64>> {
        let mut stmt = self
            .tx
            .prepare_cached("SELECT version FROM artifact_heads WHERE scope = ?1 AND key = ?2")
            .db()?;
        stmt.query_row([scope, key], |r| u64_col(r, 0)).optional().db()
    }

    fn artifact_version(
        &self,
        scope: &str,
        key: &str,
        version: u64,
    ) -> Result<Option<ArtifactVersionRow>> {
        let sql = format!(
            "SELECT {VERSION_COLS} FROM artifact_versions \
             WHERE scope = ?1 AND key = ?2 AND version = ?3"
        );
        self.tx
            .prepare_cached(&sql)
            .db()?
            .query_row(params![scope, key, sql_i64(version)], version_row)
            .optional()
            .db()
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
             WHERE scope = ?1 AND key = ?2 AND version > ?3 ORDER BY version LIMIT ?4"
        );
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        let rows = stmt
            .query_map(params![scope, key, sql_i64(after), sql_i64(limit)], version_row)
            .db()?;
        rows.collect::<rusqlite::Result<Vec<_>>>().db()
    }

    fn artifact_heads(&self, q: &ArtifactQuery) -> Result<Vec<ArtifactVersionRow>> {
        let cols =
            VERSION_COLS.split(", ").map(|c| format!("v.{c}")).collect::<Vec<_>>().join(", ");
        let sql = format!(
            "SELECT {cols} FROM artifact_heads h JOIN artifact_versions v \
             ON v.scope = h.scope AND v.key = h.key AND v.version = h.version \
             WHERE h.scope = ?1 AND (?2 IS NULL OR h.key > ?2) ORDER BY h.key LIMIT ?3"
        );
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        let rows = stmt.query_map(params![q.scope, q.after, sql_i64(q.limit)], version_row).db()?;
        rows.collect::<rusqlite::Result<Vec<_>>>().db()
    }

    fn for_each_artifact_version(
        &self,
        f: &mut dyn FnMut(ArtifactVersionRow) -> Flow,
    ) -> Result<()> {
        let sql =
            format!("SELECT {VERSION_COLS} FROM artifact_versions ORDER BY scope, key, version");
        self.stream(&sql, &[], version_row, f)
    }

    fn for_each_artifact_head(&self, f: &mut dyn FnMut(ArtifactHeadRow) -> Flow) -> Result<()> {
        self.stream(
            "SELECT scope, key, version FROM artifact_heads ORDER BY scope, key",
            &[],
            head_row,
            f,
        )
    }

    fn receipt(&self, actor: &str, op_id: &str) -> Result<Option<ReceiptRow>> {
        let sql =
            format!("SELECT {RECEIPT_COLS} FROM artifact_receipts WHERE actor = ?1 AND op_id = ?2");
        self.tx.prepare_cached(&sql).db()?.query_row([actor, op_id], receipt_row).optional().db()
    }

    fn for_each_receipt(&self, f: &mut dyn FnMut(ReceiptRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {RECEIPT_COLS} FROM artifact_receipts ORDER BY actor, op_id");
        self.stream(&sql, &[], receipt_row, f)
    }

    fn insert_artifact_version(&mut self, v: &ArtifactVersionRow) -> Result<()> {
        self.check_writable()?;
        let sql = format!(
            "INSERT INTO artifact_versions ({VERSION_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
        );
        self.tx
            .prepare_cached(&sql)
            .db()?
            .execute(params![
                v.scope,
                v.key,
                sql_i64(v.version),
                v.blob.to_hex(),
                sql_i64(v.size),
                v.actor,
                v.op_id,
                v.created_at
            ])
            .db()?;
        Ok(())
    }

    fn set_artifact_head(&mut self, h: &ArtifactHeadRow) -> Result<()> {
        self.check_writable()?;
        self.tx
            .prepare_cached(
                "INSERT INTO artifact_heads (scope, key, version) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (scope, key) DO UPDATE SET version = excluded.version",
            )
            .db()?
            .execute(params![h.scope, h.key, sql_i64(h.version)])
            .db()?;
        Ok(())
    }

    fn agent_keys(&self, agent: &str) -> Result<Vec<AgentKeyRow>> {
        let sql = format!(
            "SELECT {AGENT_KEY_COLS} FROM agent_keys WHERE agent = ?1 ORDER BY created_at, key_id"
        );
        let mut out = Vec::new();
        self.stream(&sql, &[&agent], agent_key_row, &mut |k| {
            out.push(k);
            Flow::Continue(())
        })?;
        Ok(out)
    }

    fn for_each_agent_key(&self, f: &mut dyn FnMut(AgentKeyRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {AGENT_KEY_COLS} FROM agent_keys ORDER BY agent, key_id");
        self.stream(&sql, &[], agent_key_row, f)
    }

    fn insert_agent_key(&mut self, k: &AgentKeyRow) -> Result<()> {
        self.check_writable()?;
        let sql = format!("INSERT INTO agent_keys ({AGENT_KEY_COLS}) VALUES (?1, ?2, ?3, ?4, ?5)");
        self.tx
            .prepare_cached(&sql)
            .db()?
            .execute(params![k.agent, k.key_id, k.vkey, k.created_at, k.revoked_at])
            .db()?;
        Ok(())
    }

    fn update_agent_key(&mut self, k: &AgentKeyRow) -> Result<()> {
        self.check_writable()?;
        self.tx
            .prepare_cached(
                "UPDATE agent_keys SET revoked_at = ?3 WHERE agent = ?1 AND key_id = ?2",
            )
            .db()?
            .execute(params![k.agent, k.key_id, k.revoked_at])
            .db()?;
        Ok(())
    }

    fn setting(&self, name: &str) -> Result<Option<String>> {
        self.tx
            .prepare_cached("SELECT value FROM repo_settings WHERE name = ?1")
            .db()?
            .query_row([name], |r| r.get(0))
            .optional()
            .db()
    }

    fn for_each_setting(&self, f: &mut dyn FnMut((String, String)) -> Flow) -> Result<()> {
        self.stream("SELECT name, value FROM repo_settings ORDER BY name", &[], setting_row, f)
    }

    fn set_setting(&mut self, name: &str, value: &str) -> Result<()> {
        self.check_writable()?;
        self.tx
            .prepare_cached(
                "INSERT INTO repo_settings (name, value) VALUES (?1, ?2) \
                 ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            )
            .db()?
            .execute(params![name, value])
            .db()?;
        Ok(())
    }

    fn payment(&self, tx_hash: &str) -> Result<Option<PaymentRow>> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payment_receipts WHERE tx_hash = ?1");
        self.tx.prepare_cached(&sql).db()?.query_row([tx_hash], payment_row).optional().db()
    }

    fn for_each_payment(&self, f: &mut dyn FnMut(PaymentRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payment_receipts ORDER BY tx_hash");
        self.stream(&sql, &[], payment_row, f)
    }

    fn insert_payment(&mut self, p: &PaymentRow) -> Result<()> {
        self.check_writable()?;
        let sql = format!(
            "INSERT INTO payment_receipts ({PAYMENT_COLS}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
        );
        self.tx
            .prepare_cached(&sql)
            .db()?
            .execute(params![
                p.tx_hash,
                p.pad_id,
                p.payer,
                p.amount_units,
                p.token,
                p.recipient,
                sql_i64(p.chain_id),
                sql_i64(p.block_number),
                p.redeemed_at
            ])
            .db()?;
        Ok(())
    }

    fn insert_receipt(&mut self, r: &ReceiptRow) -> Result<()> {
        self.check_writable()?;
        let sql = format!(
            "INSERT INTO artifact_receipts ({RECEIPT_COLS}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
        );
        self.tx
            .prepare_cached(&sql)
            .db()?
            .execute(params![
                r.actor,
                r.op_id,
                r.scope,
                r.key,
                sql_i64(r.expected_version),
                sql_i64(r.version),
                r.created_at,
                r.fence.as_ref().map(|f| f.work.as_str()),
                r.fence.as_ref().map(|f| sql_i64(f.token))
            ])
            .db()?;
        Ok(())
    }

    fn prune_pad(&mut self, pad_id: &str, now: i64) -> Result<u64> {
        self.check_writable()?;
        self.secure_delete(true)?;
        let n = self
            .tx
            .prepare_cached(
                "UPDATE blocks SET pruned_bytes = length(CAST(payload AS BLOB)), payload = X'' \
                 WHERE pad_id = ?1 AND pruned_bytes IS NULL",
            )
            .db()?
            .execute(params![pad_id])
            .db()?;
        self.tx
            .prepare_cached("UPDATE pads SET pruned_at = ?2 WHERE id = ?1")
            .db()?
            .execute(params![pad_id, now])
            .db()?;
        self.secure_delete(false)?;
        Ok(n as u64)
    }

    fn prune_lease_work(&mut self, lease_id: &str, now: i64) -> Result<()> {
        self.check_writable()?;
        self.secure_delete(true)?;
        self.tx
            .prepare_cached(
                "UPDATE leases SET details = NULL, result = NULL, pruned_at = ?2 WHERE id = ?1",
            )
            .db()?
            .execute(params![lease_id, now])
            .db()?;
        self.tx
            .prepare_cached("UPDATE plans SET steps = '[]', pruned_at = ?2 WHERE lease_id = ?1")
            .db()?
            .execute(params![lease_id, now])
            .db()?;
        self.tx
            .prepare_cached(
                "UPDATE steps SET planned = NULL, executed = NULL, pruned_at = ?2 \
                 WHERE lease_id = ?1",
            )
            .db()?
            .execute(params![lease_id, now])
            .db()?;
        self.secure_delete(false)?;
        Ok(())
    }

    fn unreferenced_blobs(&self) -> Result<Vec<BlobRow>> {
        let cols = BLOB_COLS.split(", ").map(|c| format!("b.{c}")).collect::<Vec<_>>().join(", ");
        let sql = format!(
            "SELECT {cols} FROM blobs b WHERE NOT EXISTS \
             (SELECT 1 FROM artifact_versions v WHERE v.blob = b.digest) ORDER BY b.digest"
        );
        let mut stmt = self.tx.prepare_cached(&sql).db()?;
        let rows = stmt.query_map([], blob_row).db()?;
        rows.collect::<rusqlite::Result<Vec<_>>>().db()
    }

    fn delete_blob(&mut self, digest: &Digest) -> Result<()> {
        self.check_writable()?;
        let Some(row) = self.blob_row(digest)? else { return Ok(()) };
        self.tx
            .prepare_cached("DELETE FROM blobs WHERE digest = ?1")
            .db()?
            .execute([digest.to_hex()])
            .db()?;
        if row.storage == BlobStorage::File {
            self.remove_on_commit.push(self.objects.join(objects::rel_path(digest)));
        }
        Ok(())
    }

    fn blob_files(&mut self) -> Option<&mut dyn BlobFiles> {
        Some(self)
    }

    fn commit(self: Box<Self>) -> Result<()> {
        let SqliteTx { tx, mut created, mut remove_on_commit, group, .. } = *self;
        match tx {
            Handle::Top(t) => t.commit().db()?,
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

impl BlobFiles for SqliteTx<'_> {
    fn stray_files(&self) -> Result<Vec<StrayFile>> {
        let io = |e: std::io::Error| StoreError::Io(format!("{}: {e}", objects::DIR));
        let mut out = Vec::new();
        let entries = match std::fs::read_dir(self.objects) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(io(e)),
        };
        let mut names: Vec<(String, std::fs::FileType, PathBuf)> = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io)?;
            names.push((
                entry.file_name().to_string_lossy().into_owned(),
                entry.file_type().map_err(io)?,
                entry.path(),
            ));
        }
        names.sort_by(|a, b| a.0.cmp(&b.0));
        let is_hex = |s: &str| s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        for (name, ft, path) in names {
            if ft.is_file() && name.starts_with(".tmp-") {
                let bytes = std::fs::symlink_metadata(&path).map_or(0, |m| m.len());
                out.push(StrayFile { location: format!("{}/{name}", objects::DIR), bytes });
                continue;
            }
            if !(ft.is_dir() && name.len() == 2 && is_hex(&name)) {
                continue;
            }
            let mut subs: Vec<(String, u64)> = Vec::new();
            for sub in std::fs::read_dir(&path).map_err(io)? {
                let sub = sub.map_err(io)?;
                let sname = sub.file_name().to_string_lossy().into_owned();
                let meta = std::fs::symlink_metadata(sub.path()).map_err(io)?;
                if meta.is_file() {
                    subs.push((sname, meta.len()));
                }
            }
            subs.sort();
            for (sname, bytes) in subs {
                let Ok(digest) = Digest::parse(&format!("{name}{sname}")) else { continue };
                let named = self.blob_row(&digest)?.is_some_and(|r| r.storage == BlobStorage::File);
                if !named {
                    out.push(StrayFile {
                        location: format!("{}/{name}/{sname}", objects::DIR),
                        bytes,
                    });
                }
            }
        }
        Ok(out)
    }

    fn remove_stray_files(&mut self, files: &[StrayFile]) -> Result<()> {
        self.check_writable()?;
        for f in files {
            let rel = f
                .location
                .strip_prefix(objects::DIR)
                .and_then(|r| r.strip_prefix('/'))
                .map(Path::new)
                .filter(|r| r.components().all(|c| matches!(c, std::path::Component::Normal(_))))
                .ok_or_else(|| StoreError::Io(format!("`{}` is not a blob file", f.location)))?;
            self.remove_on_commit.push(self.objects.join(rel));
        }
        Ok(())
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
    SqliteStore::open(path)
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
}
