//! SQLite's errors as [`StoreError`]s: the failures a user can act on get their own variants,
//! every other one is [`StoreError::Backend`].

use crate::domain::digest::Digest;
use crate::store::{objects, Result, StoreError};

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        map_err(e)
    }
}

/// Maps SQLite failures that a user can act on to their own variants. A value that cannot be
/// read as its column's type is an unreadable row; where the row is at hand,
/// [`super::rows::unreadable`] says which one.
pub(super) fn map_err(e: rusqlite::Error) -> StoreError {
    use rusqlite::Error as E;
    use rusqlite::ErrorCode as C;
    if matches!(
        e,
        E::InvalidColumnType(..)
            | E::FromSqlConversionFailure(..)
            | E::IntegralValueOutOfRange(..)
            | E::Utf8Error(..)
    ) {
        return StoreError::Unreadable(e.to_string());
    }
    match e.sqlite_error_code() {
        Some(C::DatabaseBusy | C::DatabaseLocked) => StoreError::Busy,
        Some(C::DiskFull) => StoreError::DiskFull,
        Some(C::ReadOnly) => StoreError::ReadOnly,
        Some(C::SystemIoFailure | C::CannotOpen) => StoreError::Io(e.to_string()),
        Some(C::ConstraintViolation) => StoreError::Duplicate(e.to_string()),
        Some(C::DatabaseCorrupt | C::NotADatabase) => StoreError::Damaged(e.to_string()),
        _ => StoreError::Backend { backend: "SQLite", detail: e.to_string() },
    }
}

/// A failure writing a blob file; a full or read-only disk is named as such.
pub(super) fn blob_io(digest: &Digest, e: &std::io::Error) -> StoreError {
    match e.kind() {
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => StoreError::DiskFull,
        std::io::ErrorKind::ReadOnlyFilesystem => StoreError::ReadOnly,
        _ => StoreError::Io(format!("{}: {e}", objects::display(digest))),
    }
}

/// `.db()`: a rusqlite result as a store result.
pub(super) trait SqlResult<T> {
    fn db(self) -> Result<T>;
}

impl<T> SqlResult<T> for rusqlite::Result<T> {
    fn db(self) -> Result<T> {
        self.map_err(map_err)
    }
}
