//! The operations interface: every operation a front end can ask of a locker, in one trait.
//!
//! The CLI, `locker mcp` and `locker serve` all speak [`Locker`]. It has two implementations:
//!
//! - **local**, on an operations context ([`crate::ops::Ctx`]: a store, who acts, the clock),
//!   in [`local`]: each method is the [`crate::ops`] function that decides the rule. A
//!   front end that works on a repository gets one from a [`Session`], which opens the
//!   repository and resolves who acts in one place; `locker serve` runs the same methods on
//!   its pooled stores and in its group commits.
//! - **remote**, on [`crate::client::Client`]: the same method over HTTP to a `locker serve`,
//!   returning the same outcomes and the same errors.
//!
//! Requests are small borrowed structs ([`request`]) with a `Default`, so that a front end
//! names only what it sets, and an operation that gains a parameter changes its request, the
//! two implementations and the wire format, not every caller.
//!
//! Operations that have no remote form (creating tokens, gc, backup, …) are not in this trait:
//! a front end reaches them only through [`Session::local`], which refuses them when the
//! session is remote.

pub mod local;
pub mod request;
pub mod session;
pub mod wire;

pub use request::*;
pub use session::{Identity, Local, Session};

use crate::domain::bundle::{Bundle, LogProofs};
use crate::ops::artifact::audit::AuditLog;
use crate::ops::artifact::{ArtifactList, ArtifactLog, ArtifactView, PublishRequest, Published};
use crate::ops::keys::{KeyList, KeyRegistered};
use crate::ops::log::journal::LogPage;
use crate::ops::log::{
    CheckpointOutcome, ConsistencyOutcome, InclusionOutcome, KeyOutcome, Target,
};
use crate::ops::pad::{
    Appended, BlockSlice, Deposited, Manifest, PadCreated, PadList, Sealed, TicketMinted,
    TicketRevoked,
};
use crate::ops::verify::{PadReport, RepoReport};
use crate::ops::work::history::History;
use crate::ops::work::lease::{
    Acquired, Completed, LeaseList, LeaseView, Reaped, Released, WorkStatus,
};
use crate::ops::work::plan::{Diff, PlanCommitted, PlanView};
use crate::ops::work::step::StepView;
use crate::ops::{OpResult, Progress};
use crate::store::JournalQuery;

/// Every operation a front end can ask of a locker, local or remote.
///
/// Who acts is the implementation's: the session's operator or agent locally, the bearer
/// token's agent remotely. Pads are the exception: they act through the capabilities in the
/// request (write key, read ticket), whoever holds them.
pub trait Locker {
    // Pads: hash-chained, sealable blocks with read tickets.

