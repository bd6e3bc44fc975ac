//! The journal's Merkle tree, kept in step with every append: its size, its root at any size,
//! and catching it up with a journal that predates it.
//!
//! The tree's leaves are the journal entries' exact stored bytes (entry `seq` is leaf
//! `seq - 1`); see [`crate::domain::merkle`].

use crate::domain::digest::Digest;
use crate::domain::merkle::{self, Hashes};
use crate::ops::{Ctx, OpError, OpResult};
use crate::store::{JournalQuery, JournalRow, Tx};

/// Stored hashes read through a transaction.
pub(super) struct TxHashes<'a>(pub(super) &'a dyn Tx);

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

/// The hashes that leaf `index` (entry `index + 1`) with data `entry` adds to the stored tree,
/// and the position they go at.
fn leaf_hashes(tx: &dyn Tx, index: u64, entry: &[u8]) -> OpResult<(u64, Vec<Digest>)> {
    let needs = merkle::append_needs(index);
    let stored = tx.merkle_hashes(&needs)?;
    let mut siblings = Vec::with_capacity(needs.len());
    for (i, h) in needs.iter().zip(stored) {
        siblings.push(h.ok_or_else(|| {
            OpError::integrity(format!("the journal's Merkle tree has no hash at position {i}"))
        })?);
    }
    let hashes = merkle::append_hashes(merkle::leaf_hash(entry), &siblings);
    Ok((merkle::stored_count(index), hashes))
}

/// Adds leaf `index` (entry `index + 1`) with data `entry` to the stored tree.
fn push_leaf(tx: &mut dyn Tx, index: u64, entry: &[u8]) -> OpResult<()> {
    let (start, hashes) = leaf_hashes(tx, index, entry)?;
    tx.insert_merkle_hashes(start, &hashes)?;
    Ok(())
}

/// Brings the stored tree up to `size` leaves from the journal (a repository made before the
/// tree existed, hashed in on first use inside the caller's write transaction).
pub(super) fn catch_up(tx: &mut dyn Tx, from: u64, size: u64) -> OpResult<()> {
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

/// Called by [`crate::ops::log::journal::append`] for every new entry, inside its transaction,
/// before the entry is stored: hashes in any older entries the tree lacks, and returns the
/// hashes the entry's leaf adds and their position, stored with the entry
/// ([`crate::store::JournalStore::append_journal`]). O(log n).
pub fn on_append(tx: &mut dyn Tx, row: &JournalRow) -> OpResult<(u64, Vec<Digest>)> {
    let size = tree_size(tx)?;
    let index = row.seq - 1;
    if size > index {
        return Err(OpError::integrity(format!(
            "the journal's Merkle tree already has {size} leaves but the journal is at entry {}",
            row.seq
        )));
    }
    catch_up(tx, size, index)?;
    leaf_hashes(tx, index, &row.entry)
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
