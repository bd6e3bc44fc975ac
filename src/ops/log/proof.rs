//! Proofs from the log: an entry's (or a pad block's) inclusion in the latest signed checkpoint,
//! and the consistency of two checkpoints.

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::merkle;
use crate::domain::proof::{ConsistencyProof, InclusionProof};
use crate::ops::log::checkpoint::{cover, latest_in, newest_stored, signed_at};
use crate::ops::log::merkle::{sync, tree_size, TxHashes};
use crate::ops::log::signer;
use crate::ops::LogIdentity;
use crate::ops::{Ctx, OpError, OpResult};
use crate::store::{CheckpointRow, JournalQuery, JournalRow, Tx};

/// An inclusion proof of one journal entry.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct InclusionOutcome {
    pub origin: String,
    /// The entry's sequence number; its leaf index is one less.
    pub seq: u64,
    pub index: u64,
    pub kind: String,
    pub subject: String,
    pub leaf_hash: Digest,
    /// The checkpoint's tree size and root.
    pub size: u64,
    pub root: Digest,
    /// The proof hashes, leaf sibling first.
    pub hashes: Vec<Digest>,
    /// The pad block this entry recorded, when one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<BlockRef>,
    /// The proof file (c2sp.org/tlog-proof@v1, the entry's bytes as its extra data).
    pub proof: String,
    /// The entry's exact bytes (in the proof file as its extra data).
    #[serde(skip)]
    #[schemars(skip)]
    pub entry: Vec<u8>,
}

/// A pad block and the hash the journal entry records for it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct BlockRef {
    pub pad_id: String,
    pub seq: u64,
    pub curr_hash: Digest,
}

/// Which entry to prove.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Entry(u64),
    Block { pad_id: String, seq: u64 },
}

fn entry_row(tx: &dyn Tx, seq: u64) -> OpResult<JournalRow> {
    let q = JournalQuery {
        after: Some(seq.saturating_sub(1)),
        before: Some(seq.saturating_add(1)),
        ascending: true,
        limit: 1,
        ..JournalQuery::default()
    };
    tx.journal(&q)?
        .into_iter()
        .find(|r| r.seq == seq)
        .ok_or_else(|| OpError::not_found(format!("journal entry {seq} not found")))
}

/// The journal entry that recorded block `seq` of a pad, and the block's hash it records.
pub fn block_entry(tx: &dyn Tx, pad_id: &str, seq: u64) -> OpResult<(JournalRow, Digest)> {
    if tx.pad(pad_id)?.is_none() {
        return Err(OpError::not_found("pad not found"));
    }
    let mut found = None;
    let mut after = 0;
    'pages: loop {
        let q = JournalQuery {
            subject: Some(crate::domain::event::subject::pad(pad_id)),
            after: Some(after),
            ascending: true,
            limit: 1000,
            ..JournalQuery::default()
        };
        let rows = tx.journal(&q)?;
        let Some(last) = rows.last() else { break };
        after = last.seq;
        for row in rows {
            if let Some(h) = recorded_block(&row, seq) {
                found = Some((row, h));
                break 'pages;
            }
        }
    }
    found.ok_or_else(|| OpError::not_found(format!("pad {pad_id} has no block {seq}")))
}

/// The hash `row` records for block `seq`, if it recorded that block.
fn recorded_block(row: &JournalRow, seq: u64) -> Option<Digest> {
    let e = crate::domain::journal::Entry::decode(&row.entry).ok()?;
    crate::domain::proof::recorded_block(&e, seq)
}

/// The checkpoint proofs are made against: the whole journal's, signed now if it grew and this
/// process may sign; else the newest stored one.
fn proving_checkpoint(
    tx: &mut dyn Tx,
    log: &LogIdentity,
    sign: bool,
    now: i64,
) -> OpResult<CheckpointRow> {
    if sign {
        match latest_in(tx, log, now) {
            Ok((row, _)) => return Ok(row),
            // Another process signs: prove from what it stored.
            Err(e) if signer::is_not_signer(&e) => {}
            Err(e) => return Err(e),
        }
    }
    newest_stored(tx, log)
}

