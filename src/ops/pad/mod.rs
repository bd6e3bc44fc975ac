//! Handoff pads: agent-locker 0.1.5's rules and check order, plus revocable tickets stored as
//! digests and an atomic deposit.
//!
//! This module holds what a pad operation returns and the checks they share; the operations
//! live by what they do: `write` (create, append, seal, deposit), `tickets` (mint, revoke and
//! check read tickets), `read` (manifests, listings, block reads, counts), `inspect` (a pad's
//! hashes and tickets' states without its secrets, for the web view) and `demo` (the demo pad). Their public functions are re-exported here, so callers name them
//! `crate::ops::pad::create` and so on.

pub mod bundle;
mod demo;
mod inspect;
pub mod integrity;
pub mod payment;
mod read;
mod tickets;
mod write;

pub use demo::{seed_demo, DemoSeeded, DEMO_BLOCKS, DEMO_PAD_ID, DEMO_TTL_SECONDS, DEMO_WRITE_KEY};
pub use inspect::{inspect, BlockMeta, PadInspection, TicketState, TicketStatus};
pub use read::{counts, list, manifest, read};
pub use tickets::{mint_ticket, revoke_ticket};
pub use write::{
    append, append_signed, check_block_size, create, create_paid, deposit, deposit_paid, seal,
};

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::event::BlockRecord;
use crate::domain::limits::{MAX_CONTENT_TYPE_BYTES, MAX_PAD_ID_BYTES};
use crate::domain::pad::{PadState, TicketType};
use crate::domain::secret::Secret;
use crate::ops::{OpError, OpResult};
use crate::store::{BlockRow, PadRow, Tx};

/// The content type of a block when none is given.
pub const DEFAULT_CONTENT_TYPE: &str = "application/json";

/// A new pad's capabilities, shown once.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PadCreated {
    pub pad_id: String,
    pub write_key: String,
    pub read_ticket: String,
    pub expires_at: i64,
    pub max_blocks: u32,
}

/// An acknowledged append.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Appended {
    pub pad_id: String,
    pub seq: u64,
    pub curr_hash: Digest,
}

/// A sealed pad.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Sealed {
    pub pad_id: String,
    pub state: PadState,
    pub sealed_at: i64,
    pub head_hash: Digest,
}

/// A newly minted read ticket, shown once.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TicketMinted {
    pub pad_id: String,
    pub ticket: String,
    #[serde(rename = "type")]
    pub ticket_type: TicketType,
    /// The ticket's public id (its SHA-256), for revoking it later.
    pub ticket_id: Digest,
}

/// A revoked ticket.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TicketRevoked {
    pub pad_id: String,
    pub ticket_id: Digest,
    pub revoked_at: i64,
    /// `true` when it had been revoked before (nothing changed).
    pub already_revoked: bool,
}

/// A pad's manifest: the peer's fields plus its limits.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct Manifest {
    pub pad_id: String,
    pub state: PadState,
    pub block_count: u64,
    pub total_bytes: u64,
    pub sealed_at: Option<i64>,
    pub head_hash: Digest,
    pub created_at: i64,
    pub expires_at: i64,
    pub max_blocks: u32,
    pub max_bytes: u64,
    /// When `locker gc` removed the pad's payloads (absent while they are there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pruned_at: Option<i64>,
}

impl Manifest {
    fn of(p: &PadRow, now: i64) -> Self {
        Self {
            pad_id: p.id.clone(),
            state: PadState::at(p.state, p.expires_at, now),
            block_count: p.block_count,
            total_bytes: p.current_bytes,
            sealed_at: p.sealed_at,
            head_hash: p.head_hash,
            created_at: p.created_at,
            expires_at: p.expires_at,
            max_blocks: p.max_blocks,
            max_bytes: p.max_bytes,
            pruned_at: p.pruned_at,
        }
    }
}

/// One block as returned by a read.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct BlockView {
    pub seq: u64,
    pub prev_hash: Digest,
    pub curr_hash: Digest,
    pub content_type: String,
    pub payload_b64: String,
    /// The payload as text when it is valid UTF-8.
    pub payload_utf8: Option<String>,
    pub created_at: i64,
}

impl BlockView {
    fn of(b: BlockRow) -> Self {
        Self {
            seq: b.seq,
            prev_hash: b.prev_hash,
            curr_hash: b.curr_hash,
            content_type: b.content_type,
            payload_b64: base64::engine::general_purpose::STANDARD.encode(&b.payload),
            payload_utf8: String::from_utf8(b.payload).ok(),
            created_at: b.created_at,
        }
    }

