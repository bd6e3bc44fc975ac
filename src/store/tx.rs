//! What a transaction can do, one trait per capability; [`Tx`] is all of them plus
//! [`Tx::commit`]. A `dyn Tx` answers every capability's methods as they are; code that holds a
//! backend's own transaction type brings the traits into scope with
//! `use crate::store::prelude::*;`.

use super::maintenance::BlobFiles;
use super::rows::{
    AgentKeyRow, AgentRow, ArtifactHeadRow, ArtifactQuery, ArtifactVersionRow, BlobRow, BlockRef,
    BlockRow, CheckpointRow, Counts, JournalHead, JournalQuery, JournalRow, LeaseCounts,
    LeaseQuery, LeaseRow, PadQuery, PadRow, PaymentRow, PlanRow, ReceiptRow, SignerRow, StepRow,
    TicketRow,
};
use super::{Flow, Result};
use crate::domain::digest::Digest;

/// A transaction. Dropping it without [`Tx::commit`] rolls it back.
pub trait Tx:
    PadStore + JournalStore + WorkStore + ArtifactStore + AgentStore + PaymentStore + RetentionStore
{
    fn commit(self: Box<Self>) -> Result<()>;
}

/// Pads, their blocks and their read tickets.
pub trait PadStore {
    fn pad(&self, id: &str) -> Result<Option<PadRow>>;
    fn pads(&self, q: &PadQuery) -> Result<Vec<PadRow>>;
    fn for_each_pad(&self, f: &mut dyn FnMut(PadRow) -> Flow) -> Result<()>;
    /// Blocks `from..=to` of a pad, in order.
    fn blocks(&self, pad: &str, from: u64, to: u64) -> Result<Vec<BlockRow>>;
    /// Sum of the payload lengths of blocks `from..=to`.
    fn blocks_bytes(&self, pad: &str, from: u64, to: u64) -> Result<u64>;
    /// Every stored block of a pad, in sequence order, one at a time.
    fn for_each_block(&self, pad: &str, f: &mut dyn FnMut(BlockRow) -> Flow) -> Result<()>;
    /// Every stored block of every pad, one at a time, in the order the store reads fastest
    /// (SQLite: the order they were written in). Each pad's blocks usually come in sequence
    /// order, but that is not promised: a caller checks it. Each block is lent, not copied.
    fn for_each_stored_block(&self, f: &mut dyn FnMut(&BlockRef<'_>) -> Flow) -> Result<()>;
    fn ticket(&self, digest: &Digest) -> Result<Option<TicketRow>>;
    /// Every ticket, one at a time.
    fn for_each_ticket(&self, f: &mut dyn FnMut(TicketRow) -> Flow) -> Result<()>;

    fn insert_pad(&mut self, pad: &PadRow) -> Result<()>;
    /// Writes a pad's mutable fields (counts, head, state, sealed_at).
    fn update_pad(&mut self, pad: &PadRow) -> Result<()>;
    fn insert_block(&mut self, block: &BlockRow) -> Result<()>;
    /// Appends `block` to its pad and writes the pad's new fields (`pad`, counted with it):
    /// [`PadStore::insert_block`] then [`PadStore::update_pad`], which a backend may do in one
    /// statement (PostgreSQL: one round trip instead of two).
    fn append_block(&mut self, block: &BlockRow, pad: &PadRow) -> Result<()> {
        self.insert_block(block)?;
        self.update_pad(pad)
    }
    fn insert_ticket(&mut self, t: &TicketRow) -> Result<()>;
    /// Writes a ticket's mutable fields (lease start, revocation).
    fn update_ticket(&mut self, t: &TicketRow) -> Result<()>;
}

/// The journal, its Merkle tree and signed checkpoints (see `domain::merkle`).
pub trait JournalStore {
    fn journal_head(&self) -> Result<Option<JournalHead>>;
    fn journal(&self, q: &JournalQuery) -> Result<Vec<JournalRow>>;
    /// Every journal entry in sequence order, one at a time.
    fn for_each_journal(&self, f: &mut dyn FnMut(JournalRow) -> Flow) -> Result<()>;
    /// [`JournalStore::for_each_journal`], each entry with the Merkle hashes its own row holds
    /// (32-byte digests, at positions `stored_count(seq - 1)..` of the tree's stored order),
    /// in one read of the journal: `Ok(true)`. A backend that keeps the tree apart from the
    /// journal gives every entry no hashes and answers `Ok(false)`; its hashes are read with
    /// [`JournalStore::for_each_merkle_hash`]. `f` borrows each row: a backend may fill one row
    /// again for every entry (SQLite does: no allocation per entry).
    fn for_each_journal_with_tree(
        &self,
        f: &mut dyn FnMut(&JournalRow, &[u8]) -> Flow,
    ) -> Result<bool> {
        self.for_each_journal(&mut |row| f(&row, &[]))?;
        Ok(false)
    }
    /// Journal entries, pads and blocks, roughly (for progress bars).
    fn counts(&self) -> Result<Counts>;
    /// Appends a journal row and moves the journal head to it.
    fn insert_journal(&mut self, row: &JournalRow) -> Result<()>;
    /// Appends a journal row (moving the head) with the Merkle hashes its leaf adds at
    /// positions `start..`: [`JournalStore::insert_journal`] then
    /// [`JournalStore::insert_merkle_hashes`], which a backend may do in one statement
    /// (PostgreSQL: one round trip instead of two).
    fn append_journal(&mut self, row: &JournalRow, start: u64, hashes: &[Digest]) -> Result<()> {
        self.insert_journal(row)?;
        self.insert_merkle_hashes(start, hashes)
    }

    /// How many Merkle hashes are stored (the highest position plus one).
    fn merkle_count(&self) -> Result<u64>;
    /// The Merkle hash stored at position `idx`.
    fn merkle_hash(&self, idx: u64) -> Result<Option<Digest>>;
    /// The Merkle hashes stored at positions `idx`, in that order ([`JournalStore::merkle_hash`]
    /// of each, which a backend may read in one statement).
    fn merkle_hashes(&self, idx: &[u64]) -> Result<Vec<Option<Digest>>> {
        idx.iter().map(|&i| self.merkle_hash(i)).collect()
    }
    /// Every stored Merkle hash, by position, one at a time.
    fn for_each_merkle_hash(&self, f: &mut dyn FnMut(u64, Digest) -> Flow) -> Result<()>;
    /// Stores `hashes` at positions `start..`.
    fn insert_merkle_hashes(&mut self, start: u64, hashes: &[Digest]) -> Result<()>;
    /// The signed checkpoint with the largest tree size.
    fn latest_checkpoint(&self) -> Result<Option<CheckpointRow>>;
    fn checkpoint_at(&self, size: u64) -> Result<Option<CheckpointRow>>;
    /// Every signed checkpoint, by size, one at a time.
    fn for_each_checkpoint(&self, f: &mut dyn FnMut(CheckpointRow) -> Flow) -> Result<()>;
    fn insert_checkpoint(&mut self, c: &CheckpointRow) -> Result<()>;
    /// Replaces a stored checkpoint's note (the same checkpoint with witnesses' cosignatures
    /// added).
    fn set_checkpoint_note(&mut self, size: u64, note: &str) -> Result<()>;
    /// Whose turn it is to sign checkpoints (none before the first was signed).
    fn log_signer(&self) -> Result<Option<SignerRow>>;
    /// Records whose turn it is to sign checkpoints.
    fn set_log_signer(&mut self, s: &SignerRow) -> Result<()>;
}

/// Leases on work items, the plans committed under them and the steps logged under them.
pub trait WorkStore {
    /// A lease by id.
    fn lease(&self, id: &str) -> Result<Option<LeaseRow>>;
    /// A work item's lease with the highest fencing token.
    fn newest_lease(&self, scope: &str, work: &str) -> Result<Option<LeaseRow>>;
    /// A work item's leases, by fencing token.
    fn work_leases(&self, scope: &str, work: &str) -> Result<Vec<LeaseRow>>;
    /// Leases matching `q`, by scope, work item and fencing token.
    fn leases(&self, q: &LeaseQuery) -> Result<Vec<LeaseRow>>;
    /// Active leases whose expiry is at or before `now`, in any scope.
    fn expired_leases(&self, now: i64) -> Result<Vec<LeaseRow>>;
    /// How many leases are live, expired (at `now`, not yet reaped) and abandoned.
    fn lease_counts(&self, now: i64) -> Result<LeaseCounts>;
    /// Every lease, one at a time.
    fn for_each_lease(&self, f: &mut dyn FnMut(LeaseRow) -> Flow) -> Result<()>;
    /// A work item's plan versions, oldest first.
    fn plans(&self, scope: &str, work: &str) -> Result<Vec<PlanRow>>;
    /// Every plan version, one at a time.
    fn for_each_plan(&self, f: &mut dyn FnMut(PlanRow) -> Flow) -> Result<()>;
    /// One step of a lease.
    fn step(&self, lease_id: &str, step: &str) -> Result<Option<StepRow>>;
    /// A work item's steps, in the order they were recorded.
    fn work_steps(&self, scope: &str, work: &str) -> Result<Vec<StepRow>>;
    /// Every step, one at a time.
    fn for_each_step(&self, f: &mut dyn FnMut(StepRow) -> Flow) -> Result<()>;

    fn insert_lease(&mut self, l: &LeaseRow) -> Result<()>;
    /// Writes a lease's mutable fields (state, expiry, heartbeat, end, result).
    fn update_lease(&mut self, l: &LeaseRow) -> Result<()>;
    fn insert_plan(&mut self, p: &PlanRow) -> Result<()>;
    fn insert_step(&mut self, s: &StepRow) -> Result<()>;
}

/// Content-addressed blobs and the versioned artifacts (with their publish receipts) that name
/// them. The store keeps the bytes; callers re-hash them on every read.
pub trait ArtifactStore {
    fn blob_row(&self, digest: &Digest) -> Result<Option<BlobRow>>;
    /// A blob's stored bytes as they are (unchecked); `None` when there is no such blob, and
    /// [`StoreError::BlobMissing`](super::StoreError::BlobMissing) when its row exists but its
    /// bytes are gone.
    fn blob(&self, digest: &Digest) -> Result<Option<Vec<u8>>>;
    /// Stores `bytes` under `digest` (their SHA-256, computed by the caller) unless a blob with
    /// that digest exists. Bytes written outside the database are removed again when the
    /// transaction is not committed.
    fn put_blob(&mut self, digest: &Digest, bytes: &[u8], now: i64) -> Result<()>;
    /// Every blob, by digest, one at a time.
    fn for_each_blob(&self, f: &mut dyn FnMut(BlobRow) -> Flow) -> Result<()>;

    fn artifact_head(&self, scope: &str, key: &str) -> Result<Option<u64>>;
    fn artifact_version(
        &self,
        scope: &str,
        key: &str,
        version: u64,
    ) -> Result<Option<ArtifactVersionRow>>;
    /// Versions of a key after `after`, oldest first, at most `limit`.
    fn artifact_versions(
        &self,
        scope: &str,
        key: &str,
        after: u64,
        limit: u64,
    ) -> Result<Vec<ArtifactVersionRow>>;
    /// The head version of each key in a scope, by key.
    fn artifact_heads(&self, q: &ArtifactQuery) -> Result<Vec<ArtifactVersionRow>>;
    /// Every stored version, by scope, key and version, one at a time.
    fn for_each_artifact_version(
        &self,
        f: &mut dyn FnMut(ArtifactVersionRow) -> Flow,
    ) -> Result<()>;
    /// Every stored head, by scope and key, one at a time.
    fn for_each_artifact_head(&self, f: &mut dyn FnMut(ArtifactHeadRow) -> Flow) -> Result<()>;
    fn receipt(&self, actor: &str, op_id: &str) -> Result<Option<ReceiptRow>>;
    /// Every receipt, by actor and operation id, one at a time.
    fn for_each_receipt(&self, f: &mut dyn FnMut(ReceiptRow) -> Flow) -> Result<()>;
    fn insert_artifact_version(&mut self, v: &ArtifactVersionRow) -> Result<()>;
    /// Creates or moves a key's head.
    fn set_artifact_head(&mut self, h: &ArtifactHeadRow) -> Result<()>;
    fn insert_receipt(&mut self, r: &ReceiptRow) -> Result<()>;
}

/// Agents with their tokens and signing keys, and repository settings.
pub trait AgentStore {
    fn agent(&self, name: &str) -> Result<Option<AgentRow>>;
    fn agent_by_token(&self, token_hash: &Digest) -> Result<Option<AgentRow>>;
    /// Every agent, by name, one at a time.
    fn for_each_agent(&self, f: &mut dyn FnMut(AgentRow) -> Flow) -> Result<()>;
    fn insert_agent(&mut self, a: &AgentRow) -> Result<()>;
    /// Writes an agent's mutable field (its revocation).
    fn update_agent(&mut self, a: &AgentRow) -> Result<()>;

    /// An agent's keys, oldest first.
    fn agent_keys(&self, agent: &str) -> Result<Vec<AgentKeyRow>>;
    /// Every agent key, by agent and key id, one at a time.
    fn for_each_agent_key(&self, f: &mut dyn FnMut(AgentKeyRow) -> Flow) -> Result<()>;
    fn insert_agent_key(&mut self, k: &AgentKeyRow) -> Result<()>;
    /// Stores a key's `revoked_at`.
    fn update_agent_key(&mut self, k: &AgentKeyRow) -> Result<()>;

    /// A repository setting's value.
    fn setting(&self, name: &str) -> Result<Option<String>>;
    /// Every setting, by name.
    fn for_each_setting(&self, f: &mut dyn FnMut((String, String)) -> Flow) -> Result<()>;
    /// Creates or changes a setting.
    fn set_setting(&mut self, name: &str, value: &str) -> Result<()>;
}

/// Redeemed payments (pay-per-pad).
pub trait PaymentStore {
    fn payment(&self, tx_hash: &str) -> Result<Option<PaymentRow>>;
    /// Every redeemed payment, by hash, one at a time.
    fn for_each_payment(&self, f: &mut dyn FnMut(PaymentRow) -> Flow) -> Result<()>;
    /// Records a payment; a spent hash is [`StoreError::Duplicate`](super::StoreError::Duplicate).
    fn insert_payment(&mut self, p: &PaymentRow) -> Result<()>;
}

/// Retention (`locker gc`).
pub trait RetentionStore {
    /// Removes the payloads of a pad's blocks, keeping their hashes and lengths, and records
    /// `now` as the pad's `pruned_at`. Returns the blocks pruned.
    fn prune_pad(&mut self, pad_id: &str, now: i64) -> Result<u64>;
    /// Removes the text of an abandoned lease (details, result), of the plans committed under
    /// it (steps become `[]`) and of its steps (planned, executed), recording `now` as each
    /// row's `pruned_at`. Fencing tokens, versions, names and times stay.
    fn prune_lease_work(&mut self, lease_id: &str, now: i64) -> Result<()>;
    /// Blobs that no artifact version names, by digest.
    fn unreferenced_blobs(&self) -> Result<Vec<BlobRow>>;
    /// Deletes a blob's row; a file holding its bytes is removed once the transaction commits.
    fn delete_blob(&mut self, digest: &Digest) -> Result<()>;
    /// The blob files this store keeps outside its database (SQLite's `objects/`), or `None`
    /// when every blob is a row (PostgreSQL): then no file can stray.
    fn blob_files(&mut self) -> Option<&mut dyn BlobFiles>;
}
