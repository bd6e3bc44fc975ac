//! The work tools: leases with fencing tokens, plans and steps.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{def, Def, Effect, GATE, LEASE_ID};
use crate::api::{
    AcquireLease, CommitPlan, CompleteLease, Heartbeat, LeaseRef, ListLeases, RecordStep, ShowPlan,
};
use crate::domain::work::{
    LeaseState, DEFAULT_GATE, DEFAULT_LEASE_TTL, MAX_GATE_BYTES, MAX_HOLDER_BYTES, MAX_LEASE_TTL,
    MAX_PLAN_STEPS, MAX_STEP_BYTES, MAX_TEXT_BYTES, MAX_WORK_BYTES,
};
use crate::mcp::Call;
use crate::ops::work::history::History;
use crate::ops::work::lease::{
    Acquired, Completed, LeaseList, LeaseView, Released, WorkStatus, MAX_LIST_LIMIT,
};
use crate::ops::work::plan::{Diff, PlanCommitted, PlanView};
use crate::ops::work::step::{StepInput, StepView};
use crate::ops::OpResult;

/// This toolset's tools, in the order `tools/list` shows them.
pub(super) fn tools() -> Vec<Def> {
    vec![
        def(
            "locker_lease_acquire",
            "Lease a work item",
            Effect::AddsOnce,
            LEASE_ACQUIRE,
            lease_acquire,
        ),
        def(
            "locker_lease_heartbeat",
            "Extend a lease",
            Effect::Adds,
            LEASE_HEARTBEAT,
            lease_heartbeat,
        ),
        def(
            "locker_lease_complete",
            "Complete a lease",
            Effect::AddsOnce,
            LEASE_COMPLETE,
            lease_complete,
        ),
        def(
            "locker_lease_release",
            "Release a lease",
            Effect::AddsOnce,
            LEASE_RELEASE,
            lease_release,
        ),
        def(
            "locker_lease_show",
            "Show a work item's lease",
            Effect::ReadOnly,
            &format!("{LEASE_SHOW}{REAPS}"),
            lease_show,
        ),
        def(
            "locker_lease_list",
            "List leases",
            Effect::ReadOnly,
            &format!("{LEASE_LIST}{REAPS}"),
            lease_list,
        ),
        def(
            "locker_lease_history",
            "A work item's verified history",
            Effect::ReadOnly,
            &format!("{LEASE_HISTORY}{REAPS}"),
            lease_history,
        ),
        def(
            "locker_plan_commit",
            "Commit a work item's plan",
            Effect::AddsOnce,
            PLAN_COMMIT,
            plan_commit,
        ),
        def(
            "locker_plan_show",
            "Show a work item's plan",
            Effect::ReadOnly,
            &format!("{PLAN_SHOW}{REAPS}"),
            plan_show,
        ),
        def("locker_step", "Log a step", Effect::AddsOnce, STEP, step_log),
        def(
            "locker_plan_diff",
            "Diff plan and steps",
            Effect::ReadOnly,
            &format!("{PLAN_DIFF}{REAPS}"),
            plan_diff,
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// Leases, plans and steps. Every access to a work item first turns its expired lease into
// `abandoned` (journaled); the tools that only show state are still read-only: the lease had
// already ended, and any access records it (see `Effect`).

const REAPS: &str = " Like every access to a work item, it first turns the work item's \
expired lease into abandoned (journaled).";

const LEASE_ACQUIRE: &str = "Take the exclusive, expiring lease on a work item before working \
on it. Returns lease_id (pass it to heartbeat, plan, step and complete) and fence, the fencing \
token (one more than the work item's last lease; pass WORK:FENCE with publishes made under the \
lease). Acquiring a work item you already hold returns your lease (reacquired: true). One held \
by another holder fails with lease_held (naming holder and expires_at); a completed one with \
work_completed unless reopen is true. Heartbeat before ttl_seconds run out or lose the lease.";

/// `locker_lease_acquire`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LeaseAcquireIn {
    /// The work item (1–256 bytes, no control characters)
    #[schemars(length(min = 1, max = MAX_WORK_BYTES))]
    work: String,
    /// Seconds until the lease expires unless heartbeaten (1–2592000)
    #[serde(default = "default_lease_ttl")]
    #[schemars(range(min = 1, max = MAX_LEASE_TTL))]
    ttl_seconds: i64,
    /// Who holds the lease: only for the operator (an agent always holds its own leases)
    #[serde(default)]
    #[schemars(length(min = 1, max = MAX_HOLDER_BYTES))]
    holder: Option<String>,
    /// Lease the work item even if it was completed
    #[serde(default)]
    reopen: bool,
}

fn default_lease_ttl() -> i64 {
    DEFAULT_LEASE_TTL
}

fn lease_acquire(call: &Call<'_>, a: LeaseAcquireIn) -> OpResult<Acquired> {
    call.run(|l| {
        l.lease_acquire(AcquireLease {
            work: &a.work,
            ttl: a.ttl_seconds,
            holder: a.holder.as_deref(),
            reopen: a.reopen,
        })
    })
}

const LEASE_HEARTBEAT: &str = "Extend your lease on a work item by its TTL from now, optionally \
with progress details. An expired lease is gone (it was abandoned; stop working), a completed \
or released one is stale_lease.";

/// `locker_lease_heartbeat`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LeaseHeartbeatIn {
    /// The work item
    #[schemars(length(min = 1, max = MAX_WORK_BYTES))]
    work: String,
    /// Your lease's id (from locker_lease_acquire)
    #[schemars(pattern(LEASE_ID))]
    lease_id: String,
    /// Progress details to keep with the heartbeat (at most 16 KiB)
    #[serde(default)]
    #[schemars(length(max = MAX_TEXT_BYTES))]
    details: Option<String>,
}

fn lease_heartbeat(call: &Call<'_>, a: LeaseHeartbeatIn) -> OpResult<LeaseView> {
    call.run(|l| {
        l.lease_heartbeat(Heartbeat {
            work: &a.work,
            lease: &a.lease_id,
            details: a.details.as_deref(),
        })
    })
}

const LEASE_COMPLETE: &str = "Complete your lease on a work item, keeping a result text, and get \
the plan diff (planned steps never logged are holes, logged steps not planned are extras). The \
work item is then done. Completing again with the same result changes nothing (replayed).";

/// `locker_lease_complete`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LeaseCompleteIn {
    /// The work item
    #[schemars(length(min = 1, max = MAX_WORK_BYTES))]
    work: String,
    /// Your lease's id
    #[schemars(pattern(LEASE_ID))]
    lease_id: String,
    /// What came of the work (at most 16 KiB)
    #[serde(default)]
    #[schemars(length(max = MAX_TEXT_BYTES))]
    result: Option<String>,
}

