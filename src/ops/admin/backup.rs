//! `locker backup` and `locker restore`: a consistent, verified copy of a live repository, and
//! putting one back.
//!
//! A backup is a directory that is itself a repository root (`DEST/.locker/…`, modes 0700 and
//! 0600): the store's own snapshot (for SQLite, `VACUUM INTO` in one read transaction, so
//! writers go on meanwhile), the blob files that snapshot names, the log's signing key, and
//! `config.json`. It is assembled in a temporary sibling, verified like `locker verify`, and only
//! then renamed
//! into place, so DEST is either a complete, verified backup or absent.
//!
//! Neither is journaled. A backup changes nothing in the source (and an entry recording it
//! could never be in the backup it describes); a restore puts back exactly the backed-up
//! journal, so `locker verify --expect-head` with the backup's head still holds.
//!
//! The log key's high-water mark ([`crate::repo::mark`]) goes with the key into a backup (read
//! before the database's snapshot, so it never runs ahead of it). A restore over a repository
//! keeps the newer of the two marks: restoring a backup older than the checkpoints the key
//! signed since is refused as a rollback (exit 6), unless the operator accepts it
//! (`accept_rollback`), which journals a `repo.rollback` entry and signs the restored journal.

use std::fs;
use std::os::unix::fs::DirBuilderExt as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::secret::random_id;
use crate::ops::verify::{self, RepoReport};
use crate::ops::{Actor, Clock, Ctx, ErrorKind, LogIdentity, OpError, OpResult, Progress};
use crate::repo::{self, Repo, RepoError, CONFIG_FILE, DOT_LOCKER};
use crate::store::StoreError;

/// What a verified copy holds.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct CopySummary {
    pub repository_id: String,
    pub journal_entries: u64,
    pub head_seq: u64,
    pub head_hash: Digest,
    pub pads: u64,
    pub blocks: u64,
    pub pruned_pads: u64,
    pub blobs: u64,
    pub artifact_versions: u64,
    pub leases: u64,
}

impl CopySummary {
    fn of(repository_id: &str, r: &RepoReport) -> Self {
        Self {
            repository_id: repository_id.to_owned(),
            journal_entries: r.journal.entries,
            head_seq: r.journal.head_seq,
            head_hash: r.journal.head_hash,
            pads: r.pads.checked,
            blocks: r.pads.blocks,
            pruned_pads: r.pads.pruned,
            blobs: r.blobs.checked,
            artifact_versions: r.artifacts.versions,
            leases: r.leases.leases,
        }
    }
}

/// A finished backup.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BackupDone {
    /// The backup's directory (a repository root: it holds `.locker/`).
    pub backup: PathBuf,
    pub database_bytes: u64,
    pub blob_files: u64,
    pub blob_bytes: u64,
    /// Always `true`: a copy that does not verify is not kept.
    pub verified: bool,
    #[serde(flatten)]
    pub summary: CopySummary,
}

/// A finished restore.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Restored {
    /// The repository root restored into (it holds `.locker/`).
    pub restored_to: PathBuf,
    /// The backup it came from.
    pub backup: PathBuf,
    /// Where the repository that was there before now is (`--yes`), if there was one.
    pub replaced: Option<PathBuf>,
    /// The rollback accepted, when the backup was older than the checkpoints the log key had
    /// signed since (`--accept-rollback`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback: Option<crate::ops::log::rollback::RollbackAccepted>,
    pub verified: bool,
    #[serde(flatten)]
    pub summary: CopySummary,
}

fn io_err(what: &Path) -> impl FnOnce(std::io::Error) -> OpError + '_ {
    move |e| OpError::unavailable(format!("{}: {e}", what.display()))
}

/// Verifies the repository whose root is `root` (a copy being assembled), its checkpoints'
/// signatures and its high-water mark included.
fn verify_copy(
    root: &Path,
    clock: &dyn Clock,
    progress: &dyn Progress,
) -> OpResult<(Repo, RepoReport)> {
    let mut copy = Repo::open_root(root)?;
    // The copy is moved into place once dropped: it must be one self-contained database file
    // (a store without housekeeping keeps no files of its own to settle).
    if let Some(m) = copy.store.maintenance() {
        m.settle_on_close()?;
    }
    let log = LogIdentity::new(&copy.dot, &copy.config);
    let key = repo::log_verifier(&copy.dot, &log.origin)?;
    let report = {
        let mut ctx = Ctx::new(copy.store.as_mut(), Actor::operator(), clock);
        ctx.log = Some(&log);
        verify::repository_with_key(&mut ctx, None, progress, key.as_ref())?
    };
    Ok((copy, report))
}

