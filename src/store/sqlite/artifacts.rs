//! [`ArtifactStore`] on SQLite: blobs (inline, or files in `objects/`), artifact versions,
//! heads and publish receipts.

use rusqlite::{params, OptionalExtension as _};

use super::error::{blob_io, SqlResult as _};
use super::rows::{blob_row, head_row, receipt_row, version_row};
use super::tx::SqliteTx;
use crate::domain::digest::Digest;
use crate::store::sql::{qualified, sql_i64, Columns as _, BLOB_COLS, RECEIPT_COLS, VERSION_COLS};
use crate::store::{
    objects, ArtifactHeadRow, ArtifactQuery, ArtifactStore, ArtifactVersionRow, BlobRow,
    BlobStorage, Flow, ReceiptRow, Result, StoreError,
};

impl ArtifactStore for SqliteTx<'_> {
    fn blob_row(&self, digest: &Digest) -> Result<Option<BlobRow>> {
        let sql = format!("SELECT {BLOB_COLS} FROM blobs WHERE digest = ?1");
        self.one(&sql, [digest.to_hex()], blob_row)
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
            _ => Err(StoreError::Unreadable(format!("blob {digest} has a malformed row"))),
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
        self.exec(
            "INSERT INTO blobs (digest, size, storage, data, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![digest.to_hex(), bytes.len() as i64, storage, data, now],
        )?;
        Ok(())
    }

    fn for_each_blob(&self, f: &mut dyn FnMut(BlobRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {BLOB_COLS} FROM blobs ORDER BY digest");
        self.stream(&sql, &[], blob_row, f)
    }

    fn artifact_head(&self, scope: &str, key: &str) -> Result<Option<u64>> {
        self.one(
            "SELECT version FROM artifact_heads WHERE scope = ?1 AND key = ?2",
            [scope, key],
            |r| r.uint(0),
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
             WHERE scope = ?1 AND key = ?2 AND version = ?3"
        );
        self.one(&sql, params![scope, key, sql_i64(version)], version_row)
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
        self.all(&sql, params![scope, key, sql_i64(after), sql_i64(limit)], version_row)
    }

    fn artifact_heads(&self, q: &ArtifactQuery) -> Result<Vec<ArtifactVersionRow>> {
        let cols = qualified(VERSION_COLS, "v");
        let sql = format!(
            "SELECT {cols} FROM artifact_heads h JOIN artifact_versions v \
             ON v.scope = h.scope AND v.key = h.key AND v.version = h.version \
             WHERE h.scope = ?1 AND (?2 IS NULL OR h.key > ?2) ORDER BY h.key LIMIT ?3"
        );
        self.all(&sql, params![q.scope, q.after, sql_i64(q.limit)], version_row)
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
        self.one(&sql, [actor, op_id], receipt_row)
    }

    fn for_each_receipt(&self, f: &mut dyn FnMut(ReceiptRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {RECEIPT_COLS} FROM artifact_receipts ORDER BY actor, op_id");
        self.stream(&sql, &[], receipt_row, f)
    }

    fn insert_artifact_version(&mut self, v: &ArtifactVersionRow) -> Result<()> {
        let sql = format!(
            "INSERT INTO artifact_versions ({VERSION_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
        );
        self.exec(
            &sql,
            params![
                v.scope,
                v.key,
                sql_i64(v.version),
                v.blob.to_hex(),
                sql_i64(v.size),
                v.actor,
                v.op_id,
                v.created_at
            ],
        )?;
        Ok(())
    }

    fn set_artifact_head(&mut self, h: &ArtifactHeadRow) -> Result<()> {
        self.exec(
            "INSERT INTO artifact_heads (scope, key, version) VALUES (?1, ?2, ?3) \
             ON CONFLICT (scope, key) DO UPDATE SET version = excluded.version",
            params![h.scope, h.key, sql_i64(h.version)],
        )?;
        Ok(())
    }

    fn insert_receipt(&mut self, r: &ReceiptRow) -> Result<()> {
        let sql = format!(
            "INSERT INTO artifact_receipts ({RECEIPT_COLS}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
        );
        self.exec(
            &sql,
            params![
                r.actor,
                r.op_id,
                r.scope,
                r.key,
                sql_i64(r.expected_version),
                sql_i64(r.version),
                r.created_at,
                r.fence.as_ref().map(|f| f.work.as_str()),
                r.fence.as_ref().map(|f| sql_i64(f.token))
            ],
        )?;
        Ok(())
    }
}
