//! Blob files: a store that keeps large blobs outside its database puts them here, as
//! `objects/ab/cdef…` (the SHA-256 in hex, split after two characters).
//!
//! A file is written atomically: a temporary file in `objects/` (mode 0600), fsync, rename into
//! place, fsync of the directory; directories are made with mode 0700. Symbolic links are never
//! followed. Reading takes at most the expected size plus one byte, so a swollen file costs
//! nothing and is caught by the caller's re-hash.

use std::fs;
use std::io::{self, Read as _, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use crate::domain::digest::Digest;

/// The directory's name inside `.locker/`.
pub const DIR: &str = "objects";
/// Blobs up to this size are kept in the database; larger ones in files.
pub const INLINE_MAX: usize = 64 * 1024;

/// A blob file's path relative to the objects directory: `ab/cdef…`.
pub fn rel_path(d: &Digest) -> PathBuf {
    let hex = d.to_hex();
    PathBuf::from(&hex[..2]).join(&hex[2..])
}

/// A blob file's location for messages: `objects/ab/cdef…`.
pub fn display(d: &Digest) -> String {
    let hex = d.to_hex();
    format!("{DIR}/{}/{}", &hex[..2], &hex[2..])
}

fn refuse_symlink(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(io::Error::other(format!(
            "{} is a symbolic link; locker refuses to follow it",
            path.display()
        ))),
        _ => Ok(()),
    }
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

fn make_dir(dir: &Path) -> io::Result<()> {
    refuse_symlink(dir)?;
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {
            if let Some(parent) = dir.parent() {
                sync_dir(parent)?;
            }
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}

/// Reads a blob file, at most `size + 1` bytes. `NotFound` when it does not exist.
pub fn read(objects: &Path, d: &Digest, size: u64) -> io::Result<Vec<u8>> {
    let path = objects.join(rel_path(d));
    refuse_symlink(&path)?;
    let f = fs::File::open(&path)?;
    let mut buf = Vec::with_capacity(usize::try_from(size).unwrap_or(0).min(1 << 21));
    f.take(size.saturating_add(1)).read_to_end(&mut buf)?;
    Ok(buf)
}

/// Writes a blob file unless an intact one is already there. Returns the path when this call
/// created (or replaced) the file.
pub fn write(objects: &Path, d: &Digest, bytes: &[u8]) -> io::Result<Option<PathBuf>> {
    if read(objects, d, bytes.len() as u64).is_ok_and(|b| Digest::of(&b) == *d) {
        return Ok(None);
    }
    make_dir(objects)?;
    let rel = rel_path(d);
    let dir = objects.join(rel.parent().expect("a blob path has a directory"));
    make_dir(&dir)?;
    let path = objects.join(&rel);
    refuse_symlink(&path)?;
    let tmp = objects.join(format!(".tmp-{}", crate::domain::secret::random_id()));
    let result = (|| {
        let mut f = fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, &path)?;
        sync_dir(&dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map(|()| Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_atomically_with_private_modes_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let objects = dir.path().join(DIR);
        let bytes = vec![7u8; INLINE_MAX + 1];
        let d = Digest::of(&bytes);
        let path = write(&objects, &d, &bytes).unwrap().expect("created");
        assert_eq!(path, objects.join(rel_path(&d)));
        assert_eq!(display(&d), format!("objects/{}/{}", &d.to_hex()[..2], &d.to_hex()[2..]));
        assert_eq!(crate::repo::mode_of(&path).unwrap(), 0o600);
        assert_eq!(crate::repo::mode_of(path.parent().unwrap()).unwrap(), 0o700);
        assert_eq!(crate::repo::mode_of(&objects).unwrap(), 0o700);
        assert_eq!(read(&objects, &d, bytes.len() as u64).unwrap(), bytes);
        // An intact file is left alone; a damaged one is replaced.
        assert_eq!(write(&objects, &d, &bytes).unwrap(), None);
        fs::write(&path, b"damaged").unwrap();
        assert!(write(&objects, &d, &bytes).unwrap().is_some());
        assert_eq!(read(&objects, &d, bytes.len() as u64).unwrap(), bytes);
        // No temporary files are left behind.
        let stray: Vec<_> = fs::read_dir(&objects)
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
            .collect();
        assert!(stray.is_empty());
        // A swollen file is read only up to size + 1.
        fs::write(&path, vec![1u8; 3 * bytes.len()]).unwrap();
        assert_eq!(read(&objects, &d, bytes.len() as u64).unwrap().len(), bytes.len() + 1);
        // Symbolic links are refused.
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(dir.path(), &path).unwrap();
        assert!(read(&objects, &d, 1).is_err());
        assert!(write(&objects, &d, &bytes).is_err());
    }
}
