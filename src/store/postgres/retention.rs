//! [`RetentionStore`] on PostgreSQL: `locker gc`.

use super::rows::blob_row;
use super::tx::PgTx;
use crate::domain::digest::Digest;
use crate::store::sql::{qualified, BLOB_COLS};
use crate::store::{BlobFiles, BlobRow, Result, RetentionStore};

impl RetentionStore for PgTx<'_> {
    fn prune_pad(&mut self, pad_id: &str, now: i64) -> Result<u64> {
        let n = self.exec(
            "UPDATE blocks SET pruned_bytes = length(payload), payload = ''::BYTEA \
             WHERE pad_id = $1 AND pruned_bytes IS NULL",
            &[&pad_id],
        )?;
        self.exec("UPDATE pads SET pruned_at = $2 WHERE id = $1", &[&pad_id, &now])?;
        self.conn.get_mut().known.forget_pad(pad_id);
        Ok(n)
    }

    fn prune_lease_work(&mut self, lease_id: &str, now: i64) -> Result<()> {
        self.exec(
            "UPDATE leases SET details = NULL, result = NULL, pruned_at = $2 WHERE id = $1",
            &[&lease_id, &now],
        )?;
        self.exec(
            "UPDATE plans SET steps = '[]', pruned_at = $2 WHERE lease_id = $1",
            &[&lease_id, &now],
        )?;
        self.exec(
            "UPDATE steps SET planned = NULL, executed = NULL, pruned_at = $2 WHERE lease_id = $1",
            &[&lease_id, &now],
        )?;
        Ok(())
    }

    fn unreferenced_blobs(&self) -> Result<Vec<BlobRow>> {
        let cols = qualified(BLOB_COLS, "b");
        let sql = format!(
            "SELECT {cols} FROM blobs b WHERE NOT EXISTS \
             (SELECT 1 FROM artifact_versions v WHERE v.blob = b.digest) ORDER BY b.digest"
        );
        self.all(&sql, &[], blob_row)
    }

    fn delete_blob(&mut self, digest: &Digest) -> Result<()> {
        self.exec("DELETE FROM blobs WHERE digest = $1", &[&digest.to_hex()])?;
        Ok(())
    }

    fn blob_files(&mut self) -> Option<&mut dyn BlobFiles> {
        // Every blob is a row: there is no file to stray.
        None
    }
}