fn lease_complete(call: &Call<'_>, a: LeaseCompleteIn) -> OpResult<Completed> {
    call.run(|l| {
        l.lease_complete(CompleteLease {
            work: &a.work,
            lease: &a.lease_id,
            result: a.result.as_deref(),
        })
    })
}

const LEASE_RELEASE: &str = "Give up your lease on a work item without completing it, so another \
holder can acquire it at once. Releasing again changes nothing (replayed).";

/// `locker_lease_release`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LeaseReleaseIn {
    /// The work item
    #[schemars(length(min = 1, max = MAX_WORK_BYTES))]
    work: String,
    /// Your lease's id
    #[schemars(pattern(LEASE_ID))]
    lease_id: String,
}

fn lease_release(call: &Call<'_>, a: LeaseReleaseIn) -> OpResult<Released> {
    call.run(|l| l.lease_release(LeaseRef { work: &a.work, lease: &a.lease_id }))
}

const LEASE_SHOW: &str = "Show a work item's newest lease: state (active, completed, released, \
abandoned), holder, fence, expires_at, heartbeats, result, how many attempts (leases) it has \
had, and its newest plan version.";

/// A tool's only argument: a work item.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WorkIn {
    /// The work item
    #[schemars(length(min = 1, max = MAX_WORK_BYTES))]
    work: String,
}

fn lease_show(call: &Call<'_>, a: WorkIn) -> OpResult<WorkStatus> {
    call.run(|l| l.lease_show(&a.work))
}

const LEASE_LIST: &str = "List the leases of your scope, optionally only those in one state \
(expired ones are first turned into abandoned).";

/// `locker_lease_list`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LeaseListIn {
    /// Only leases in this state
    #[serde(default)]
    state: Option<LeaseState>,
    /// Most leases to return (1–10000)
    #[serde(default = "default_lease_limit")]
    #[schemars(range(min = 1, max = MAX_LIST_LIMIT))]
    limit: u64,
}

fn lease_list(call: &Call<'_>, a: LeaseListIn) -> OpResult<LeaseList> {
    call.run(|l| l.lease_list(ListLeases { state: a.state, limit: a.limit }))
}

const LEASE_HISTORY: &str = "Show every lease, plan, step and transition of a work item, oldest \
first, each journal entry checked against its hash and its neighbours, with an integrity \
verdict (ok false and first_broken when anything was altered).";

fn lease_history(call: &Call<'_>, a: WorkIn) -> OpResult<History> {
    call.run(|l| l.work_history(&a.work))
}

