//! [`RetentionStore`] on SQLite (`locker gc`), and the blob files in `objects/` that no row
//! names ([`BlobFiles`]).

use std::path::{Path, PathBuf};

use rusqlite::params;

use super::rows::blob_row;
use super::tx::SqliteTx;
use crate::domain::digest::Digest;
use crate::store::sql::{qualified, BLOB_COLS};
use crate::store::{
    objects, ArtifactStore as _, BlobFiles, BlobRow, BlobStorage, Result, RetentionStore,
    StoreError, StrayFile,
};

impl RetentionStore for SqliteTx<'_> {
    fn prune_pad(&mut self, pad_id: &str, now: i64) -> Result<u64> {
        self.check_writable()?;
        self.secure_delete(true)?;
        let n = self.exec(
            "UPDATE blocks SET pruned_bytes = length(CAST(payload AS BLOB)), payload = X'' \
             WHERE pad_id = ?1 AND pruned_bytes IS NULL",
            params![pad_id],
        )?;
        self.exec("UPDATE pads SET pruned_at = ?2 WHERE id = ?1", params![pad_id, now])?;
        self.secure_delete(false)?;
        Ok(n as u64)
    }

    fn prune_lease_work(&mut self, lease_id: &str, now: i64) -> Result<()> {
        self.check_writable()?;
        self.secure_delete(true)?;
        self.exec(
            "UPDATE leases SET details = NULL, result = NULL, pruned_at = ?2 WHERE id = ?1",
            params![lease_id, now],
        )?;
        self.exec(
            "UPDATE plans SET steps = '[]', pruned_at = ?2 WHERE lease_id = ?1",
            params![lease_id, now],
        )?;
        self.exec(
            "UPDATE steps SET planned = NULL, executed = NULL, pruned_at = ?2 \
             WHERE lease_id = ?1",
            params![lease_id, now],
        )?;
        self.secure_delete(false)?;
        Ok(())
    }

    fn unreferenced_blobs(&self) -> Result<Vec<BlobRow>> {
        let cols = qualified(BLOB_COLS, "b");
        let sql = format!(
            "SELECT {cols} FROM blobs b WHERE NOT EXISTS \
             (SELECT 1 FROM artifact_versions v WHERE v.blob = b.digest) ORDER BY b.digest"
        );
        self.all(&sql, [], blob_row)
    }

    fn delete_blob(&mut self, digest: &Digest) -> Result<()> {
        self.check_writable()?;
        let Some(row) = self.blob_row(digest)? else { return Ok(()) };
        self.exec("DELETE FROM blobs WHERE digest = ?1", [digest.to_hex()])?;
        if row.storage == BlobStorage::File {
            self.remove_on_commit.push(self.objects.join(objects::rel_path(digest)));
        }
        Ok(())
    }

    fn blob_files(&mut self) -> Option<&mut dyn BlobFiles> {
        Some(self)
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
