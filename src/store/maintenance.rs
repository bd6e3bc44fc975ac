//! Housekeeping a backend may need besides reading and writing rows: SQLite's write-ahead log,
//! file-by-file backups, and the blob files it keeps outside its database. Only the SQLite
//! store has any; a caller reaches it through [`Store::maintenance`](super::Store::maintenance)
//! or [`RetentionStore::blob_files`](super::RetentionStore::blob_files) and says itself what
//! it does when a backend has none.

use std::path::Path;

use super::Result;

/// A store's own housekeeping (SQLite: checkpointing its write-ahead log, copying its files).
pub trait Maintenance {
    /// Leaves housekeeping (checkpointing the write-ahead log into the database) to
    /// [`Maintenance::maintain`] instead of doing it inside commits, so that a server's writes
    /// do not wait for it.
    fn defer_maintenance(&mut self) -> Result<()>;
    /// Runs deferred housekeeping without blocking writers.
    fn maintain(&mut self) -> Result<()>;
    /// Leaves the store self-contained on disk once this handle is dropped (the last
    /// connection folds its write-ahead log into the database file and removes the log), as
    /// a copy about to be moved or archived must be.
    fn settle_on_close(&mut self) -> Result<()>;
    /// Writes a consistent copy of the store (one snapshot, blobs included) into `dest_dot`,
    /// a new, empty `.locker/` directory being assembled; the caller adds `config.json`.
    /// Other processes keep reading and writing meanwhile. `copied` hears of the blob files:
    /// `(0, total)` once the snapshot names them, then `(done, total)` after each one.
    fn backup(&mut self, dest_dot: &Path, copied: &mut dyn FnMut(u64, u64)) -> Result<BackupStats>;
    /// Folds the write-ahead log into the database and truncates it, as far as readers allow.
    fn checkpoint(&mut self) -> Result<CheckpointStats>;
}

/// The blob files a store keeps outside its database, seen from a write transaction.
pub trait BlobFiles {
    /// Files in the blob area that no blob row names (see [`StrayFile`]); only meaningful in a
    /// write transaction.
    fn stray_files(&self) -> Result<Vec<StrayFile>>;
    /// Removes stray files once the transaction commits.
    fn remove_stray_files(&mut self, files: &[StrayFile]) -> Result<()>;
}

/// A file in the store's blob area that no blob row names: what a process killed between
/// writing a blob file and committing its row leaves behind (or a temporary file it was
/// writing). Only a write transaction may list them: no other writer can be between those two
/// steps while it holds the write lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrayFile {
    /// Relative to `.locker/`: `objects/ab/cdef…` or `objects/.tmp-…`.
    pub location: String,
    pub bytes: u64,
}

/// What [`Maintenance::backup`] copied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BackupStats {
    /// Bytes of the copied database.
    pub database_bytes: u64,
    /// Blob files copied, and their bytes.
    pub blob_files: u64,
    pub blob_bytes: u64,
    /// Blob rows of the snapshot whose files a concurrent `locker gc` removed before they could
    /// be copied (unreferenced blobs, so they were dropped from the copy too).
    pub blobs_dropped: u64,
}

/// What a WAL checkpoint did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckpointStats {
    /// A reader kept the checkpoint from finishing (it completes on a later one).
    pub busy: bool,
    /// WAL bytes before and after.
    pub wal_bytes_before: u64,
    pub wal_bytes_after: u64,
}
