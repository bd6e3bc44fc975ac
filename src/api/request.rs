//! What each operation of [`super::Locker`] is asked: small borrowed structs. Those with a
//! `Default` take the same defaults as the CLI and MCP, so a caller names only what it sets.

use crate::domain::digest::Digest;
use crate::domain::limits::PadLimits;
use crate::domain::pad::{PadState, TicketType};
use crate::domain::secret::Secret;
use crate::domain::work::{LeaseState, DEFAULT_LEASE_TTL};
use crate::ops::keys::Signing;
use crate::ops::pad::payment::Verified;
use crate::ops::pad::DepositBlock;
use crate::ops::work::step::StepInput;

/// Most pads, leases or artifacts a listing returns unless told otherwise.
pub const DEFAULT_LIST_LIMIT: u64 = 1000;

/// A pay-per-pad payment for a new pad.
#[derive(Debug, Clone, Copy, Default)]
pub enum PadPayment<'a> {
    /// None (a server with payments on answers with its challenge).
    #[default]
    None,
    /// The hash of a payment transaction, sent to a remote pay-per-pad server, which checks
    /// it; a local repository takes no payments.
    Proof(&'a str),
    /// A payment the server has already checked on chain, redeemed with the pad.
    Verified(&'a Verified),
}

/// [`super::Locker::pad_create`].
#[derive(Debug, Clone, Copy, Default)]
pub struct CreatePad<'a> {
    pub limits: PadLimits,
    pub payment: PadPayment<'a>,
}

/// [`super::Locker::pad_append`].
#[derive(Debug, Clone, Copy, Default)]
pub struct AppendBlock<'a> {
    pub pad: &'a str,
    /// The pad's write key.
    pub key: Option<&'a Secret>,
    pub payload: &'a [u8],
    /// The block's content type (default `application/octet-stream`).
    pub content_type: Option<&'a str>,
    /// An agent's signature over the block.
    pub signing: Option<&'a Signing>,
}

/// A pad and its write key ([`super::Locker::pad_seal`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct PadKey<'a> {
    pub pad: &'a str,
    pub key: Option<&'a Secret>,
}

/// [`super::Locker::ticket_mint`].
#[derive(Debug, Clone, Copy)]
pub struct MintTicket<'a> {
    pub pad: &'a str,
    pub key: Option<&'a Secret>,
    pub ticket_type: TicketType,
}

impl Default for MintTicket<'_> {
    fn default() -> Self {
        Self { pad: "", key: None, ticket_type: TicketType::ReadUnlimited }
    }
}

/// [`super::Locker::ticket_revoke`].
#[derive(Debug, Clone, Copy, Default)]
pub struct RevokeTicket<'a> {
    pub pad: &'a str,
    pub key: Option<&'a Secret>,
    /// The ticket, or its id (its SHA-256 in hex).
    pub ticket: &'a str,
}

/// [`super::Locker::pad_read`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadBlocks<'a> {
    pub pad: &'a str,
    pub ticket: Option<&'a Secret>,
    pub from: Option<i64>,
    /// The last block, inclusive (default: the pad's last).
    pub to: Option<i64>,
}

/// A pad and a read ticket ([`super::Locker::pad_export`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadPad<'a> {
    pub pad: &'a str,
    pub ticket: Option<&'a Secret>,
}

/// [`super::Locker::pad_list`].
#[derive(Debug, Clone, Copy)]
pub struct ListPads<'a> {
    pub state: Option<PadState>,
    pub limit: usize,
    /// Only pads whose id sorts after this one (the last id of the previous page).
    pub after: Option<&'a str>,
}

impl Default for ListPads<'_> {
    fn default() -> Self {
        Self { state: None, limit: DEFAULT_LIST_LIMIT as usize, after: None }
    }
}

/// [`super::Locker::deposit`].
#[derive(Debug, Clone, Copy)]
pub struct Deposit<'a> {
    /// Block 0: a `locker.handoff.v1` envelope.
    pub envelope: &'a [u8],
    /// Blocks 1…
    pub artifacts: &'a [DepositBlock],
    pub ttl_seconds: i64,
    pub payment: PadPayment<'a>,
}

impl Default for Deposit<'_> {
    fn default() -> Self {
        Self {
            envelope: &[],
            artifacts: &[],
            ttl_seconds: i64::from(crate::domain::limits::DEFAULT_TTL_SECONDS),
            payment: PadPayment::None,
        }
    }
}

/// [`super::Locker::pad_verify`].
#[derive(Debug, Clone, Copy, Default)]
pub struct VerifyPad<'a> {
    pub pad: &'a str,
    /// Also require this head, obtained independently.
    pub expect_head: Option<Digest>,
}

