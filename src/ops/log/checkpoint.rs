//! Signed checkpoints of the log: the log's identity and key, and signing a C2SP checkpoint of
//! the stored tree.
//!
//! The log's Ed25519 key lives in `.locker/keys/log.key` and signs C2SP checkpoints named by
//! the repository's origin. A checkpoint is signed only after a consistency proof from the
//! newest signed one verifies against the stored tree, so the log never signs two views that
//! disagree.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::merkle;
use crate::domain::note::{Checkpoint, SignedCheckpoint, Verifier};
use crate::ops::log::merkle::{catch_up, root_at, tree_size, TxHashes};
use crate::ops::log::signer;
use crate::ops::LogIdentity;
use crate::ops::{Clock, Ctx, OpError, OpResult};
use crate::store::{CheckpointRow, Seal, Tx};

pub(super) fn refuse(detail: String) -> OpError {
    OpError::new(crate::ops::ErrorKind::Conflict, "inconsistent_tree", detail).hint(
        "The stored tree does not extend the last checkpoint this log signed: the journal or \
         its tree was changed behind locker's back. Run `locker verify`.",
    )
}

/// Proves the stored tree's root `root` at `size` consistent with the checkpoint `(c_size,
/// c_root)` signed before, whichever is larger.
pub(super) fn prove_consistent(
    tx: &dyn Tx,
    size: u64,
    root: &Digest,
    c_size: u64,
    c_root: &Digest,
) -> Result<(), String> {
    let (old, new, old_root, new_root) =
        if c_size <= size { (c_size, size, c_root, root) } else { (size, c_size, root, c_root) };
    let proof = merkle::consistency_proof(&mut TxHashes(tx), old, new).map_err(|e| e.detail)?;
    merkle::verify_consistency(old, new, old_root, new_root, &proof).map_err(|e| e.to_string())
}

/// Checks a checkpoint `row` about to be signed or served against the log key's high-water
/// mark ([`crate::repo::mark`]): it must be proved consistent with the mark (else it is
/// refused, exit 4). Before the signature is shown to anyone, [`cover`] moves the mark to it.
fn against_mark(tx: &dyn Tx, log: &LogIdentity, row: &CheckpointRow) -> OpResult<()> {
    let Some(home) = &log.mark else { return Ok(()) };
    if let Some(m) = crate::repo::mark::load(home)? {
        prove_consistent(tx, row.size, &row.root, m.size(), &m.root()).map_err(|e| {
            refuse(format!(
                "the tree at size {} (root {}) is not proved to extend the log key's \
                 high-water mark, the checkpoint it signed at size {} (root {}): {e}",
                row.size,
                row.root,
                m.size(),
                m.root()
            ))
            .with("mark_size", m.size())
        })?;
    }
    Ok(())
}

/// Moves the high-water mark to `row` (checked by `against_mark` and durable in the store)
/// if it is newer: what every path does before a signature leaves locker (printed, served,
/// sent to a witness). Done after the transaction commits, outside the store's write lock; a
/// crash before it leaves the mark behind, which is safe.
pub fn cover(log: &LogIdentity, row: &CheckpointRow) -> OpResult<()> {
    if let Some(home) = &log.mark {
        crate::repo::mark::advance(home, &row.note)?;
    }
    Ok(())
}

