//! The rows a [`Tx`](super::Tx) reads and writes, and the queries that select them: plain data,
//! the same for every backend.

use crate::domain::digest::Digest;
use crate::domain::pad::{StoredState, TicketType};
use crate::domain::work::LeaseState;

/// A pad's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PadRow {
    pub id: String,
    pub scope: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub max_blocks: u32,
    pub max_bytes: u64,
    pub block_count: u64,
    pub current_bytes: u64,
    pub state: StoredState,
    pub write_key_hash: Digest,
    pub head_hash: Digest,
    pub sealed_at: Option<i64>,
    /// When `locker gc` removed the payloads of its blocks (see [`BlockRow::pruned_bytes`]).
    pub pruned_at: Option<i64>,
}

/// One block of a pad.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockRow {
    pub pad_id: String,
    pub seq: u64,
    pub prev_hash: Digest,
    pub curr_hash: Digest,
    pub content_type: String,
    /// The exact payload bytes; empty once pruned.
    pub payload: Vec<u8>,
    pub created_at: i64,
    /// `Some(length)` once `locker gc` has removed the payload: the hashes stay, so the chain
    /// still links, but the payload can no longer be re-hashed or read.
    pub pruned_bytes: Option<u64>,
}

/// One block of a pad, borrowed from the store's row (for walks over every block, which would
/// otherwise copy every payload).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRef<'a> {
    pub pad_id: &'a str,
    pub seq: u64,
    pub prev_hash: Digest,
    pub curr_hash: Digest,
    pub content_type: &'a str,
    /// The exact payload bytes; empty once pruned.
    pub payload: &'a [u8],
    pub created_at: i64,
    /// See [`BlockRow::pruned_bytes`].
    pub pruned_bytes: Option<u64>,
}

impl BlockRow {
    /// The row, borrowed.
    pub fn as_ref(&self) -> BlockRef<'_> {
        BlockRef {
            pad_id: &self.pad_id,
            seq: self.seq,
            prev_hash: self.prev_hash,
            curr_hash: self.curr_hash,
            content_type: &self.content_type,
            payload: &self.payload,
            created_at: self.created_at,
            pruned_bytes: self.pruned_bytes,
        }
    }
}

/// A read ticket, known only by its digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketRow {
    pub digest: Digest,
    pub pad_id: String,
    pub ticket_type: TicketType,
    pub created_at: i64,
    pub lease_started_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

/// One journal entry as stored: the hashed bytes plus the columns that index them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JournalRow {
    pub seq: u64,
    pub prev_hash: Digest,
    pub hash: Digest,
    pub entry: Vec<u8>,
    pub time: i64,
    pub kind: String,
    pub actor: String,
    pub scope: String,
    pub subject: String,
}

/// The journal's stored head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JournalHead {
    pub seq: u64,
    pub hash: Digest,
}

/// A checkpoint the repository's log key signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointRow {
    pub size: u64,
    pub root: Digest,
    /// The C2SP signed note, exactly as signed.
    pub note: String,
    pub signed_at: i64,
}

/// Whose turn it is to sign the log's checkpoints (see `ops::log::signer`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignerRow {
    /// The process holding the turn (`host/pid/nonce`).
    pub holder: String,
    /// The turn's number: one more at each change of holder.
    pub fence: u64,
    /// When the turn ends unless renewed (seconds).
    pub expires_at: i64,
    /// The log's verifier key (`name+keyid+key`).
    pub vkey: String,
}

/// A lease on a work item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseRow {
    /// Random id (32 lowercase hex characters).
    pub id: String,
    pub scope: String,
    pub work: String,
    /// The fencing token: 1 for a work item's first lease, one more for each later one.
    pub fence: u64,
    pub holder: String,
    pub state: LeaseState,
    pub ttl: i64,
    pub acquired_at: i64,
    pub expires_at: i64,
    pub heartbeats: u64,
    pub heartbeat_at: Option<i64>,
    pub details: Option<String>,
    pub ended_at: Option<i64>,
    pub result: Option<String>,
    /// When `locker gc` removed the text of this abandoned lease and of its plans and steps.
    pub pruned_at: Option<i64>,
}

/// One version of a work item's plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanRow {
    pub scope: String,
    pub work: String,
    /// 1, 2, 3… per work item.
    pub version: u64,
    pub lease_id: String,
    /// The steps as stored: a JSON array of unique step names, exactly as the journal's
    /// `manifest.commit` entry encodes them (parsed above the store, so a damaged row is
    /// reported rather than fatal).
    pub steps_json: String,
    pub committed_at: i64,
    /// When `locker gc` removed the steps (then `[]`) with the rest of its abandoned lease.
    pub pruned_at: Option<i64>,
}

/// One step logged under a lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepRow {
    pub scope: String,
    pub work: String,
    pub lease_id: String,
    pub step: String,
    pub planned: Option<String>,
    pub executed: Option<String>,
    pub gate: String,
    pub recorded_at: i64,
    /// When `locker gc` removed `planned` and `executed` with the rest of its abandoned lease.
    pub pruned_at: Option<i64>,
}

