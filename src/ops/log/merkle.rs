//! The journal as a transparency log: its Merkle tree (kept in step with every append),
//! signed checkpoints, and inclusion and consistency proofs.
//!
//! The tree's leaves are the journal entries' exact stored bytes (entry `seq` is leaf
//! `seq - 1`); see [`crate::domain::merkle`]. The log's Ed25519 key lives in
//! `.locker/keys/log.key` and signs C2SP checkpoints named by the repository's origin. A
//! checkpoint is signed only after a consistency proof from the newest signed one verifies
//! against the stored tree, so the log never signs two views that disagree.

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::merkle::{self, Hashes};
use crate::domain::note::{Checkpoint, SignedCheckpoint, Signer, Verifier};
use crate::domain::proof::{ConsistencyProof, InclusionProof};
use crate::ops::LogIdentity;
use crate::ops::{Ctx, OpError, OpResult};
use crate::store::{CheckpointRow, JournalQuery, JournalRow, Tx};

/// Stored hashes read through a transaction.
struct TxHashes<'a>(&'a dyn Tx);

impl Hashes for TxHashes<'_> {
    type Error = OpError;
    fn hash(&mut self, level: u32, n: u64) -> OpResult<Digest> {
        let idx = merkle::stored_index(level, n);
        self.0.merkle_hash(idx)?.ok_or_else(|| {
            OpError::integrity(format!(
                "the journal's Merkle tree has no hash at position {idx} (level {level}, node {n})"
            ))
        })
    }
}

/// The number of leaves the stored tree has.
pub fn tree_size(tx: &dyn Tx) -> OpResult<u64> {
    let count = tx.merkle_count()?;
    merkle::size_for_count(count).ok_or_else(|| {
        OpError::integrity(format!("the journal's Merkle tree has {count} hashes, a torn count"))
    })
}

/// The stored tree's root at `size` leaves.
pub fn root_at(tx: &dyn Tx, size: u64) -> OpResult<Digest> {
    merkle::root(&mut TxHashes(tx), size)
}

/// Adds leaf `index` (entry `index + 1`) with data `entry` to the stored tree.
fn push_leaf(tx: &mut dyn Tx, index: u64, entry: &[u8]) -> OpResult<()> {
    let needs = merkle::append_needs(index);
    let mut siblings = Vec::with_capacity(needs.len());
    for i in needs {
        siblings.push(tx.merkle_hash(i)?.ok_or_else(|| {
            OpError::integrity(format!("the journal's Merkle tree has no hash at position {i}"))
        })?);
    }
    let hashes = merkle::append_hashes(merkle::leaf_hash(entry), &siblings);
    tx.insert_merkle_hashes(merkle::stored_count(index), &hashes)?;
    Ok(())
}

/// Brings the stored tree up to `size` leaves from the journal (a repository made before the
/// tree existed, hashed in on first use inside the caller's write transaction).
fn catch_up(tx: &mut dyn Tx, from: u64, size: u64) -> OpResult<()> {
    let mut next = from;
    while next < size {
        let q = JournalQuery {
            after: Some(next),
            before: Some(size + 1),
            ascending: true,
            limit: 1000,
            ..JournalQuery::default()
        };
        let rows = tx.journal(&q)?;
        if rows.is_empty() {
            return Err(OpError::integrity(format!("journal entry {} is missing", next + 1)));
        }
        for row in rows {
            if row.seq != next + 1 {
                return Err(OpError::integrity(format!("journal entry {} is missing", next + 1)));
            }
            push_leaf(tx, next, &row.entry)?;
            next += 1;
        }
    }
    Ok(())
}

/// Called by [`crate::ops::log::journal::append`] for every new entry, inside its transaction: adds the
/// entry's leaf (after hashing in any older entries the tree lacks). O(log n).
pub fn on_append(tx: &mut dyn Tx, row: &JournalRow) -> OpResult<()> {
    let size = tree_size(tx)?;
    let index = row.seq - 1;
    if size > index {
        return Err(OpError::integrity(format!(
            "the journal's Merkle tree already has {size} leaves but the journal is at entry {}",
            row.seq
        )));
    }
    catch_up(tx, size, index)?;
    push_leaf(tx, index, &row.entry)
}