/// [`super::Locker::pad_log_proofs`].
#[derive(Debug, Clone, Copy, Default)]
pub struct PadLogProofs<'a> {
    pub pad: &'a str,
    /// Prove blocks `0..blocks` (default: every block; at most 4096).
    pub blocks: Option<u64>,
}

/// [`super::Locker::artifact_get`].
#[derive(Debug, Clone, Copy, Default)]
pub struct GetArtifact<'a> {
    pub key: &'a str,
    /// The newest when `None`.
    pub version: Option<i64>,
}

/// [`super::Locker::artifact_log`].
#[derive(Debug, Clone, Copy)]
pub struct ArtifactHistory<'a> {
    pub key: &'a str,
    /// Only versions after this one.
    pub after: u64,
    pub limit: u64,
}

impl Default for ArtifactHistory<'_> {
    fn default() -> Self {
        Self { key: "", after: 0, limit: crate::ops::artifact::MAX_LIST_LIMIT }
    }
}

/// [`super::Locker::artifact_list`].
#[derive(Debug, Clone, Copy)]
pub struct ListArtifacts<'a> {
    /// Only keys after this one.
    pub after: Option<&'a str>,
    pub limit: u64,
}

impl Default for ListArtifacts<'_> {
    fn default() -> Self {
        Self { after: None, limit: DEFAULT_LIST_LIMIT }
    }
}

/// [`super::Locker::lease_acquire`].
#[derive(Debug, Clone, Copy)]
pub struct AcquireLease<'a> {
    pub work: &'a str,
    /// Seconds until the lease expires unless heartbeated.
    pub ttl: i64,
    /// Who holds it: the acting agent by default (only the operator may name another).
    pub holder: Option<&'a str>,
    /// Take a completed work item again.
    pub reopen: bool,
}

impl Default for AcquireLease<'_> {
    fn default() -> Self {
        Self { work: "", ttl: DEFAULT_LEASE_TTL, holder: None, reopen: false }
    }
}

/// [`super::Locker::lease_heartbeat`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Heartbeat<'a> {
    pub work: &'a str,
    pub lease: &'a str,
    pub details: Option<&'a str>,
}

/// [`super::Locker::lease_complete`].
#[derive(Debug, Clone, Copy, Default)]
pub struct CompleteLease<'a> {
    pub work: &'a str,
    pub lease: &'a str,
    pub result: Option<&'a str>,
}

/// A work item and its lease ([`super::Locker::lease_release`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct LeaseRef<'a> {
    pub work: &'a str,
    pub lease: &'a str,
}

/// [`super::Locker::lease_list`].
#[derive(Debug, Clone, Copy)]
pub struct ListLeases {
    pub state: Option<LeaseState>,
    pub limit: u64,
}

impl Default for ListLeases {
    fn default() -> Self {
        Self { state: None, limit: DEFAULT_LIST_LIMIT }
    }
}

/// [`super::Locker::plan_commit`].
#[derive(Debug, Clone, Copy, Default)]
pub struct CommitPlan<'a> {
    pub work: &'a str,
    pub lease: &'a str,
    pub steps: &'a [String],
}

/// [`super::Locker::plan_show`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ShowPlan<'a> {
    pub work: &'a str,
    /// The newest when `None`.
    pub version: Option<u64>,
}

/// [`super::Locker::step_record`].
#[derive(Debug, Clone, Default)]
pub struct RecordStep<'a> {
    pub work: &'a str,
    pub lease: &'a str,
    pub step: StepInput<'a>,
}

/// [`super::Locker::key_register`].
#[derive(Debug, Clone, Copy, Default)]
pub struct RegisterKey<'a> {
    /// The verifier key (`<agent>+<key id>+<base64>`, as `locker key new` prints it).
    pub public_key: &'a str,
    /// A rotation: the agent's current key's signature (standard base64) over
    /// `Statement::key_rotation`.
    pub rotation_signature: Option<&'a str>,
}

/// [`super::Locker::verify`].
#[derive(Debug, Clone, Copy, Default)]
pub struct VerifyRepository {
    /// Also require this journal head, obtained independently.
    pub expect_head: Option<Digest>,
    /// Count every unsigned append, publish and step as a problem.
    pub require_signed: bool,
    /// Count every signature by a key the operator registered (not the agent itself) as a
    /// problem.
    pub require_self_keys: bool,
}

/// [`super::Locker::prove_consistency`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ProveConsistency {
    pub old: u64,
    /// The latest tree size when `None`.
    pub new: Option<u64>,
}