const PLAN_COMMIT: &str = "Commit your plan for a work item: the ordered list of unique step \
names you mean to take under your current lease, before you start; log each with locker_step, \
and locker_plan_diff compares them. (A work item's plan is not a pad's manifest, which \
locker_manifest shows.) Committing again makes a new version; the newest version's steps again \
change nothing (replayed).";

/// `locker_plan_commit`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PlanCommitIn {
    /// The work item
    #[schemars(length(min = 1, max = MAX_WORK_BYTES))]
    work: String,
    /// Your current lease's id
    #[schemars(pattern(LEASE_ID))]
    lease_id: String,
    /// The planned steps, in order: 1–4096 unique names of 1–256 bytes
    #[schemars(
        length(min = 1, max = MAX_PLAN_STEPS),
        inner(length(min = 1, max = MAX_STEP_BYTES)),
        extend("uniqueItems" = true)
    )]
    steps: Vec<String>,
}

fn plan_commit(call: &Call<'_>, a: PlanCommitIn) -> OpResult<PlanCommitted> {
    call.run(|l| l.plan_commit(CommitPlan { work: &a.work, lease: &a.lease_id, steps: &a.steps }))
}

const PLAN_SHOW: &str = "Show a work item's newest plan (the steps its lease holder committed to \
take; not a pad's manifest, which locker_manifest shows), or one version of it: its steps, the \
lease and fence it was committed under, and how many versions there are.";

/// `locker_plan_show`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PlanShowIn {
    /// The work item
    #[schemars(length(min = 1, max = MAX_WORK_BYTES))]
    work: String,
    /// This version instead of the newest
    #[serde(default)]
    version: Option<u64>,
}

fn plan_show(call: &Call<'_>, a: PlanShowIn) -> OpResult<PlanView> {
    call.run(|l| l.plan_show(ShowPlan { work: &a.work, version: a.version }))
}

const STEP: &str = "Log one step of a work item under your current lease: what was planned, \
what was executed, and who resolved it (gate: agent, human, ci, …). Logging the identical \
record again changes nothing (replayed); a different record for the same step is \
step_conflict. A lease that expired (gone) or ended (stale_lease) logs nothing.";

/// `locker_step`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct StepIn {
    /// The work item
    #[schemars(length(min = 1, max = MAX_WORK_BYTES))]
    work: String,
    /// Your current lease's id
    #[schemars(pattern(LEASE_ID))]
    lease_id: String,
    /// The step's name (1–256 bytes), as in the plan
    #[schemars(length(min = 1, max = MAX_STEP_BYTES))]
    step: String,
    /// What was planned for this step (at most 16 KiB)
    #[serde(default)]
    #[schemars(length(max = MAX_TEXT_BYTES))]
    planned: Option<String>,
    /// What was executed (at most 16 KiB)
    #[serde(default)]
    #[schemars(length(max = MAX_TEXT_BYTES))]
    executed: Option<String>,
    /// Who resolved the step: agent, human, ci, … (1–64 of a–z, 0–9, -, _)
    #[serde(default = "default_gate")]
    #[schemars(length(min = 1, max = MAX_GATE_BYTES), pattern(GATE))]
    gate: String,
    /// locker's extension: the agent whose registered key signed this write (with signature)
    #[serde(default)]
    signer: Option<String>,
    /// locker's extension: the agent's Ed25519 signature (standard base64) over the write's
    /// canonical message (a bad_signature error carries the message to sign as
    /// signed_message); without it, the server's own key signs, if it has one
    #[serde(default)]
    signature: Option<String>,
}

fn default_gate() -> String {
    DEFAULT_GATE.to_owned()
}

fn step_log(call: &Call<'_>, a: StepIn) -> OpResult<StepView> {
    let signing = call.signing(a.signer.as_deref(), a.signature.as_deref())?;
    let input = StepInput {
        step: &a.step,
        planned: a.planned.as_deref(),
        executed: a.executed.as_deref(),
        gate: Some(&a.gate),
        signing: signing.as_ref(),
    };
    call.run(|l| l.step_record(RecordStep { work: &a.work, lease: &a.lease_id, step: input }))
}

const PLAN_DIFF: &str = "Compare a work item's newest plan with the steps logged under its \
newest lease: holes (planned, never logged, in plan order), extras (logged, not planned, \
sorted), and earlier_lease_steps (logged by earlier holders; they do not count). clean is true \
when there are neither holes nor extras; that is an answer, not an error.";

fn plan_diff(call: &Call<'_>, a: WorkIn) -> OpResult<Diff> {
    call.run(|l| l.plan_diff(&a.work))
}

fn default_lease_limit() -> u64 {
    crate::api::DEFAULT_LIST_LIMIT
}
