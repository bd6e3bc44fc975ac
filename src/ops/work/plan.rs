//! Plans (manifests) of work items and their diff against the steps logged.
//!
//! A plan is its own record, not a step with a reserved name: a list of unique, non-empty
//! step names committed under the work item's current lease, with versioned amendments
//! (committing again makes version 2, 3…; committing the same steps again under the same
//! lease while they are the newest version is a replay).
//!
//! The diff rule: the newest plan version is compared with the steps logged under the work
//! item's **newest lease** only. Each lease is an attempt: steps logged under earlier leases
//! (by a holder that stalled, released or was replaced) do not fill holes; the new holder
//! logs again whatever it has done or checked. They are listed apart as
//! `earlier_lease_steps`, so nothing is hidden.

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::event::ManifestCommit;
use crate::domain::work;
use crate::ops::log::journal;
use crate::ops::work::access::{check_work, current_lease, read_work, write_work};
use crate::ops::{ErrorKind, OpError, OpResult};
use crate::store::{LeaseRow, PlanRow, Tx};

/// One plan version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlanView {
    pub scope: String,
    pub work: String,
    pub version: u64,
    /// How many versions the plan has.
    pub versions: u64,
    /// The lease it was committed under, and that lease's fencing token.
    pub lease_id: String,
    pub fence: u64,
    pub committed_at: i64,
    /// Empty once pruned.
    pub steps: Vec<String>,
    /// When `locker gc` removed the steps with the rest of an abandoned lease (absent until
    /// then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pruned_at: Option<i64>,
}

/// The outcome of `manifest commit`.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlanCommitted {
    #[serde(flatten)]
    pub plan: PlanView,
    /// `true` when these steps already were the newest version under this lease (nothing
    /// changed).
    pub replayed: bool,
}

/// `manifest diff`: the newest plan against the steps of the newest lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Diff {
    pub scope: String,
    pub work: String,
    pub has_plan: bool,
    pub plan_version: Option<u64>,
    /// The lease whose steps are compared (the work item's newest) and its fencing token.
    pub lease_id: String,
    pub fence: u64,
    /// The newest plan's steps, in order (empty without a plan).
    pub planned: Vec<String>,
    /// Planned steps never logged under the lease, in plan order.
    pub holes: Vec<String>,
    /// Steps logged under the lease that are not planned, sorted.
    pub extras: Vec<String>,
    /// Steps logged only under earlier leases, sorted; they do not count.
    pub earlier_lease_steps: Vec<String>,
    /// `true` when there are neither holes nor extras (and the plan is not pruned).
    pub clean: bool,
    /// The newest plan's steps were pruned (`locker gc` before it kept current plans): nothing
    /// can be compared, so the diff is not clean. Only present when pruned.
    #[serde(default, skip_serializing_if = "crate::domain::event::is_false")]
    pub plan_pruned: bool,
}

fn stored_steps(p: &PlanRow) -> OpResult<Vec<String>> {
    serde_json::from_str(&p.steps_json).map_err(|_| {
        OpError::internal(format!("the stored plan {} v{} is malformed", p.work, p.version))
            .hint("Run `locker verify` to check the repository's integrity.")
    })
}

fn view(tx: &dyn Tx, p: &PlanRow, versions: u64) -> OpResult<PlanView> {
    let fence = tx.lease(&p.lease_id)?.map_or(0, |l| l.fence);
    Ok(PlanView {
        scope: p.scope.clone(),
        work: p.work.clone(),
        version: p.version,
        versions,
        lease_id: p.lease_id.clone(),
        fence,
        committed_at: p.committed_at,
        steps: stored_steps(p)?,
        pruned_at: p.pruned_at,
    })
}

/// The plan diff for `lease` (which should be its work item's newest lease).
pub(crate) fn diff_of(tx: &dyn Tx, lease: &LeaseRow) -> OpResult<Diff> {
    let plan = tx.plans(&lease.scope, &lease.work)?.pop();
    let planned = plan.as_ref().map(stored_steps).transpose()?.unwrap_or_default();
    let steps = tx.work_steps(&lease.scope, &lease.work)?;
    let (mine, earlier): (Vec<_>, Vec<_>) = steps.into_iter().partition(|s| s.lease_id == lease.id);
    let mine: Vec<String> = mine.into_iter().map(|s| s.step).collect();
    let d = work::diff(&planned, &mine);
    let mut earlier: Vec<String> =
        earlier.into_iter().map(|s| s.step).filter(|s| !mine.contains(s)).collect();
    earlier.sort();
    earlier.dedup();
    // A pruned plan lists no steps: it must not read as "nothing planned, nothing missing".
    let plan_pruned = plan.as_ref().is_some_and(|p| p.pruned_at.is_some());
    Ok(Diff {
        scope: lease.scope.clone(),
        work: lease.work.clone(),
        has_plan: plan.is_some(),
        plan_version: plan.map(|p| p.version),
        lease_id: lease.id.clone(),
        fence: lease.fence,
        planned,
        clean: d.holes.is_empty() && d.extras.is_empty() && !plan_pruned,
        holes: d.holes,
        extras: d.extras,
        earlier_lease_steps: earlier,
        plan_pruned,
    })
}