/// The signed checkpoint at `size` leaves: the stored one, or a new one signed after proving
/// the stored tree at `size` consistent with the newest checkpoint signed so far and with the
/// log key's high-water mark, in this process's turn to sign ([`signer::take`]; else
/// [`signer::not_signer`]). [`cover`] it once `tx` commits, before showing it.
pub(super) fn signed_at(
    tx: &mut dyn Tx,
    log: &LogIdentity,
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
        against_mark(tx, log, &row)?;
        return Ok((row, false));
    }
    let signer = signer::take(tx, log, now)?;
    let root = root_at(tx, size)?;
    if let Some(last) = tx.latest_checkpoint()? {
        let signed = SignedCheckpoint::verify(&last.note, &signer.verifier()).map_err(|e| {
            OpError::integrity(format!(
                "the stored checkpoint at size {} does not verify with the log key: {e}",
                last.size
            ))
        })?;
        let c = signed.checkpoint;
        prove_consistent(tx, size, &root, c.size, &c.root).map_err(|e| {
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
    against_mark(tx, log, &row)?;
    tx.insert_checkpoint(&row)?;
    Ok((row, true))
}

/// The newest checkpoint stored (signed here or by another host of a shared database), checked
/// against the stored tree and the mark: what a server's readers are served, since reading
/// never signs. [`cover`] it before showing it.
pub(super) fn newest_stored(tx: &dyn Tx, log: &LogIdentity) -> OpResult<CheckpointRow> {
    let row = tx.latest_checkpoint()?.ok_or_else(|| {
        OpError::new(
            crate::ops::ErrorKind::NotFound,
            "no_checkpoint",
            "the log has signed no checkpoint yet",
        )
        .hint("The log signs one when its journal grows; retry shortly.")
    })?;
    // The database must still hold the tree it signed (not one rolled back under a running
    // server).
    let size = tree_size(tx)?;
    if size < row.size || root_at(tx, row.size)? != row.root {
        return Err(refuse(format!(
            "the newest stored checkpoint covers {} entries with root {}, but the stored tree \
             ({size} entries) does not give that root: the database was rolled back or rewritten",
            row.size, row.root
        )));
    }
    against_mark(tx, log, &row)?;
    Ok(row)
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

pub(super) fn outcome(row: CheckpointRow, key: &Verifier, signed_now: bool) -> CheckpointOutcome {
    CheckpointOutcome {
        origin: key.name.clone(),
        size: row.size,
        root: row.root,
        note: row.note,
        key: key.to_vkey(),
        signed_at: row.signed_at,
        signed_now,
    }
}

/// The checkpoint of the whole journal: signed now if the journal grew, where this process
/// may sign ([`crate::ops::Settings::sign_checkpoints`]); else the newest one stored (`locker
/// serve`'s readers: a read never signs).
pub fn checkpoint(ctx: &mut Ctx<'_>, log: &LogIdentity) -> OpResult<CheckpointOutcome> {
    if ctx.settings.sign_checkpoints {
        log.preload();
        let now = ctx.now();
        let mut tx = ctx.store.write()?;
        match latest_in(tx.as_mut(), log, now) {
            Ok((row, new)) => {
                let key = log.public(tx.as_ref())?;
                tx.commit()?;
                cover(log, &row)?;
                return Ok(outcome(row, &key, new));
            }
            // Another process signs (a server holds the turn), or this host has no key: the
            // newest stored checkpoint.
            Err(e) if signer::is_not_signer(&e) => {}
            Err(e) => return Err(e),
        }
    }
    let tx = ctx.store.read()?;
    let row = newest_stored(tx.as_ref(), log)?;
    let key = log.public(tx.as_ref())?;
    drop(tx);
    cover(log, &row)?;
    Ok(outcome(row, &key, false))
}

/// The newest `limit` checkpoints stored, newest first, each with the cosignatures gathered
/// for it (in its note). Reads only: nothing is signed.
pub fn recent(
    ctx: &mut Ctx<'_>,
    log: &LogIdentity,
    limit: usize,
) -> OpResult<Vec<CheckpointOutcome>> {
    let tx = ctx.store.read()?;
    let key = log.public(tx.as_ref())?;
    let mut rows: std::collections::VecDeque<CheckpointRow> = std::collections::VecDeque::new();
    if limit > 0 {
        tx.for_each_checkpoint(&mut |c| {
            rows.push_back(c);
            if rows.len() > limit {
                rows.pop_front();
            }
            crate::store::Flow::Continue(())
        })?;
    }
    let mut out: Vec<CheckpointOutcome> =
        rows.into_iter().map(|r| outcome(r, &key, false)).collect();
    out.sort_by_key(|c| std::cmp::Reverse(c.size));
    Ok(out)
}

/// Signs a checkpoint of the whole journal when it grew past the newest one stored (at most
/// once per size); `None` when there was nothing new to sign. What every write leads to: the
/// CLI and `locker mcp` after a command, `locker serve`'s signer after each group commit.
pub fn publish(ctx: &mut Ctx<'_>, log: &LogIdentity) -> OpResult<Option<CheckpointOutcome>> {
    {
        let tx = ctx.store.read()?;
        let head = tx.journal_head()?.map_or(0, |h| h.seq);
        let newest = tx.latest_checkpoint()?.map(|c| c.size);
        if head == 0 {
            return Ok(None);
        }
        if newest.is_some_and(|n| n >= head) {
            // Signed already (in a group commit, or by another host): the mark follows it.
            let row = newest_stored(tx.as_ref(), log)?;
            drop(tx);
            cover(log, &row)?;
            return Ok(None);
        }
    }
    if !log.has_key() {
        return Ok(None);
    }
    log.preload();
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    let (row, new) = match latest_in(tx.as_mut(), log, now) {
        Ok(signed) => signed,
        // Another process holds the turn: it signs what this one wrote.
        Err(e) if signer::is_not_signer(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    let key = log.public(tx.as_ref())?;
    tx.commit()?;
    cover(log, &row)?;
    Ok(new.then(|| outcome(row, &key, true)))
}

/// The checkpoint of the whole journal, in `tx` (catching the tree up first).
pub(super) fn latest_in(
    tx: &mut dyn Tx,
    log: &LogIdentity,
    now: i64,
) -> OpResult<(CheckpointRow, bool)> {
    let head = tx.journal_head()?.map_or(0, |h| h.seq);
    let size = tree_size(tx)?;
    if size < head {
        catch_up(tx, size, head)?;
    }
    signed_at(tx, log, head, now)
}

/// Inside a group commit (`locker serve`'s writer), after its operations: signs a checkpoint
/// of the journal they grew, in a nested transaction of its own (a refusal undoes only the
/// checkpoint, never the writes), so the checkpoint is durable with them. The high-water mark
/// moves once the group is durable (the publisher thread, or the first read that serves it,
/// [`cover`]s it). `None` when the journal did not grow.
pub fn sign_in_group(ctx: &mut Ctx<'_>, log: &LogIdentity) -> OpResult<Option<CheckpointRow>> {
    if !log.has_key() {
        return Ok(None);
    }
    log.preload();
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    let Some(row) = sign_grown(tx.as_mut(), log, now)? else { return Ok(None) };
    tx.commit()?;
    Ok(Some(row))
}

/// Signs, in `tx`, the checkpoint of the journal grown past the newest one stored; `None` when
/// it did not grow, or another process holds the turn to sign.
fn sign_grown(tx: &mut dyn Tx, log: &LogIdentity, now: i64) -> OpResult<Option<CheckpointRow>> {
    let head = tx.journal_head()?.map_or(0, |h| h.seq);
    let newest = tx.latest_checkpoint()?.map(|c| c.size);
    if head == 0 || newest.is_some_and(|n| n >= head) {
        return Ok(None);
    }
    let size = tree_size(tx)?;
    if size < head {
        catch_up(tx, size, head)?;
    }
    match signed_at(tx, log, head, now) {
        Ok((row, _)) => Ok(Some(row)),
        Err(e) if signer::is_not_signer(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// What a short-lived writer (a CLI command, `locker mcp`) gives its store to run before each
/// write transaction commits ([`crate::store::Store::set_seal`]): the checkpoint of the journal
/// the transaction grew is signed in it, durable with its writes in one commit, instead of in
/// a second transaction after it. A refusal undoes only the checkpoint; [`publish`] then tries
/// again after the command (and says why it could not), and moves the high-water mark to what
/// was signed. The time is read as [`Ctx::now`] reads it, `store_offset` being the store's
/// [`crate::store::Store::clock_offset`].
pub fn seal(log: LogIdentity, clock: Arc<dyn Clock>, store_offset: i64) -> Seal {
    Box::new(move |tx: &mut dyn Tx| {
        let now = crate::ops::now_at(clock.as_ref(), store_offset);
        match sign_grown(tx, &log, now) {
            Ok(_) => true,
            Err(e) => {
                tracing::debug!("no checkpoint signed in the transaction: {}", e.detail);
                false
            }
        }
    })
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
pub fn key(ctx: &mut Ctx<'_>, log: &LogIdentity) -> OpResult<KeyOutcome> {
    let v = log.public(ctx.store.read()?.as_ref())?;
    Ok(KeyOutcome { origin: v.name.clone(), key_id: v.id_hex(), vkey: v.to_vkey() })
}

/// Parses a verifier key given by a user.
pub fn parse_verifier(vkey: &str) -> OpResult<Verifier> {
    Verifier::parse(vkey).map_err(|e| {
        OpError::new(crate::ops::ErrorKind::BadRequest, "bad_key", e.to_string())
            .hint("A verifier key looks like `name+1a2b3c4d+AQ…`; `locker key show` prints it.")
    })
}
