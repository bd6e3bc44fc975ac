//! `locker backup` and `locker restore`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::confirm::{self, Consent};
use super::{CmdResult, CommandCtx};
use crate::ops::admin::backup::{self as op, BackupDone, CopySummary, Restored};
use crate::ops::OpError;
use crate::output::Render;
use crate::repo::DOT_LOCKER;

/// Copy the repository into a new directory, consistently, while others keep writing
///
/// DEST (absent, or an empty directory) becomes a repository root of its own: `DEST/.locker/`
/// with the database as of one instant, the blob files it names and `config.json`, in modes
/// 0700 and 0600. Writers (other `locker` commands, `locker serve`) go on meanwhile; every
/// write acknowledged before the backup started is in it. The copy is verified like `locker
/// verify` before it is renamed into place, so DEST is either a complete, verified backup or
/// not there at all. The source is not changed and nothing is journaled.
///
/// Restore it with `locker restore DEST`; or use it directly: `locker -R DEST verify`.
#[derive(Debug, Args)]
pub struct BackupArgs {
    /// The new backup directory
    #[arg(value_name = "DEST")]
    pub dest: PathBuf,
}

/// Refuses an agent token: backups and restores are the operator's.
fn operator_only(ctx: &CommandCtx, what: &str) -> Result<(), OpError> {
    if ctx.identity().token.is_some() {
        return Err(OpError::forbidden(format!("only the repository's operator can {what}"))
            .hint("Unset `LOCKER_TOKEN` to act as the operator."));
    }
    Ok(())
}

pub fn backup(ctx: &mut CommandCtx, a: &BackupArgs) -> CmdResult {
    ctx.local()?;
    operator_only(ctx, "take backups")?;
    let clock = ctx.shared_clock();
    let progress = ctx.printer.progress();
    let repo = ctx.local()?.repo()?;
    let out = op::backup(repo, &a.dest, clock.as_ref(), &*progress)?;
    drop(progress);
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Restore a backup made by `locker backup`, after verifying it
///
/// BACKUP is the directory `locker backup` made. It is copied beside the target and verified
/// first: a backup that does not verify is refused (exit 6) and nothing changes. The target is
/// `--to PATH`, else `-R`/`LOCKER_DIR`, else the current directory. A repository already there
/// is replaced only when you confirm: on a terminal you are asked (the default is no: exit 1,
/// nothing changed); elsewhere `--yes` is required (exit 4, `repository_exists`, without it).
/// The replacement is atomic: the repository is renamed aside to `.locker.replaced-TIME-ID`
/// (kept; delete it when you no longer need it) and the verified copy renamed into its place.
/// Stop `locker serve` on the target first: a running server would keep writing to the
/// repository renamed aside. Nothing is journaled: the restored journal is exactly the
/// backup's.
///
/// The replaced repository's log key remembers the newest checkpoint it signed (its
/// high-water mark, `.locker/keys/log.checkpoint`), and the restored one keeps it: a backup
/// older than that is a rollback, refused (exit 6, `rolled_back`, naming both sizes) unless
/// `--accept-rollback` is given, which journals and signs the acceptance.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The backup directory (it holds `.locker/`)
    #[arg(value_name = "BACKUP")]
    pub backup: PathBuf,
    /// The directory to restore into (it will hold `.locker/`)
    #[arg(long, value_name = "PATH")]
    pub to: Option<PathBuf>,
    /// Replace a repository that is already there without asking (required when stdin or
    /// stderr is not a terminal)
    #[arg(short, long)]
    pub yes: bool,
    /// Restore it even if it is older than checkpoints the replaced repository's log key
    /// signed since (refused otherwise, exit 6): journals a `repo.rollback` entry naming the
    /// checkpoint given up, and signs the restored journal. Readers pinned beyond it will see
    /// a fork
    #[arg(long)]
    pub accept_rollback: bool,
}

pub fn restore(ctx: &mut CommandCtx, a: &RestoreArgs) -> CmdResult {
    ctx.local()?;
    operator_only(ctx, "restore backups")?;
    let target = match (&a.to, &ctx.global.repo) {
        (Some(p), _) | (None, Some(p)) => p.clone(),
        (None, None) => std::env::current_dir()
            .map_err(|e| OpError::unavailable(format!("cannot read the current directory: {e}")))?,
    };
    let occupied = std::fs::symlink_metadata(target.join(DOT_LOCKER)).is_ok();
    let replace = match confirm::consent(a.yes) {
        Consent::Given => true,
        Consent::Ask if occupied => {
            confirm::ask(
                ctx,
                &format!(
                    "The repository in {} will be replaced by the backup in {}, once the backup \
                     verifies; the current one is kept beside it as .locker.replaced-….",
                    target.display(),
                    a.backup.display()
                ),
            )?;
            true
        }
        // Nothing to replace; or no one to ask, and the restore refuses to replace a
        // repository without `--yes` (exit 4), as it always has.
        Consent::Ask | Consent::Missing => false,
    };
    let progress = ctx.printer.progress();
    let out = op::restore(&a.backup, &target, replace, a.accept_rollback, ctx.clock(), &*progress)?;
    drop(progress);
    ctx.printer.emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

fn summary(w: &mut dyn Write, s: &CopySummary) -> io::Result<()> {
    writeln!(w, "repository: {}", s.repository_id)?;
    writeln!(
        w,
        "journal:    {} entries, head {} at entry {}",
        s.journal_entries, s.head_hash, s.head_seq
    )?;
    writeln!(
        w,
        "contents:   {} pads ({} blocks, {} pruned), {} blobs, {} artifact versions, {} leases",
        s.pads, s.blocks, s.pruned_pads, s.blobs, s.artifact_versions, s.leases
    )
}

impl Render for BackupDone {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "backup:     {}", self.backup.display())?;
        summary(w, &self.summary)?;
        writeln!(
            w,
            "copied:     database {} bytes, {} blob files ({} bytes)",
            self.database_bytes, self.blob_files, self.blob_bytes
        )?;
        writeln!(w, "verified:   intact")
    }
}

impl Render for Restored {
    fn render_human(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "restored:   {} (from {})", self.restored_to.display(), self.backup.display())?;
        summary(w, &self.summary)?;
        if let Some(old) = &self.replaced {
            writeln!(
                w,
                "replaced:   the previous repository is now {} (delete it when you no longer \
                 need it)",
                old.display()
            )?;
        }
        if let Some(rb) = &self.rollback {
            writeln!(
                w,
                "rollback:   accepted from {} to {} entries (journal entry {}): readers pinned \
                 beyond size {} will see a fork",
                rb.abandoned_size, rb.restored_size, rb.journal_seq, rb.restored_size
            )?;
        }
        writeln!(w, "verified:   intact")
    }
}