/// Commits `steps` as the work item's plan under its current lease: a new version, or a
/// replay when they already are the newest version under this lease.
pub fn commit(
    ctx: &mut crate::ops::Ctx<'_>,
    work: &str,
    lease_id: &str,
    steps: Vec<String>,
) -> OpResult<PlanCommitted> {
    check_work(work)?;
    work::check_plan(&steps).map_err(|e| {
        let dups = work::duplicates(&steps);
        let err = OpError::bad_request(e.0);
        if dups.is_empty() {
            err
        } else {
            err.with("duplicates", dups)
        }
    })?;
    let steps_json = serde_json::to_string(&steps).expect("a list of strings serialises");
    write_work(ctx, work, |tx, actor, now| {
        let lease = current_lease(tx, actor, work, lease_id)?;
        let plans = tx.plans(&actor.scope, work)?;
        let versions = plans.len() as u64;
        if let Some(last) = plans.last() {
            if last.lease_id == lease.id && stored_steps(last)? == steps {
                let plan = view(tx, last, versions)?;
                return Ok(PlanCommitted { plan, replayed: true });
            }
        }
        let version = plans.last().map_or(1, |p| p.version + 1);
        let row = PlanRow {
            scope: actor.scope.clone(),
            work: work.to_owned(),
            version,
            lease_id: lease.id.clone(),
            steps_json,
            committed_at: now,
            pruned_at: None,
        };
        tx.insert_plan(&row)?;
        journal::append(
            tx,
            actor,
            now,
            ManifestCommit {
                work: work.to_owned(),
                version,
                lease_id: lease.id.clone(),
                fence: lease.fence,
                steps: None,
                steps_count: Some(steps.len() as u64),
                steps_sha256: Some(Digest::of(row.steps_json.as_bytes())),
            },
        )?;
        let plan = PlanView {
            scope: row.scope,
            work: row.work,
            version,
            versions: versions + 1,
            lease_id: row.lease_id,
            fence: lease.fence,
            committed_at: now,
            steps,
            pruned_at: None,
        };
        Ok(PlanCommitted { plan, replayed: false })
    })
}

/// The work item's newest plan, or version `version`.
pub fn show(ctx: &mut crate::ops::Ctx<'_>, work: &str, version: Option<u64>) -> OpResult<PlanView> {
    check_work(work)?;
    let scope = ctx.actor.scope.clone();
    read_work(ctx, work, |tx, _| {
        let plans = tx.plans(&scope, work)?;
        let versions = plans.len() as u64;
        let found = match version {
            Some(v) => plans.iter().find(|p| p.version == v),
            None => plans.last(),
        };
        let p = found.ok_or_else(|| {
            let detail = match version {
                Some(v) => format!("work item {work} has no plan version {v}"),
                None => format!("work item {work} has no plan"),
            };
            OpError::new(ErrorKind::NotFound, "plan_not_found", detail)
                .with("work", work)
                .with("versions", versions)
                .hint(format!(
                    "Commit one with `locker manifest commit {work} --lease ID STEP...`."
                ))
        })?;
        view(tx, p, versions)
    })
}

/// The newest plan against the steps of the work item's newest lease.
pub fn diff(ctx: &mut crate::ops::Ctx<'_>, work: &str) -> OpResult<Diff> {
    check_work(work)?;
    let scope = ctx.actor.scope.clone();
    read_work(ctx, work, |tx, _| {
        let lease = tx.newest_lease(&scope, work)?.ok_or_else(|| {
            OpError::new(
                ErrorKind::NotFound,
                "work_not_found",
                format!("work item {work} has no leases"),
            )
            .with("work", work)
        })?;
        diff_of(tx, &lease)
    })
}