/// The refusal of a proof of an entry the newest stored checkpoint does not cover yet.
fn not_checkpointed(seq: u64, cp: &CheckpointRow) -> OpError {
    OpError::new(
        crate::ops::ErrorKind::Unavailable,
        "not_checkpointed",
        format!(
            "journal entry {seq} is not in a signed checkpoint yet (the newest covers {} entries)",
            cp.size
        ),
    )
    .hint("The log signs a checkpoint as its journal grows; retry shortly.")
}

/// Proves the entry or block `target` included in the log's latest checkpoint (signing one
/// if the journal has grown and this process signs; else the newest stored one).
pub fn prove_inclusion(
    ctx: &mut Ctx<'_>,
    log: &LogIdentity,
    target: &Target,
) -> OpResult<InclusionOutcome> {
    let now = ctx.now();
    let sign = ctx.settings.sign_checkpoints;
    let actor = ctx.actor.clone();
    let mut tx = if sign { ctx.store.write()? } else { ctx.store.read()? };
    crate::ops::authorize(tx.as_ref(), &actor)?;
    let (row, block) = match target {
        Target::Entry(seq) => (entry_row(tx.as_ref(), *seq)?, None),
        Target::Block { pad_id, seq } => {
            let (row, curr_hash) = block_entry(tx.as_ref(), pad_id, *seq)?;
            (row, Some(BlockRef { pad_id: pad_id.clone(), seq: *seq, curr_hash }))
        }
    };
    if !actor.is_operator() && row.scope != actor.scope {
        return Err(OpError::not_found(format!("journal entry {} not found", row.seq)));
    }
    let cp = proving_checkpoint(tx.as_mut(), log, sign, now)?;
    if row.seq > cp.size {
        return Err(not_checkpointed(row.seq, &cp));
    }
    let origin = log.public(tx.as_ref())?.name;
    let out = inclusion_in(tx.as_ref(), &origin, &cp, &row, block)?;
    tx.commit()?;
    cover(log, &cp)?;
    Ok(out)
}

/// The inclusion proof of `row` in checkpoint `cp`.
fn inclusion_in(
    tx: &dyn Tx,
    origin: &str,
    cp: &CheckpointRow,
    row: &JournalRow,
    block: Option<BlockRef>,
) -> OpResult<InclusionOutcome> {
    let index = row.seq - 1;
    let hashes = merkle::inclusion_proof(&mut TxHashes(tx), index, cp.size)?;
    let file = InclusionProof {
        index,
        entry: row.entry.clone(),
        hashes: hashes.clone(),
        checkpoint: cp.note.clone(),
    };
    Ok(InclusionOutcome {
        origin: origin.to_owned(),
        seq: row.seq,
        index,
        kind: row.kind.clone(),
        subject: row.subject.clone(),
        leaf_hash: merkle::leaf_hash(&row.entry),
        size: cp.size,
        root: cp.root,
        hashes,
        block,
        proof: file.encode(),
        entry: row.entry.clone(),
    })
}

/// Inclusion proofs of every listed pad block in the latest checkpoint (signed now if `sign`,
/// else the newest stored), for a bundle: the signed checkpoint and, per block, the entry's
/// bytes and proof. The caller [`cover`]s the checkpoint once `tx` commits.
pub fn prove_blocks(
    tx: &mut dyn Tx,
    log: &LogIdentity,
    pad_id: &str,
    blocks: &[u64],
    sign: bool,
    now: i64,
) -> OpResult<(CheckpointRow, Vec<InclusionOutcome>)> {
    let cp = proving_checkpoint(tx, log, sign, now)?;
    let origin = log.public(tx)?.name;
    let mut out: Vec<InclusionOutcome> = Vec::new();
    for &seq in blocks {
        let (row, curr_hash) = block_entry(tx, pad_id, seq)?;
        // A deposit records every block in one entry: prove it once.
        if out.iter().any(|p| p.seq == row.seq) {
            continue;
        }
        if row.seq > cp.size {
            return Err(not_checkpointed(row.seq, &cp));
        }
        let block = Some(BlockRef { pad_id: pad_id.to_owned(), seq, curr_hash });
        out.push(inclusion_in(tx, &origin, &cp, &row, block)?);
    }
    Ok((cp, out))
}