/// Filters for listing leases.
#[derive(Debug, Clone, Default)]
pub struct LeaseQuery {
    pub scope: Option<String>,
    pub state: Option<LeaseState>,
    pub limit: u64,
}

/// A page of the journal.
#[derive(Debug, Clone, Default)]
pub struct JournalQuery {
    /// Exact kind, or a prefix when it ends with `.` (e.g. `pad.`).
    pub kind: Option<String>,
    pub subject: Option<String>,
    pub actor: Option<String>,
    pub scope: Option<String>,
    /// Only entries with a sequence number greater than this.
    pub after: Option<u64>,
    /// Only entries with a sequence number smaller than this.
    pub before: Option<u64>,
    /// Only entries written at or after this time (Unix seconds).
    pub since: Option<i64>,
    /// Only entries written before this time (Unix seconds).
    pub until: Option<i64>,
    /// Oldest first instead of newest first.
    pub ascending: bool,
    pub limit: u64,
    /// Leave `pad.append` entries out, as a reader of a pad's other entries (its tickets) may:
    /// its blocks are in the blocks table. SQLite can then answer a query by a pad's subject
    /// from its subject index, which holds no `pad.append` entry (schema 11).
    pub skip_appends: bool,
}

impl JournalQuery {
    /// Whether no `pad.append` entry can be among the answers: they are left out, the subject
    /// is not a pad's (every `pad.append` entry's is), or the kind filter excludes them.
    pub fn excludes_appends(&self) -> bool {
        use crate::domain::event::{kind, subject};
        self.skip_appends
            || self.subject.as_deref().is_some_and(|s| !subject::is_any_pad(s))
            || self.kind.as_deref().is_some_and(|k| match k.strip_suffix('.') {
                Some(_) => !kind::PAD_APPEND.starts_with(k),
                None => k != kind::PAD_APPEND,
            })
    }
}

/// Filters for listing pads.
#[derive(Debug, Clone, Default)]
pub struct PadQuery {
    pub scope: Option<String>,
    /// Only pads whose id sorts after this (for paging).
    pub after: Option<String>,
    pub limit: u64,
}

/// An agent and its token, known only by its digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRow {
    pub name: String,
    pub scope: String,
    pub token_hash: Digest,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
}

/// Where a blob's bytes are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlobStorage {
    /// In the database row.
    Inline,
    /// In a file of its own (SQLite: `.locker/objects/ab/cdef…`).
    File,
}

/// A content-addressed blob's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobRow {
    pub digest: Digest,
    pub size: u64,
    pub storage: BlobStorage,
    /// Where the bytes are, for messages: `inline`, or `objects/ab/cdef…`.
    pub location: String,
    pub created_at: i64,
}

/// One immutable version of an artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactVersionRow {
    pub scope: String,
    pub key: String,
    pub version: u64,
    /// The SHA-256 of the content: the blob holding it.
    pub blob: Digest,
    pub size: u64,
    pub actor: String,
    pub op_id: String,
    pub created_at: i64,
}

/// A key's current version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactHeadRow {
    pub scope: String,
    pub key: String,
    pub version: u64,
}

/// The receipt of an accepted publish: what an operation id was first used for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptRow {
    pub actor: String,
    pub op_id: String,
    pub scope: String,
    pub key: String,
    pub expected_version: u64,
    pub version: u64,
    pub created_at: i64,
    /// The lease fencing token the publish carried, if any.
    pub fence: Option<crate::domain::work::Fence>,
}

/// An agent's registered signing key (`locker key generate`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentKeyRow {
    pub agent: String,
    /// The signed-note key id, 8 lowercase hex characters.
    pub key_id: String,
    /// The public key in signed-note form (`<agent>+<key id>+<base64>`).
    pub vkey: String,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
}

/// A redeemed payment: the transaction that paid for a pad (pay-per-pad).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentRow {
    /// The transaction hash, lower case; spent forever.
    pub tx_hash: String,
    pub pad_id: String,
    pub payer: String,
    /// Token units, as a decimal string (they may exceed i64).
    pub amount_units: String,
    pub token: String,
    pub recipient: String,
    pub chain_id: u64,
    pub block_number: u64,
    pub redeemed_at: i64,
}

/// A page of a scope's artifacts, by key.
#[derive(Debug, Clone, Default)]
pub struct ArtifactQuery {
    pub scope: String,
    /// Only keys that sort after this (for paging).
    pub after: Option<String>,
    pub limit: u64,
}

/// Row counts, for progress bars.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub journal: u64,
    pub pads: u64,
    pub blocks: u64,
}

/// Leases by the state they are in at a moment (for metrics).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LeaseCounts {
    /// Active and not yet expired.
    pub active: u64,
    /// Active in the store but past their expiry (not yet reaped).
    pub expired: u64,
    /// Reaped after expiring.
    pub abandoned: u64,
}