/// Copies the log key's high-water mark at `from` (a repository's `.locker/`) into `to`, when
/// it is newer than `to`'s own and the key is the same: a restore must not forget what the key
/// signed since the backup was taken.
fn carry_mark(from: &Path, to: &Path) -> OpResult<()> {
    let Some(theirs) = repo::mark::load(from)? else { return Ok(()) };
    let key = |dot: &Path| fs::read(dot.join(repo::KEYS_DIR).join(repo::LOG_KEY_FILE)).ok();
    if key(from).is_none() || key(from) != key(to) {
        return Ok(());
    }
    let ours = repo::mark::load(to)?;
    if ours.is_none_or(|m| theirs.size() > m.size()) {
        repo::mark::replace(to, &theirs.note)?;
    }
    Ok(())
}

/// The first problems of a report, for an error's fields.
fn problems_of(report: &RepoReport) -> serde_json::Value {
    serde_json::to_value(report.problems.iter().take(10).collect::<Vec<_>>())
        .unwrap_or(serde_json::Value::Null)
}

fn absolute(p: &Path) -> OpResult<PathBuf> {
    std::path::absolute(p).map_err(io_err(p))
}

/// The refusal to back up a store that has no files to copy (PostgreSQL).
fn not_file_by_file() -> OpError {
    OpError::from(StoreError::Unsupported(
        "a PostgreSQL store is not backed up file by file: use `locker store copy --to DIR` \
         (a verified SQLite copy) or pg_dump"
            .into(),
    ))
    .hint("`locker store copy --to DIR` writes a verified SQLite repository in DIR.")
}

/// Copies the repository `repo` into the new directory `dest` (absent, or an empty
/// directory), verifies the copy, and only then puts it in place. `progress` hears of the
/// database snapshot, the blob files (`blobs`) and the verification (`entries`).
pub fn backup(
    repo: &mut Repo,
    dest: &Path,
    clock: &dyn Clock,
    progress: &dyn Progress,
) -> OpResult<BackupDone> {
    if repo.store.maintenance().is_none() {
        // Refused before anything is made.
        return Err(not_file_by_file());
    }
    let dest = absolute(dest)?;
    match fs::symlink_metadata(&dest) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(OpError::from(RepoError::Symlink(dest.clone())))
        }
        Ok(m) if m.is_dir() => {
            if fs::read_dir(&dest).map_err(io_err(&dest))?.next().is_some() {
                return Err(exists(&dest));
            }
        }
        Ok(_) => return Err(exists(&dest)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(&dest)(e)),
    }
    let (Some(parent), Some(name)) = (dest.parent(), dest.file_name()) else {
        return Err(OpError::usage(format!("{} cannot be a backup directory", dest.display())));
    };
    // A backup inside the repository it copies would be copied into the next backup.
    let dot = fs::canonicalize(&repo.dot).map_err(io_err(&repo.dot))?;
    fs::create_dir_all(parent).map_err(io_err(parent))?;
    let parent = fs::canonicalize(parent).map_err(io_err(parent))?;
    if parent.starts_with(&dot) {
        return Err(OpError::usage(
            "the backup directory cannot be inside the repository's .locker/",
        )
        .hint("Put backups on another disk, or at least outside the repository."));
    }
    let dest = parent.join(name);
    let tmp = parent.join(format!(".{}.backup-{}", name.to_string_lossy(), random_id()));
    let result = (|| {
        fs::DirBuilder::new().mode(0o700).create(&tmp).map_err(io_err(&tmp))?;
        let tmp_dot = tmp.join(DOT_LOCKER);
        fs::DirBuilder::new().mode(0o700).create(&tmp_dot).map_err(io_err(&tmp_dot))?;
        let config = fs::read(repo.dot.join(CONFIG_FILE)).map_err(io_err(&repo.dot))?;
        repo::write_new_file(&tmp_dot.join(CONFIG_FILE), &config)?;
        // The log's signing key goes with the log it signs.
        let key = repo.dot.join(repo::KEYS_DIR).join(repo::LOG_KEY_FILE);
        if key.is_file() {
            let keys = tmp_dot.join(repo::KEYS_DIR);
            fs::DirBuilder::new().mode(0o700).create(&keys).map_err(io_err(&keys))?;
            let bytes = fs::read(&key).map_err(io_err(&repo.dot))?;
            repo::write_new_file(&keys.join(repo::LOG_KEY_FILE), &bytes)?;
            // Its high-water mark too, read before the snapshot below, so never ahead of it.
            if let Some(m) = repo::mark::load(&repo.dot)? {
                repo::write_new_file(&keys.join(repo::mark::MARK_FILE), m.note.as_bytes())?;
            }
            repo::sync_dir(&keys)?;
        }
        progress.start("copying the database", 0, "");
        let stats = repo.store.maintenance().ok_or_else(not_file_by_file)?.backup(
            &tmp_dot,
            &mut |done, total| match (done, total) {
                (_, 0) => {}
                (0, _) => progress.start("copying blob files", total, "blobs"),
                _ => progress.advance(1),
            },
        )?;
        repo::sync_dir(&tmp_dot)?;
        let (copy, report) = verify_copy(&tmp, clock, progress)?;
        let repository_id = copy.config.repository_id.clone();
        drop(copy);
        if !report.ok {
            return Err(OpError::new(
                ErrorKind::Internal,
                "backup_unverified",
                format!(
                    "the copy does not verify ({} problem(s)); no backup was kept",
                    report.problem_count
                ),
            )
            .with("problem_count", report.problem_count)
            .with("problems", problems_of(&report))
            .hint("Run `locker verify` on the repository: it is probably damaged itself."));
        }
        fs::rename(&tmp, &dest).map_err(|e| {
            if dest.is_dir() {
                exists(&dest)
            } else {
                io_err(&dest)(e)
            }
        })?;
        repo::sync_dir(&parent)?;
        Ok(BackupDone {
            backup: dest.clone(),
            database_bytes: stats.database_bytes,
            blob_files: stats.blob_files,
            blob_bytes: stats.blob_bytes,
            verified: true,
            summary: CopySummary::of(&repository_id, &report),
        })
    })();
    progress.finish();
    if fs::symlink_metadata(&tmp).is_ok() {
        let _ = fs::remove_dir_all(&tmp);
    }
    result
}

