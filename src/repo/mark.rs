//! The log key's high-water mark: the newest checkpoint this key holder signed, kept beside the
//! key (`.locker/keys/log.checkpoint`), outside the database.
//!
//! The signer writes it (durably, atomically) before a new signature is stored or leaves
//! locker, and never signs a checkpoint not proven to extend it; every command that opens the
//! repository first checks the database against it. A database that lost entries the key
//! already signed (a restored copy, a truncated file, a lost write-ahead log, rows deleted
//! behind locker's back) is therefore refused, instead of silently becoming a shorter or
//! different history that the same key would sign again.
//!
//! The mark is per key holder: with a PostgreSQL store each host keeps its own beside its copy
//! of the key, and refuses a database rolled back below the checkpoints it signed itself.

use std::fs;
use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use crate::domain::digest::Digest;
use crate::domain::merkle::{self, Frontier, Hashes};
use crate::domain::note::{Checkpoint, SignedCheckpoint};
use crate::store::{Flow, Store, StoreError, Tx};

use super::{io, refuse_symlink, RepoError, KEYS_DIR};

/// The mark's file inside the key directory.
pub const MARK_FILE: &str = "log.checkpoint";

/// The mark: the newest checkpoint signed with the log key here, as a signed note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    /// The signed note, verbatim.
    pub note: String,
    pub checkpoint: Checkpoint,
}

impl Mark {
    pub fn size(&self) -> u64 {
        self.checkpoint.size
    }

    pub fn root(&self) -> Digest {
        self.checkpoint.root
    }
}

/// The mark's path for the repository whose `.locker/` is `dot`.
pub fn path(dot: &Path) -> PathBuf {
    dot.join(KEYS_DIR).join(MARK_FILE)
}

/// Where a host with a key file and no `.locker/` keeps the mark of the log `origin`: a
/// directory under the user's state directory (`$XDG_STATE_HOME/locker/logs/<hash>/`), made on
/// first use. None when the home directory is unknown.
pub fn state_home(origin: &str) -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "locker")?;
    let base = dirs.state_dir().unwrap_or_else(|| dirs.data_local_dir()).to_owned();
    let hash = crate::domain::digest::Digest::of(origin.as_bytes()).to_hex();
    Some(base.join("logs").join(&hash[..16]))
}

/// Reads the mark (none before the first checkpoint was signed here). Its signature is checked
/// by `locker verify` and `locker doctor`, not here: whoever could forge it could replace the
/// key beside it too.
pub fn load(dot: &Path) -> Result<Option<Mark>, RepoError> {
    let p = path(dot);
    refuse_symlink(&p)?;
    let note = match fs::read_to_string(&p) {
        Ok(n) => n,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(&p)(e)),
    };
    let checkpoint = SignedCheckpoint::parse_unverified(&note).map_err(|e| RepoError::Invalid {
        path: dot.to_owned(),
        reason: format!(
            "{KEYS_DIR}/{MARK_FILE} (the log key's high-water mark) is unreadable: {e}"
        ),
    })?;
    Ok(Some(Mark { note, checkpoint }))
}

/// Moves the mark to `note` if it is newer (larger) than the mark, atomically and durably: a
/// crash leaves the old mark or the new one, never a torn file; concurrent processes never move
/// it back. The caller has proved `note`'s checkpoint consistent with the mark. Returns whether
/// it moved.
pub fn advance(dot: &Path, note: &str) -> Result<bool, RepoError> {
    let size = parsed(dot, note)?.size;
    let _lock = lock(dot)?;
    if load(dot)?.is_some_and(|m| m.size() >= size) {
        return Ok(false);
    }
    write(dot, note)?;
    Ok(true)
}

/// Replaces the mark with `note` whatever it was: only for accepting a deliberate rollback.
pub fn replace(dot: &Path, note: &str) -> Result<(), RepoError> {
    parsed(dot, note)?;
    let _lock = lock(dot)?;
    write(dot, note)
}

fn parsed(dot: &Path, note: &str) -> Result<Checkpoint, RepoError> {
    SignedCheckpoint::parse_unverified(note).map_err(|e| RepoError::Invalid {
        path: dot.to_owned(),
        reason: format!("a malformed checkpoint for the high-water mark: {e}"),
    })
}

