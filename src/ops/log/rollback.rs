//! Accepting a deliberate restore: the database lost entries the log key had signed (an older
//! backup put back on purpose), and the operator says so explicitly.
//!
//! The acceptance is journaled (`repo.rollback`, naming the checkpoint given up, verbatim) and
//! signed: the log key signs the journal that ends with that entry, and the high-water mark
//! moves to it. This is the one checkpoint the log signs that does not extend the one before:
//! a reader pinned beyond the restored size sees a fork, and the journal says why.

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::event::RepoRollback;
use crate::domain::note::{Checkpoint, SignedCheckpoint};
use crate::ops::log::checkpoint::{outcome, prove_consistent, refuse, CheckpointOutcome};
use crate::ops::log::merkle::{catch_up, root_at, tree_size};
use crate::ops::log::signer;
use crate::ops::log::{journal, LogIdentity};
use crate::ops::{Ctx, ErrorKind, OpError, OpResult};
use crate::repo::mark::{self, Rollback};
use crate::store::CheckpointRow;

/// What `locker checkpoint --accept-rollback` did.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct RollbackAccepted {
    /// The checkpoint given up: the log key's former high-water mark.
    pub abandoned_size: u64,
    pub abandoned_root: Digest,
    /// The journal as restored.
    pub restored_size: u64,
    pub restored_root: Digest,
    /// The `repo.rollback` entry recording the acceptance.
    pub journal_seq: u64,
    /// The checkpoint signed over the journal ending with it: the new high-water mark.
    pub checkpoint: CheckpointOutcome,
}

fn damaged(detail: String) -> OpError {
    OpError::new(ErrorKind::Unprocessable, "damaged", detail).hint(
        "This is not a clean restore: restore the newest backup (`locker restore BACKUP --yes`), \
         and run `locker verify`.",
    )
}

/// Accepts the database's state as a deliberate restore below the log key's high-water mark
/// `rb` (operator only): journals a `repo.rollback` entry and signs the journal ending with
/// it, which becomes the new mark. The database must be a clean older state (its own tree and
/// checkpoints agree with its journal).
pub fn accept(ctx: &mut Ctx<'_>, log: &LogIdentity, rb: &Rollback) -> OpResult<RollbackAccepted> {
    crate::ops::auth::operator_only(&ctx.actor, "accept a rollback")?;
    let no_mark = || {
        OpError::new(ErrorKind::Conflict, "not_rolled_back", "the log key has no high-water mark")
    };
    let home = log.mark.as_deref().ok_or_else(no_mark)?;
    let old = mark::load(home)?.ok_or_else(no_mark)?;
    let now = ctx.now();
    let actor = ctx.actor.clone();
    let mut tx = ctx.store.write()?;
    // Only in this process's turn to sign (a running server must be stopped first).
    let signer = signer::take(tx.as_mut(), log, now)?;
    let head = tx.journal_head()?.map_or(0, |h| h.seq);
    let size = tree_size(tx.as_ref())?;
    if size > head {
        return Err(damaged(format!(
            "its Merkle tree covers {size} entries but its journal has {head}"
        )));
    }
    catch_up(tx.as_mut(), size, head)?;
    let restored_root = root_at(tx.as_ref(), head)?;
    if let Some(last) = tx.latest_checkpoint()? {
        let ok = SignedCheckpoint::verify(&last.note, &signer.verifier()).is_ok()
            && prove_consistent(tx.as_ref(), head, &restored_root, last.size, &last.root).is_ok()
            && last.size <= head;
        if !ok {
            return Err(damaged(format!(
                "its own checkpoint of size {} does not agree with its journal of {head} entries",
                last.size
            )));
        }
    }
    let event = RepoRollback {
        abandoned_size: rb.mark_size,
        abandoned_root: rb.mark_root,
        abandoned_checkpoint: old.note.clone(),
        restored_size: head,
        restored_root,
    };
    let row = journal::append(tx.as_mut(), &actor, now, event)?;
    let size = row.seq;
    let root = root_at(tx.as_ref(), size)?;
    let checkpoint = Checkpoint { origin: signer.name.clone(), size, root };
    let note = signer.sign(&checkpoint.to_text());
    let cp = CheckpointRow { size, root, note, signed_at: now };
    if tx.checkpoint_at(size)?.is_some() {
        return Err(refuse(format!("a checkpoint of size {size} is stored already")));
    }
    // The explicit acceptance: the mark moves to a checkpoint that does not extend it.
    mark::replace(home, &cp.note)?;
    tx.insert_checkpoint(&cp)?;
    tx.commit()?;
    Ok(RollbackAccepted {
        abandoned_size: rb.mark_size,
        abandoned_root: rb.mark_root,
        restored_size: head,
        restored_root,
        journal_seq: row.seq,
        checkpoint: outcome(cp, &signer.verifier(), true),
    })
}
