//! Signed checkpoints of the log: the log's identity and key, and signing a C2SP checkpoint of
//! the stored tree.
//!
//! The log's Ed25519 key lives in `.locker/keys/log.key` and signs C2SP checkpoints named by
//! the repository's origin. A checkpoint is signed only after a consistency proof from the
//! newest signed one verifies against the stored tree, so the log never signs two views that
//! disagree.

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::merkle;
use crate::domain::note::{Checkpoint, SignedCheckpoint, Signer, Verifier};
use crate::ops::log::merkle::{catch_up, root_at, tree_size, TxHashes};
use crate::ops::LogIdentity;
use crate::ops::{Ctx, OpError, OpResult};
use crate::store::{CheckpointRow, Tx};

fn refuse(detail: String) -> OpError {
    OpError::new(crate::ops::ErrorKind::Conflict, "inconsistent_tree", detail).hint(
        "The stored tree does not extend the last checkpoint this log signed: the journal or \
         its tree was changed behind locker's back. Run `locker verify`.",
    )
}

/// The signed checkpoint at `size` leaves: the stored one, or a new one signed after proving
/// the stored tree at `size` consistent with the newest checkpoint signed so far.
pub(super) fn signed_at(
    tx: &mut dyn Tx,
    signer: &Signer,
    size: u64,
    now: i64,
) -> OpResult<(CheckpointRow, bool)> {
    if let Some(row) = tx.checkpoint_at(size)? {
        let root = root_at(tx, size)?;
        if row.root != root {
            return Err(refuse(format!(
                "the tree's root at size {size} is {root}, but the checkpoint signed for that size \
                 has {}",
                row.root
            )));
        }
        return Ok((row, false));
    }
    let root = root_at(tx, size)?;
    if let Some(last) = tx.latest_checkpoint()? {
        let signed = SignedCheckpoint::verify(&last.note, &signer.verifier()).map_err(|e| {
            OpError::integrity(format!(
                "the stored checkpoint at size {} does not verify with the log key: {e}",
                last.size
            ))
        })?;
        let c = signed.checkpoint;
        let (old, new, old_root, new_root) = if c.size <= size {
            (c.size, size, c.root, root)
        } else {
            (size, c.size, root, c.root)
        };
        let proof = merkle::consistency_proof(&mut TxHashes(tx), old, new)?;
        merkle::verify_consistency(old, new, &old_root, &new_root, &proof).map_err(|e| {
            refuse(format!(
                "the tree at size {size} is not consistent with the checkpoint signed at size {}: \
                 {e}",
                c.size
            ))
        })?;
    }
    let checkpoint = Checkpoint { origin: signer.name.clone(), size, root };
    let note = signer.sign(&checkpoint.to_text());
    let row = CheckpointRow { size, root, note, signed_at: now };
    tx.insert_checkpoint(&row)?;
    Ok((row, true))
}

/// `locker checkpoint`: the log's latest signed checkpoint.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct CheckpointOutcome {
    pub origin: String,
    pub size: u64,
    pub root: Digest,
    /// The C2SP signed note.
    pub note: String,
    /// The verifier key (`name+keyid+key`).
    pub key: String,
    pub signed_at: i64,
    /// Whether this call signed it.
    pub signed_now: bool,
}

fn outcome(row: CheckpointRow, signer: &Signer, signed_now: bool) -> CheckpointOutcome {
    CheckpointOutcome {
        origin: signer.name.clone(),
        size: row.size,
        root: row.root,
        note: row.note,
        key: signer.verifier().to_vkey(),
        signed_at: row.signed_at,
        signed_now,
    }
}

/// Signs (if needed) and returns the checkpoint of the whole journal.
pub fn checkpoint(ctx: &mut Ctx<'_>, log: &LogIdentity) -> OpResult<CheckpointOutcome> {
    let signer = log.signer()?;
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    let (row, new) = latest_in(tx.as_mut(), &signer, now)?;
    tx.commit()?;
    Ok(outcome(row, &signer, new))
}

/// The checkpoint of the whole journal, in `tx` (catching the tree up first).
pub(super) fn latest_in(
    tx: &mut dyn Tx,
    signer: &Signer,
    now: i64,
) -> OpResult<(CheckpointRow, bool)> {
    let head = tx.journal_head()?.map_or(0, |h| h.seq);
    let size = tree_size(tx)?;
    if size < head {
        catch_up(tx, size, head)?;
    }
    signed_at(tx, signer, head, now)
}

/// `locker key show`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct KeyOutcome {
    pub origin: String,
    /// The key ID, 8 hex digits.
    pub key_id: String,
    /// The verifier key in the signed-note format: `name+keyid+base64(0x01 ‖ key)`.
    pub vkey: String,
}

/// The log's verifier key.
pub fn key(log: &LogIdentity) -> OpResult<KeyOutcome> {
    let v = log.signer()?.verifier();
    Ok(KeyOutcome { origin: v.name.clone(), key_id: v.id_hex(), vkey: v.to_vkey() })
}

/// Parses a verifier key given by a user.
pub fn parse_verifier(vkey: &str) -> OpResult<Verifier> {
    Verifier::parse(vkey).map_err(|e| {
        OpError::new(crate::ops::ErrorKind::BadRequest, "bad_key", e.to_string())
            .hint("A verifier key looks like `name+1a2b3c4d+AQ…`; `locker key show` prints it.")
    })
}