fn exists(dest: &Path) -> OpError {
    OpError::new(
        ErrorKind::Conflict,
        "exists",
        format!("{} already exists and is not an empty directory", dest.display()),
    )
    .hint("Back up into a new directory, e.g. one named after the date.")
}

/// Restores the backup in `backup` (a directory holding `.locker/`, or that `.locker/`
/// itself) into the repository root `target`. An existing repository there is replaced only
/// when `replace` is set, and then atomically: the backup is copied and verified beside it
/// first, the old `.locker/` is renamed aside (and kept), and the copy renamed into place. A
/// backup older than the checkpoints the replaced repository's log key signed is refused as a
/// rollback unless `accept_rollback` (see the module documentation). `progress` hears of the
/// copy and of its verification (`entries`).
pub fn restore(
    backup: &Path,
    target: &Path,
    replace: bool,
    accept_rollback: bool,
    clock: &dyn Clock,
    progress: &dyn Progress,
) -> OpResult<Restored> {
    let backup = absolute(backup)?;
    let src_dot = if backup.file_name().is_some_and(|n| n == DOT_LOCKER)
        && backup.join(CONFIG_FILE).is_file()
    {
        backup.clone()
    } else {
        backup.join(DOT_LOCKER)
    };
    match fs::symlink_metadata(&src_dot) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(OpError::from(RepoError::Symlink(src_dot)))
        }
        Ok(m) if m.is_dir() => {}
        _ => {
            return Err(OpError::new(
                ErrorKind::NotFound,
                "no_backup",
                format!("{} holds no backup (no .locker/ directory)", backup.display()),
            )
            .hint("Name the directory `locker backup` created."))
        }
    }
    let target = absolute(target)?;
    let target_dot = target.join(DOT_LOCKER);
    let occupied = match fs::symlink_metadata(&target_dot) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(OpError::from(RepoError::Symlink(target_dot)))
        }
        Ok(_) => true,
        Err(_) => false,
    };
    if occupied {
        if fs::canonicalize(&target_dot).ok() == fs::canonicalize(&src_dot).ok() {
            return Err(OpError::usage("the backup and the target are the same repository"));
        }
        if !replace {
            return Err(occupied_err(&target));
        }
    }
    // A server running on the target would go on writing to the repository it has open, and
    // its acknowledged writes would vanish with it: refused, and no server starts meanwhile.
    let _no_server = if occupied { super::serving::exclude(&target_dot)? } else { None };
    let created_target = !target.exists();
    fs::create_dir_all(&target).map_err(io_err(&target))?;
    let tmp = target.join(format!(".locker.restore-{}", random_id()));
    let result = (|| {
        fs::DirBuilder::new().mode(0o700).create(&tmp).map_err(io_err(&tmp))?;
        let tmp_dot = tmp.join(DOT_LOCKER);
        progress.start("copying the backup", 0, "");
        repo::copy_tree(&src_dot, &tmp_dot).map_err(bad_backup)?;
        if occupied {
            carry_mark(&target_dot, &tmp_dot)?;
        }
        let rollback = match Repo::open_root_with(&tmp, repo::Opening::Inspect) {
            Ok(mut copy) => match copy.rollback.clone() {
                None => None,
                Some(rb) if !accept_rollback => {
                    return Err(crate::ops::rolled_back(&rb).hint(
                        "The backup is older than checkpoints the log key signed since: pass \
                         `--accept-rollback` to restore it anyway (journaled and signed).",
                    ))
                }
                Some(rb) => {
                    let log = LogIdentity::new(&copy.dot, &copy.config);
                    let mut ctx = Ctx::new(copy.store.as_mut(), Actor::operator(), clock);
                    Some(crate::ops::log::rollback::accept(&mut ctx, &log, &rb)?)
                }
            },
            // Reported by the verification below.
            Err(_) => None,
        };
        let (copy, report) =
            verify_copy(&tmp, clock, progress).map_err(|e| match e.code.as_ref() {
                "bad_repository" | "internal" | "symlink" | crate::ops::CORRUPT_STORE => {
                    OpError::new(
                        ErrorKind::Unprocessable,
                        "bad_backup",
                        format!("{} is not a usable backup: {}", backup.display(), e.detail),
                    )
                }
                _ => e,
            })?;
        let repository_id = copy.config.repository_id.clone();
        drop(copy);
        if !report.ok {
            return Err(OpError::new(
                ErrorKind::Unprocessable,
                "backup_broken",
                format!(
                    "the backup does not verify ({} problem(s)); nothing was restored",
                    report.problem_count
                ),
            )
            .with("problem_count", report.problem_count)
            .with("problems", problems_of(&report))
            .hint(
                "Restore an older backup, or run `locker verify -R BACKUP` to see every problem.",
            ));
        }
        let replaced = match fs::symlink_metadata(&target_dot) {
            Ok(_) if !replace => return Err(occupied_err(&target)),
            Ok(_) => {
                let aside =
                    target.join(format!(".locker.replaced-{}-{}", clock.now(), random_id()));
                fs::rename(&target_dot, &aside).map_err(io_err(&target_dot))?;
                Some(aside)
            }
            Err(_) => None,
        };
        if let Err(e) = fs::rename(&tmp_dot, &target_dot) {
            if let Some(aside) = &replaced {
                let _ = fs::rename(aside, &target_dot);
            }
            return Err(io_err(&target_dot)(e));
        }
        repo::sync_dir(&target)?;
        Ok(Restored {
            restored_to: target.clone(),
            backup: backup.clone(),
            replaced,
            rollback,
            verified: true,
            summary: CopySummary::of(&repository_id, &report),
        })
    })();
    progress.finish();
    if fs::symlink_metadata(&tmp).is_ok() {
        let _ = fs::remove_dir_all(&tmp);
    }
    if result.is_err() && created_target {
        // Only if it is still empty.
        let _ = fs::remove_dir(&target);
    }
    result
}

fn occupied_err(target: &Path) -> OpError {
    OpError::new(
        ErrorKind::Conflict,
        "repository_exists",
        format!("{} already holds a repository", target.display()),
    )
    .hint("Pass `--yes` to replace it (it is kept beside as .locker.replaced-…), or restore with `--to` into another directory.")
}

fn bad_backup(e: RepoError) -> OpError {
    match e {
        RepoError::Symlink(p) => OpError::new(
            ErrorKind::Unprocessable,
            "bad_backup",
            format!(
                "the backup holds a symbolic link ({}); locker refuses to follow it",
                p.display()
            ),
        ),
        RepoError::Store(StoreError::DiskFull) => StoreError::DiskFull.into(),
        e @ RepoError::Io { .. } => e.into(),
        e => OpError::new(ErrorKind::Unprocessable, "bad_backup", e.to_string()),
    }
}
