//! [`ArtifactStore`] on PostgreSQL: blobs (always in the database), artifact versions, heads
//! and publish receipts.

use super::rows::blob_row;
use super::tx::PgTx;
use crate::domain::digest::Digest;
use crate::store::sql::{
    head_row, qualified, receipt_row, sql_i64, version_row, Columns as _, BLOB_COLS, RECEIPT_COLS,
    VERSION_COLS,
};
use crate::store::{
    ArtifactHeadRow, ArtifactQuery, ArtifactStore, ArtifactVersionRow, BlobRow, Flow, ReceiptRow,
    Result,
};

impl ArtifactStore for PgTx<'_> {
    fn blob_row(&self, digest: &Digest) -> Result<Option<BlobRow>> {
        let sql = format!("SELECT {BLOB_COLS} FROM blobs WHERE digest = $1");
        self.one(&sql, &[&digest.to_hex()], blob_row)
    }

    fn blob(&self, digest: &Digest) -> Result<Option<Vec<u8>>> {
        self.one("SELECT data FROM blobs WHERE digest = $1", &[&digest.to_hex()], |r| r.bytes(0))
    }

    fn put_blob(&mut self, digest: &Digest, bytes: &[u8], now: i64) -> Result<()> {
        self.check_writable()?;
        if self.blob_row(digest)?.is_some() {
            return Ok(());
        }
        self.exec(
            "INSERT INTO blobs (digest, size, storage, data, created_at) \
             VALUES ($1, $2, 'inline', $3, $4) ON CONFLICT DO NOTHING",
            &[&digest.to_hex(), &(bytes.len() as i64), &bytes, &now],
        )?;
        Ok(())
    }

    fn for_each_blob(&self, f: &mut dyn FnMut(BlobRow) -> Flow) -> Result<()> {
        self.stream(&format!("SELECT {BLOB_COLS} FROM blobs ORDER BY digest"), blob_row, f)
    }

    fn artifact_head(&self, scope: &str, key: &str) -> Result<Option<u64>> {
        self.one(
            "SELECT version FROM artifact_heads WHERE scope = $1 AND key = $2",
            &[&scope, &key],
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
             WHERE scope = $1 AND key = $2 AND version = $3"
        );
        self.one(&sql, &[&scope, &key, &sql_i64(version)], version_row)
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
             WHERE scope = $1 AND key = $2 AND version > $3 ORDER BY version LIMIT $4"
        );
        self.all(&sql, &[&scope, &key, &sql_i64(after), &sql_i64(limit)], version_row)
    }

    fn artifact_heads(&self, q: &ArtifactQuery) -> Result<Vec<ArtifactVersionRow>> {
        let cols = qualified(VERSION_COLS, "v");
        let sql = format!(
            "SELECT {cols} FROM artifact_heads h JOIN artifact_versions v \
             ON v.scope = h.scope AND v.key = h.key AND v.version = h.version \
             WHERE h.scope = $1 AND ($2::TEXT IS NULL OR h.key > $2) ORDER BY h.key LIMIT $3"
        );
        self.all(&sql, &[&q.scope, &q.after, &sql_i64(q.limit)], version_row)
    }

    fn for_each_artifact_version(
        &self,
        f: &mut dyn FnMut(ArtifactVersionRow) -> Flow,
    ) -> Result<()> {
        let sql =
            format!("SELECT {VERSION_COLS} FROM artifact_versions ORDER BY scope, key, version");
        self.stream(&sql, version_row, f)
    }

    fn for_each_artifact_head(&self, f: &mut dyn FnMut(ArtifactHeadRow) -> Flow) -> Result<()> {
        self.stream(
            "SELECT scope, key, version FROM artifact_heads ORDER BY scope, key",
            head_row,
            f,
        )
    }

    fn receipt(&self, actor: &str, op_id: &str) -> Result<Option<ReceiptRow>> {
        let sql =
            format!("SELECT {RECEIPT_COLS} FROM artifact_receipts WHERE actor = $1 AND op_id = $2");
        self.one(&sql, &[&actor, &op_id], receipt_row)
    }

    fn for_each_receipt(&self, f: &mut dyn FnMut(ReceiptRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {RECEIPT_COLS} FROM artifact_receipts ORDER BY actor, op_id");
        self.stream(&sql, receipt_row, f)
    }

    fn insert_artifact_version(&mut self, v: &ArtifactVersionRow) -> Result<()> {
        self.insert(
            "artifact_versions",
            VERSION_COLS,
            &[
                &v.scope,
                &v.key,
                &sql_i64(v.version),
                &v.blob.to_hex(),
                &sql_i64(v.size),
                &v.actor,
                &v.op_id,
                &v.created_at,
            ],
        )
    }

    fn set_artifact_head(&mut self, h: &ArtifactHeadRow) -> Result<()> {
        self.exec(
            "INSERT INTO artifact_heads (scope, key, version) VALUES ($1, $2, $3) \
             ON CONFLICT (scope, key) DO UPDATE SET version = excluded.version",
            &[&h.scope, &h.key, &sql_i64(h.version)],
        )?;
        Ok(())
    }

    fn insert_receipt(&mut self, r: &ReceiptRow) -> Result<()> {
        self.insert(
            "artifact_receipts",
            RECEIPT_COLS,
            &[
                &r.actor,
                &r.op_id,
                &r.scope,
                &r.key,
                &sql_i64(r.expected_version),
                &sql_i64(r.version),
                &r.created_at,
                &r.fence.as_ref().map(|f| f.work.as_str()),
                &r.fence.as_ref().map(|f| sql_i64(f.token)),
            ],
        )
    }
}
