//! Handoff pads: `pad.create`, `pad.append`, `pad.seal`, `pad.ticket`, `pad.ticket_revoke`,
//! `pad.read_lease`, `pad.deposit` and `pad.import`.

use serde::{Deserialize, Serialize};

use super::agent::Signed;
use crate::domain::digest::Digest;
use crate::domain::pad::TicketType;

/// Where a bundle came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Source {
    /// `locker` (a repository or `locker serve`) or `agent-locker` (a peer daemon's HTTP API).
    pub kind: String,
    /// The server's base URL, for a pad fetched over HTTP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// When the bundle was written (integer Unix seconds).
    pub exported_at: i64,
    /// The program that wrote it (`locker 0.1.0`).
    pub exporter: String,
}

/// `pad.create`: an empty pad, its limits, its write key's digest and its first (`read_once`)
/// ticket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PadCreate {
    pub pad_id: String,
    pub ttl_seconds: i64,
    pub max_blocks: u64,
    /// Absent from pads created before the limit was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    pub expires_at: i64,
    /// Absent from pads created before the write key's digest was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_key_hash: Option<Digest>,
    pub ticket_id: Digest,
    pub ticket_type: TicketType,
    /// The payment redeemed for the pad (pay-per-pad); absent for a free pad.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment: Option<Payment>,
}

/// A payment redeemed for a pad: what the chain said, as `locker serve --payment-mode txid`
/// checked it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payment {
    pub tx_hash: String,
    pub payer: String,
    /// Token units, in decimal (they may exceed 64 bits).
    pub amount_units: String,
    pub token: String,
    pub recipient: String,
    pub chain_id: u64,
    pub block_number: u64,
}

/// `pad.append`: one block, by its hash and length.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PadAppend {
    pub pad_id: String,
    pub seq: u64,
    pub curr_hash: Digest,
    pub bytes: u64,
    pub content_type: String,
    /// The payload's SHA-256, which the signature covers; only in signed appends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<Digest>,
    /// The agent's signature; absent from unsigned appends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed: Option<Signed>,
}

/// `pad.seal`: the pad's head and accounting when it was sealed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PadSeal {
    pub pad_id: String,
    pub head_hash: Digest,
    pub block_count: u64,
    pub total_bytes: u64,
}

/// `pad.ticket`: a read ticket minted, by its id (the ticket's SHA-256).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PadTicket {
    pub pad_id: String,
    pub ticket_id: Digest,
    pub ticket_type: TicketType,
}

/// `pad.ticket_revoke`: a read ticket revoked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PadTicketRevoke {
    pub pad_id: String,
    pub ticket_id: Digest,
}

/// `pad.read_lease`: the first read with a `read_once` ticket opened its read lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PadReadLease {
    pub pad_id: String,
    pub ticket_id: Digest,
    pub lease_seconds: i64,
}

/// One block of a deposited or imported pad.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockRecord {
    pub seq: u64,
    pub curr_hash: Digest,
    pub bytes: u64,
    pub content_type: String,
    /// An imported block's own time; deposited blocks have the entry's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<i64>,
}

/// `pad.deposit`: a pad created, filled and sealed in one step; also the demo pad that
/// `locker serve` seeds (`"demo": true`, with neither write key nor ticket).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PadDeposit {
    pub pad_id: String,
    /// Only the demo pad has it (and then `true`).
    #[serde(default, skip_serializing_if = "super::is_false")]
    pub demo: bool,
    pub ttl_seconds: i64,
    pub max_blocks: u64,
    /// Absent from the demo pad, and from deposits made before the limit was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    pub expires_at: i64,
    /// Absent from the demo pad (its write key is published), and from deposits made before
    /// the write key's digest was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_key_hash: Option<Digest>,
    /// The `read_once` ticket minted with the pad; absent from the demo pad, which needs none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket_id: Option<Digest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket_type: Option<TicketType>,
    pub blocks: Vec<BlockRecord>,
    pub head_hash: Digest,
    pub total_bytes: u64,
    /// The payment redeemed for the pad (pay-per-pad); absent for a free pad.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment: Option<Payment>,
}

/// `pad.import`: a sealed pad stored from a bundle file, with the times its source gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PadImport {
    pub pad_id: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub sealed_at: i64,
    pub max_blocks: u64,
    pub max_bytes: u64,
    pub write_key_hash: Digest,
    pub ticket_id: Digest,
    pub ticket_type: TicketType,
    pub blocks: Vec<BlockRecord>,
    pub head_hash: Digest,
    pub total_bytes: u64,
    /// The SHA-256 of the bundle file.
    pub bundle_sha256: Digest,
    pub source: Source,
}
