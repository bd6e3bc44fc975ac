//! Reading PostgreSQL result rows: the shared mappers of [`crate::store::sql`] read columns
//! through [`Columns`] for [`Row`]; a value of the wrong type or range is
//! [`StoreError::Unreadable`], named by its column.

use tokio_postgres::Row;

use crate::domain::digest::Digest;
use crate::store::sql::Columns;
use crate::store::{BlobRow, BlobStorage, Result, StoreError};

impl Columns for Row {
    type Error = StoreError;

    fn text(&self, idx: usize) -> Result<String> {
        self.try_get(idx).map_err(|e| unreadable(self, idx, e))
    }

    fn opt_text(&self, idx: usize) -> Result<Option<String>> {
        self.try_get(idx).map_err(|e| unreadable(self, idx, e))
    }

    fn int(&self, idx: usize) -> Result<i64> {
        self.try_get(idx).map_err(|e| unreadable(self, idx, e))
    }

    fn opt_int(&self, idx: usize) -> Result<Option<i64>> {
        self.try_get(idx).map_err(|e| unreadable(self, idx, e))
    }

    fn uint(&self, idx: usize) -> Result<u64> {
        let v = self.int(idx)?;
        u64::try_from(v).map_err(|_| unreadable(self, idx, format!("{v} is out of range")))
    }

    fn u32(&self, idx: usize, name: &str) -> Result<u32> {
        let v = self.int(idx)?;
        u32::try_from(v).map_err(|_| unreadable(self, idx, format!("{name} {v} is out of range")))
    }

    fn bytes(&self, idx: usize) -> Result<Vec<u8>> {
        self.try_get(idx).map_err(|e| unreadable(self, idx, e))
    }

    fn digest(&self, idx: usize) -> Result<Digest> {
        let s = self.text(idx)?;
        Digest::parse(&s).map_err(|e| unreadable(self, idx, e))
    }

    fn chain_hash(&self, idx: usize) -> Result<Digest> {
        self.digest(idx)
    }

    fn unknown(&self, idx: usize, what: &str, value: &str) -> StoreError {
        unreadable(self, idx, format!("unknown {what} `{value}`"))
    }
}

/// A value of `r` that cannot be read as its column's type says, named by its column.
fn unreadable(r: &Row, idx: usize, e: impl std::fmt::Display) -> StoreError {
    let name = r.columns().get(idx).map_or("?", |c| c.name());
    StoreError::Unreadable(format!("its `{name}` column cannot be read: {e}"))
}

/// A blob row ([`crate::store::sql::BLOB_COLS`]): always inline.
pub(super) fn blob_row(r: &Row) -> Result<BlobRow> {
    let storage = r.text(2)?;
    if storage != "inline" {
        return Err(r.unknown(2, "blob storage", &storage));
    }
    Ok(BlobRow {
        digest: r.digest(0)?,
        size: r.uint(1)?,
        storage: BlobStorage::Inline,
        location: "inline".to_owned(),
        created_at: r.int(3)?,
    })
}
