//! The SQLite store's housekeeping ([`Maintenance`]): checkpoints of its write-ahead log,
//! file-by-file backups, and [`inspect`] for `locker doctor`.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::conn::{busy_backoff, busy_done};
use super::error::SqlResult as _;
use super::{SqliteStore, SCHEMA_VERSION};
use crate::domain::digest::Digest;
use crate::store::{
    objects, BackupStats, CheckpointStats, Maintenance, Result, SqliteInfo, StoreError, StoreInfo,
};

/// How long the write-ahead log may grow (bytes) before the last connection to close folds it
/// into the database ([`SqliteStore`]'s `Drop`).
pub(super) const FOLD_ON_CLOSE: u64 = 512 * 1024;

impl Drop for SqliteStore {
    /// Every process that opens the database after the last one closed reads the whole
    /// write-ahead log back (SQLite rebuilds its index from it), and forgets what of it a
    /// checkpoint had copied, so a log left long costs every short-lived process (each CLI
    /// command) a read of it, and a log that one write per process never restarts keeps
    /// growing. Closing does not fold the log in (`NO_CKPT_ON_CLOSE`: two fsyncs for every
    /// command) until it passes `FOLD_ON_CLOSE`; then the connection that closes last copies
    /// it into the database and removes it, and a connection closing beside others (a running
    /// server's, which folds it in itself) leaves it.
    fn drop(&mut self) {
        if file_len(&wal_path(&self.path)) >= FOLD_ON_CLOSE {
            let _ = self.settle_on_close();
        }
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

    fn backup(&mut self, dest_dot: &Path, copied: &mut dyn FnMut(u64, u64)) -> Result<BackupStats> {
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
            let total = files.len() as u64;
            copied(0, total);
            for (done, (hex, size)) in (1..).zip(files) {
                let digest = Digest::parse(&hex).map_err(|_| {
                    StoreError::Unreadable(format!("blob digest `{hex}` is malformed"))
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
                copied(done, total);
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
        busy_done();
        Ok(CheckpointStats {
            busy: busy != 0,
            wal_bytes_before: before,
            wal_bytes_after: file_len(&wal),
        })
    }
}

/// The write-ahead log beside a database file.
pub(super) fn wal_path(db: &Path) -> PathBuf {
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
        postgres: None,
    })
}