    /// The payload's exact bytes.
    pub fn payload(&self) -> Vec<u8> {
        base64::engine::general_purpose::STANDARD.decode(&self.payload_b64).unwrap_or_default()
    }
}

/// A slice of a pad's blocks.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct BlockSlice {
    pub pad_id: String,
    pub from: i64,
    pub to: i64,
    pub count: u64,
    pub total_blocks: u64,
    pub blocks: Vec<BlockView>,
}

/// A page of pads.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PadList {
    pub pads: Vec<Manifest>,
}

/// A sealed pad made in one step.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Deposited {
    pub pad_id: String,
    pub write_key: String,
    pub read_ticket: String,
    pub head_hash: Digest,
    pub status: PadState,
    pub block_count: u64,
    pub sealed_at: i64,
}

/// One block to deposit.
#[derive(Debug, Clone)]
pub struct DepositBlock {
    pub payload: Vec<u8>,
    pub content_type: String,
}

/// Pad counts by state, for health reports.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct PadCounts {
    pub total: u64,
    /// Open and not expired (the peer's `unsealed`).
    pub unsealed: u64,
    pub sealed: u64,
}

/// A pad id that no pad can have (empty, too long, or with control characters) is simply not
/// found, as with the peer: the check only keeps such input away from the store.
pub(crate) fn check_pad_id(id: &str) -> OpResult<()> {
    if id.is_empty() || id.len() > MAX_PAD_ID_BYTES || id.chars().any(char::is_control) {
        return Err(pad_not_found());
    }
    Ok(())
}

fn pad_not_found() -> OpError {
    OpError::not_found("pad not found").hint("Check the pad id; `locker pad list` shows them.")
}

/// A pad whose payloads `locker gc` removed (exit 7, 410).
pub fn pruned(pad_id: &str, at: i64) -> OpError {
    OpError::new(
        crate::ops::ErrorKind::Gone,
        "pruned",
        format!("pad {pad_id} was pruned by `locker gc`: its payloads are gone"),
    )
    .with("pruned_at", at)
    .hint("Its hashes remain: `locker verify PAD` still checks its chain. Restore a backup taken before the gc to read it.")
}

pub(crate) fn check_content_type(ct: &str) -> OpResult<()> {
    if ct.is_empty() || ct.len() > MAX_CONTENT_TYPE_BYTES || ct.chars().any(char::is_control) {
        return Err(OpError::bad_request(format!(
            "content type must be 1–{MAX_CONTENT_TYPE_BYTES} bytes without control characters"
        )));
    }
    Ok(())
}

pub(crate) fn load(tx: &dyn Tx, id: &str) -> OpResult<PadRow> {
    tx.pad(id)?.ok_or_else(pad_not_found)
}

fn check_key(pad: &PadRow, key: Option<&Secret>) -> OpResult<()> {
    match key {
        Some(k) if k.matches(&pad.write_key_hash) => Ok(()),
        _ => Err(OpError::unauthorized("invalid write key")
            .hint("Pass the pad's write key with `--key`, `--key-file` or `LOCKER_WRITE_KEY`.")),
    }
}

fn check_writable(pad: &PadRow, now: i64) -> OpResult<()> {
    match PadState::at(pad.state, pad.expires_at, now) {
        PadState::Open => Ok(()),
        PadState::Sealed => Err(OpError::conflict("pad is sealed").hint(
            "A sealed pad's blocks are final: it takes no more. Start a new pad for more \
             (`locker pad create`); the sealed one is read with its ticket.",
        )),
        PadState::Expired => Err(OpError::gone("pad is expired").hint(
            "A pad that is not sealed expires after its TTL (default 1h; `locker pad create \
             --ttl 30d` gives up to 30 days) and can then be neither written nor read. Start a \
             new pad, and seal it when it is complete: sealed pads do not expire.",
        )),
    }
}

/// How a deposit's entry records one of its blocks (its time is the entry's).
fn block_record(b: &BlockRow) -> BlockRecord {
    BlockRecord {
        seq: b.seq,
        curr_hash: b.curr_hash,
        bytes: b.payload.len() as u64,
        content_type: b.content_type.clone(),
        created_at: None,
    }
}