    /// Creates an empty pad; its write key and `read_once` ticket are shown once.
    fn pad_create(&mut self, r: CreatePad<'_>) -> OpResult<PadCreated>;
    /// Appends one block to an open pad.
    fn pad_append(&mut self, r: AppendBlock<'_>) -> OpResult<Appended>;
    /// Seals a pad (after re-checking its chain): no more appends.
    fn pad_seal(&mut self, r: PadKey<'_>) -> OpResult<Sealed>;
    /// Mints a read ticket (shown once).
    fn ticket_mint(&mut self, r: MintTicket<'_>) -> OpResult<TicketMinted>;
    /// Revokes a read ticket by the ticket or its id.
    fn ticket_revoke(&mut self, r: RevokeTicket<'_>) -> OpResult<TicketRevoked>;
    /// A pad's manifest: state, counts, head and times (no credential).
    fn pad_manifest(&mut self, pad: &str) -> OpResult<Manifest>;
    /// Reads a slice of blocks with a read ticket.
    fn pad_read(&mut self, r: ReadBlocks<'_>) -> OpResult<BlockSlice>;
    /// Lists pads.
    fn pad_list(&mut self, r: ListPads<'_>) -> OpResult<PadList>;
    /// A whole pad as a bundle, read with a ticket (the operator needs none locally);
    /// `progress` hears of its blocks.
    fn pad_export(&mut self, r: ReadPad<'_>, progress: &dyn Progress) -> OpResult<Bundle>;
    /// Creates, fills and seals a pad in one transaction.
    fn deposit(&mut self, r: Deposit<'_>) -> OpResult<Deposited>;
    /// Checks one pad's chain and records.
    fn pad_verify(&mut self, r: VerifyPad<'_>) -> OpResult<PadReport>;
    /// The latest signed checkpoint and the inclusion proofs of the entries that recorded a
    /// pad's first `blocks` blocks (default: all), as a bundle carries them.
    fn pad_log_proofs(&mut self, r: PadLogProofs<'_>) -> OpResult<LogProofs>;

    // Artifacts: versioned, compare-and-swap, with idempotent retries.

    /// Publishes a new version against the version the caller read.
    fn artifact_publish(&mut self, r: PublishRequest<'_>) -> OpResult<Published>;
    /// One version of an artifact (the newest when `version` is `None`).
    fn artifact_get(&mut self, r: GetArtifact<'_>) -> OpResult<ArtifactView>;
    /// An artifact's versions.
    fn artifact_log(&mut self, r: ArtifactHistory<'_>) -> OpResult<ArtifactLog>;
    /// The artifacts of the actor's scope.
    fn artifact_list(&mut self, r: ListArtifacts<'_>) -> OpResult<ArtifactList>;
    /// The newest `limit` publish outcomes of the actor's scope.
    fn artifact_audit(&mut self, limit: u64) -> OpResult<AuditLog>;

    // Work: leases with fencing tokens, plans and steps.

    /// Takes the lease on a work item.
    fn lease_acquire(&mut self, r: AcquireLease<'_>) -> OpResult<Acquired>;
    /// Extends a lease.
    fn lease_heartbeat(&mut self, r: Heartbeat<'_>) -> OpResult<LeaseView>;
    /// Completes the work item under its lease.
    fn lease_complete(&mut self, r: CompleteLease<'_>) -> OpResult<Completed>;
    /// Gives a lease up.
    fn lease_release(&mut self, r: LeaseRef<'_>) -> OpResult<Released>;
    /// A work item's current lease and state.
    fn lease_show(&mut self, work: &str) -> OpResult<WorkStatus>;
    /// Lists leases.
    fn lease_list(&mut self, r: ListLeases) -> OpResult<LeaseList>;
    /// Marks expired leases abandoned.
    fn lease_reap(&mut self) -> OpResult<Reaped>;
    /// A work item's history, replayed from the journal and checked against the store.
    fn work_history(&mut self, work: &str) -> OpResult<History>;
    /// Commits a plan (the steps the holder means to take) under the current lease.
    fn plan_commit(&mut self, r: CommitPlan<'_>) -> OpResult<PlanCommitted>;
    /// A plan (the newest when `version` is `None`).
    fn plan_show(&mut self, r: ShowPlan<'_>) -> OpResult<PlanView>;
    /// The plan against the steps taken: holes and extras.
    fn plan_diff(&mut self, work: &str) -> OpResult<Diff>;
    /// Records a step under the current lease.
    fn step_record(&mut self, r: RecordStep<'_>) -> OpResult<StepView>;

    // Keys, the journal and the transparency log.

    /// The registered agent keys and the signing policy.
    fn key_list(&mut self) -> OpResult<KeyList>;
    /// Registers a verifier key: an agent its own (with its token), the operator any agent's;
    /// a rotation is signed by the agent's current key.
    fn key_register(&mut self, r: RegisterKey<'_>) -> OpResult<KeyRegistered>;
    /// A page of the journal.
    fn journal(&mut self, q: &JournalQuery) -> OpResult<LogPage>;
    /// Checks the whole repository.
    fn verify(&mut self, r: VerifyRepository, progress: &dyn Progress) -> OpResult<RepoReport>;
    /// The log's latest signed checkpoint.
    fn checkpoint(&mut self) -> OpResult<CheckpointOutcome>;
    /// The log's verifier key.
    fn log_key(&mut self) -> OpResult<KeyOutcome>;
    /// An inclusion proof of a journal entry or a pad's block.
    fn prove_inclusion(&mut self, target: &Target) -> OpResult<InclusionOutcome>;
    /// A consistency proof between two tree sizes (`new` defaults to the latest).
    fn prove_consistency(&mut self, r: ProveConsistency) -> OpResult<ConsistencyOutcome>;
}
