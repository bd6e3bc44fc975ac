//! Whether a `locker serve` runs on a repository: each server holds a shared lock on
//! `.locker/serve.lock` for as long as it runs (the kernel drops it when the process dies, even
//! by SIGKILL), so that a command that must not run under a server (`restore --yes`) can tell,
//! by trying to take the lock exclusively.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

use crate::ops::{ErrorKind, OpError, OpResult};
use crate::repo::RepoError;

/// The lock file in `.locker/`.
pub const LOCK_FILE: &str = "serve.lock";

/// A running server's hold on its repository; released when dropped (or the process ends).
#[derive(Debug)]
pub struct Serving(#[allow(dead_code)] File);

fn open(dot: &Path) -> OpResult<File> {
    let path = dot.join(LOCK_FILE);
    if fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(OpError::from(RepoError::Symlink(path)));
    }
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&path)
        .map_err(|e| OpError::unavailable(format!("cannot open {}: {e}", path.display())))
}

/// Marks the repository in `dot` as served by this process (several servers may share it).
pub fn hold(dot: &Path) -> OpResult<Serving> {
    let mut f = open(dot)?;
    f.lock_shared().map_err(|e| OpError::unavailable(format!("cannot lock {LOCK_FILE}: {e}")))?;
    // For people: the last server to start. The lock is what counts.
    let _ = f.set_len(0);
    let _ = writeln!(f, "{}", std::process::id());
    Ok(Serving(f))
}

/// Refuses when a server runs on the repository in `dot`; otherwise holds the repository
/// against servers starting until the returned guard is dropped.
pub fn exclude(dot: &Path) -> OpResult<Option<File>> {
    if !dot.is_dir() {
        return Ok(None);
    }
    let f = open(dot)?;
    match f.try_lock() {
        Ok(()) => Ok(Some(f)),
        Err(TryLockError::WouldBlock) => {
            let pid = fs::read_to_string(dot.join(LOCK_FILE)).unwrap_or_default();
            let pid = pid.trim();
            let who = if pid.is_empty() { String::new() } else { format!(" (process {pid})") };
            Err(OpError::new(
                ErrorKind::Conflict,
                "server_running",
                format!("a locker serve is running on {}{who}", dot.display()),
            )
            .hint("Stop the server (SIGTERM) first, then run the command again."))
        }
        Err(TryLockError::Error(e)) => {
            Err(OpError::unavailable(format!("cannot lock {LOCK_FILE}: {e}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_excludes_and_is_excluded() {
        let dir = tempfile::tempdir().unwrap();
        assert!(exclude(dir.path()).unwrap().is_some(), "nobody serves");
        let a = hold(dir.path()).unwrap();
        let b = hold(dir.path()).unwrap();
        assert_eq!(exclude(dir.path()).unwrap_err().code, "server_running");
        drop(a);
        assert!(exclude(dir.path()).is_err());
        drop(b);
        assert!(exclude(dir.path()).unwrap().is_some());
        assert!(exclude(&dir.path().join("none")).unwrap().is_none());
    }
}