/// An exclusive lock on the mark (a lock file beside it), held until dropped.
fn lock(dot: &Path) -> Result<fs::File, RepoError> {
    let dir = dot.join(KEYS_DIR);
    refuse_symlink(&dir)?;
    if !dir.exists() {
        // A host's state directory for a log served without `.locker/` (see [`state_home`]).
        fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir).map_err(io(&dir))?;
    }
    let p = dir.join(format!("{MARK_FILE}.lock"));
    refuse_symlink(&p)?;
    let f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&p)
        .map_err(io(&p))?;
    f.lock().map_err(io(&p))?;
    Ok(f)
}

/// Writes the mark file: a temporary file, synced, renamed over it. (The rename itself need not
/// be durable: a crash before it reaches the disk leaves the older mark, which is safe.)
fn write(dot: &Path, note: &str) -> Result<(), RepoError> {
    let dir = dot.join(KEYS_DIR);
    let target = dir.join(MARK_FILE);
    let tmp = dir.join(format!(".{MARK_FILE}.tmp-{}", crate::domain::secret::random_id()));
    let result = (|| {
        let mut f = fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&tmp)?;
        f.write_all(note.as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, &target)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io(&target)(e));
    }
    Ok(())
}

/// How a database stands against the mark: what it lost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rollback {
    /// The mark's size and root.
    pub mark_size: u64,
    pub mark_root: Digest,
    /// The journal's entries now.
    pub journal_entries: u64,
    /// The root the database gives at the mark's size, when it is long enough.
    pub journal_root: Option<Digest>,
}

impl std::fmt::Display for Rollback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.journal_root {
            None => write!(
                f,
                "the database holds {} journal entries, but the log key here already signed a \
                 checkpoint of {} entries (its high-water mark): the database was rolled back, \
                 truncated or replaced",
                self.journal_entries, self.mark_size
            ),
            Some(root) => write!(
                f,
                "the database's first {} journal entries (of {}) have root {root}, but the log \
                 key here signed root {} for them (its high-water mark): the database was \
                 rewritten or replaced",
                self.mark_size, self.journal_entries, self.mark_root
            ),
        }
    }
}

/// Stored tree hashes read through a transaction (`None`: the position is not stored).
struct Stored<'a>(&'a dyn Tx);

impl Hashes for Stored<'_> {
    type Error = Option<StoreError>;
    fn hash(&mut self, level: u32, n: u64) -> Result<Digest, Self::Error> {
        self.0.merkle_hash(merkle::stored_index(level, n)).map_err(Some)?.ok_or(None)
    }
}

/// The root of the journal's first `size` entries: from the stored tree when it covers them,
/// else recomputed from the entries themselves (a tree deleted or cut short); `None` when the
/// journal has fewer than `size` consecutive entries.
pub fn root_at(tx: &dyn Tx, size: u64) -> Result<Option<Digest>, StoreError> {
    if size == 0 {
        return Ok(Some(merkle::EMPTY_ROOT));
    }
    let stored = merkle::size_for_count(tx.merkle_count()?).unwrap_or(0);
    if stored >= size {
        match merkle::root(&mut Stored(tx), size) {
            Ok(root) => return Ok(Some(root)),
            Err(Some(e)) => return Err(e),
            Err(None) => {}
        }
    }
    let mut fr = Frontier::default();
    tx.for_each_journal(&mut |row| {
        if row.seq != fr.size + 1 {
            return Flow::Break(());
        }
        fr.push(merkle::leaf_hash(&row.entry));
        if fr.size == size {
            Flow::Break(())
        } else {
            Flow::Continue(())
        }
    })?;
    Ok((fr.size == size).then(|| fr.root()))
}

/// Checks the database against the mark: `Some` when the journal is shorter than the mark, or
/// its root at the mark's size is not the mark's. Read the mark before calling this (the
/// database only grows, so a mark read first can never be ahead of an honest database).
pub fn check(store: &mut dyn Store, mark: &Mark) -> Result<Option<Rollback>, StoreError> {
    let tx = store.read()?;
    let entries = tx.journal_head()?.map_or(0, |h| h.seq);
    let rollback = |journal_root| Rollback {
        mark_size: mark.size(),
        mark_root: mark.root(),
        journal_entries: entries,
        journal_root,
    };
    if entries < mark.size() {
        return Ok(Some(rollback(None)));
    }
    match root_at(tx.as_ref(), mark.size())? {
        Some(root) if root == mark.root() => Ok(None),
        found => Ok(Some(rollback(found))),
    }
}