/// Makes the stored tree cover the whole journal (a no-op unless the repository predates it).
pub fn sync(ctx: &mut Ctx<'_>) -> OpResult<()> {
    let behind = {
        let tx = ctx.store.read()?;
        let head = tx.journal_head()?.map_or(0, |h| h.seq);
        tree_size(tx.as_ref())? < head
    };
    if behind {
        let mut tx = ctx.store.write()?;
        let head = tx.journal_head()?.map_or(0, |h| h.seq);
        let size = tree_size(tx.as_ref())?;
        catch_up(tx.as_mut(), size, head)?;
        tx.commit()?;
    }
    Ok(())
}

fn refuse(detail: String) -> OpError {
    OpError::new(crate::ops::ErrorKind::Conflict, "inconsistent_tree", detail).hint(
        "The stored tree does not extend the last checkpoint this log signed: the journal or \
         its tree was changed behind locker's back. Run `locker verify`.",
    )
}

/// The signed checkpoint at `size` leaves: the stored one, or a new one signed after proving
/// the stored tree at `size` consistent with the newest checkpoint signed so far.
fn signed_at(
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
fn latest_in(tx: &mut dyn Tx, signer: &Signer, now: i64) -> OpResult<(CheckpointRow, bool)> {
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

/// Proves the entry or block `target` included in the log's latest checkpoint (signing one
/// if the journal has grown).
pub fn prove_inclusion(
    ctx: &mut Ctx<'_>,
    log: &LogIdentity,
    target: &Target,
) -> OpResult<InclusionOutcome> {
    let signer = log.signer()?;
    let now = ctx.now();
    let actor = ctx.actor.clone();
    let mut tx = ctx.store.write()?;
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
    let (cp, _) = latest_in(tx.as_mut(), &signer, now)?;
    let out = inclusion_in(tx.as_ref(), &signer, &cp, &row, block)?;
    tx.commit()?;
    Ok(out)
}

/// The inclusion proof of `row` in checkpoint `cp`.
fn inclusion_in(
    tx: &dyn Tx,
    signer: &Signer,
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
        origin: signer.name.clone(),
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

/// Inclusion proofs of every listed pad block in the latest checkpoint, for a bundle: the
/// signed checkpoint and, per block, the entry's bytes and proof.
pub fn prove_blocks(
    tx: &mut dyn Tx,
    log: &LogIdentity,
    pad_id: &str,
    blocks: &[u64],
    now: i64,
) -> OpResult<(CheckpointRow, Vec<InclusionOutcome>)> {
    let signer = log.signer()?;
    let (cp, _) = latest_in(tx, &signer, now)?;
    let mut out: Vec<InclusionOutcome> = Vec::new();
    for &seq in blocks {
        let (row, curr_hash) = block_entry(tx, pad_id, seq)?;
        // A deposit records every block in one entry: prove it once.
        if out.iter().any(|p| p.seq == row.seq) {
            continue;
        }
        let block = Some(BlockRef { pad_id: pad_id.to_owned(), seq, curr_hash });
        out.push(inclusion_in(tx, &signer, &cp, &row, block)?);
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

/// Proves the log's checkpoint at `old` leaves consistent with the one at `new` (default: the
/// whole journal), signing either if it was not signed yet.
pub fn prove_consistency(
    ctx: &mut Ctx<'_>,
    log: &LogIdentity,
    old: u64,
    new: Option<u64>,
) -> OpResult<ConsistencyOutcome> {
    let signer = log.signer()?;
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    let (latest, _) = latest_in(tx.as_mut(), &signer, now)?;
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
    let (o, _) = signed_at(tx.as_mut(), &signer, old, now)?;
    let (n, _) = signed_at(tx.as_mut(), &signer, new, now)?;
    let hashes = merkle::consistency_proof(&mut TxHashes(tx.as_ref()), old, new)?;
    tx.commit()?;
    let file = ConsistencyProof { old: o.note, new: n.note, hashes: hashes.clone() };
    Ok(ConsistencyOutcome {
        origin: signer.name.clone(),
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

/// Parses a verifier key given by a user.
pub fn parse_verifier(vkey: &str) -> OpResult<Verifier> {
    Verifier::parse(vkey).map_err(|e| {
        OpError::new(crate::ops::ErrorKind::BadRequest, "bad_key", e.to_string())
            .hint("A verifier key looks like `name+1a2b3c4d+AQ…`; `locker key show` prints it.")
    })
}
