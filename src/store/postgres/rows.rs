//! Reading PostgreSQL result rows: the shared mappers of [`crate::store::sql`] read columns
//! through [`Columns`] for [`Row`]; a value of the wrong type or range is
//! [`StoreError::Corrupt`].

use tokio_postgres::Row;

use super::conn::corrupt;
use crate::domain::digest::Digest;
use crate::store::sql::Columns;
use crate::store::{BlobRow, BlobStorage, Result, StoreError};

impl Columns for Row {
    type Error = StoreError;

    fn text(&self, idx: usize) -> Result<String> {
        self.try_get(idx).map_err(corrupt)
    }

    fn opt_text(&self, idx: usize) -> Result<Option<String>> {
        self.try_get(idx).map_err(corrupt)
    }

    fn int(&self, idx: usize) -> Result<i64> {
        self.try_get(idx).map_err(corrupt)
    }

    fn opt_int(&self, idx: usize) -> Result<Option<i64>> {
        self.try_get(idx).map_err(corrupt)
    }

    fn uint(&self, idx: usize) -> Result<u64> {
        let v = self.int(idx)?;
        u64::try_from(v).map_err(|_| StoreError::Corrupt(format!("column {idx} holds {v}")))
    }

    fn u32(&self, idx: usize, name: &str) -> Result<u32> {
        let v = self.int(idx)?;
        u32::try_from(v).map_err(|_| StoreError::Corrupt(format!("{name} {v}")))
    }

    fn bytes(&self, idx: usize) -> Result<Vec<u8>> {
        self.try_get(idx).map_err(corrupt)
    }

    fn digest(&self, idx: usize) -> Result<Digest> {
        let s = self.text(idx)?;
        Digest::parse(&s).map_err(corrupt)
    }

    fn unknown(&self, _idx: usize, what: &str, value: &str) -> StoreError {
        StoreError::Corrupt(format!("unknown {what} `{value}`"))
    }
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