/// A consistency proof between two signed checkpoints.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct ConsistencyOutcome {
    pub origin: String,
    pub old: u64,
    pub new: u64,
    pub old_root: Digest,
    pub new_root: Digest,
    pub hashes: Vec<Digest>,
    /// The proof file (`locker/tlog-consistency@v1`: the proof and both signed checkpoints).
    pub proof: String,
}

/// A checkpoint stored at `size`: what a process that does not sign proves from.
fn stored_at(tx: &dyn Tx, size: u64) -> OpResult<CheckpointRow> {
    tx.checkpoint_at(size)?.ok_or_else(|| {
        OpError::new(
            crate::ops::ErrorKind::NotFound,
            "no_checkpoint",
            format!("the log signed no checkpoint at size {size}"),
        )
        .hint("A server proves consistency between checkpoints it signed: the sizes a reader was served.")
    })
}

/// Proves the log's checkpoint at `old` leaves consistent with the one at `new` (default: the
/// whole journal), signing either if it was not signed yet and this process signs (at most
/// once per size); else both must be stored checkpoints.
pub fn prove_consistency(
    ctx: &mut Ctx<'_>,
    log: &LogIdentity,
    old: u64,
    new: Option<u64>,
) -> OpResult<ConsistencyOutcome> {
    let now = ctx.now();
    let sign = ctx.settings.sign_checkpoints;
    let mut tx = if sign { ctx.store.write()? } else { ctx.store.read()? };
    let latest = proving_checkpoint(tx.as_mut(), log, sign, now)?;
    let new = new.unwrap_or(latest.size);
    if new > latest.size {
        return Err(OpError::not_found(format!(
            "the log has {} entries; there is no tree of size {new}",
            latest.size
        )));
    }
    if old > new {
        return Err(OpError::unprocessable(format!(
            "the old size {old} is larger than the new size {new}"
        )));
    }
    // Either size signed now if it was not yet and this process signs; else both stored.
    let at = |tx: &mut dyn Tx, size: u64| -> OpResult<CheckpointRow> {
        if sign {
            match signed_at(tx, log, size, now) {
                Ok((row, _)) => return Ok(row),
                Err(e) if signer::is_not_signer(&e) => {}
                Err(e) => return Err(e),
            }
        }
        stored_at(tx, size)
    };
    let o = at(tx.as_mut(), old)?;
    let n = at(tx.as_mut(), new)?;
    let origin = log.public(tx.as_ref())?.name;
    let hashes = merkle::consistency_proof(&mut TxHashes(tx.as_ref()), old, new)?;
    tx.commit()?;
    cover(log, &latest)?;
    let file = ConsistencyProof { old: o.note, new: n.note, hashes: hashes.clone() };
    Ok(ConsistencyOutcome {
        origin,
        old,
        new,
        old_root: o.root,
        new_root: n.root,
        hashes,
        proof: file.encode(),
    })
}

/// The bare consistency proof hashes between tree sizes `old` and `new` of the stored tree
/// (what a pinned verifier fetches; it checks them against roots it trusts).
pub fn consistency_hashes(ctx: &mut Ctx<'_>, old: u64, new: u64) -> OpResult<Vec<Digest>> {
    sync(ctx)?;
    let tx = ctx.store.read()?;
    let size = tree_size(tx.as_ref())?;
    if old > new || new > size {
        return Err(OpError::unprocessable(format!(
            "no consistency proof from size {old} to {new} in a log of {size} entries"
        )));
    }
    merkle::consistency_proof(&mut TxHashes(tx.as_ref()), old, new)
}
