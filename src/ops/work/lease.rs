//! Leases on work items: exclusive, expiring, fenced, and reaped on every access.
//!
//! Rules (SPEC §5), each decided here once:
//! - one active lease per work item; the same holder acquiring again gets it back, another
//!   holder gets `lease_held` (exit 4) naming the holder and the expiry;
//! - every new lease gets a fencing token one greater than the work item's last; tokens are
//!   never reused;
//! - a lease is live while `now < expires_at`; any access to a work item first turns its
//!   expired lease into `abandoned` (journaled `lease.abandon`), reads included;
//! - heartbeats, plans, steps and completion need the work item's current active lease:
//!   an expired one is `gone` (exit 7), a completed or released one `stale_lease` (exit 4);
//! - a completed work item is not leased again unless the caller asks to reopen it.

use serde::{Deserialize, Serialize};

use crate::domain::event::work::sha256_of;
use crate::domain::event::{LeaseAcquire, LeaseComplete, LeaseHeartbeat, LeaseRelease};
use crate::domain::secret::random_id;
use crate::domain::work::{self, Fence, LeaseState};
use crate::ops::log::journal;
use crate::ops::work::access::{
    abandon, bad, check_holder, check_work, current_lease, find_lease, read_work, reap_in,
    require_current, write_work,
};
use crate::ops::{authorize, Actor, Ctx, ErrorKind, OpError, OpResult};
use crate::store::{LeaseQuery, LeaseRow, Tx};

/// One lease as shown to callers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LeaseView {
    pub lease_id: String,
    pub scope: String,
    pub work: String,
    /// The fencing token: 1 for the work item's first lease, one more for each later one.
    pub fence: u64,
    pub holder: String,
    pub state: LeaseState,
    pub ttl: i64,
    pub acquired_at: i64,
    /// When the lease ends unless heartbeaten (for an ended lease: when it would have).
    pub expires_at: i64,
    pub heartbeats: u64,
    pub last_heartbeat_at: Option<i64>,
    /// The details sent with the last heartbeat.
    pub heartbeat_details: Option<String>,
    pub ended_at: Option<i64>,
    pub result: Option<String>,
    /// When `locker gc` removed the text of this abandoned lease (absent until then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pruned_at: Option<i64>,
}

impl From<&LeaseRow> for LeaseView {
    fn from(l: &LeaseRow) -> Self {
        Self {
            lease_id: l.id.clone(),
            scope: l.scope.clone(),
            work: l.work.clone(),
            fence: l.fence,
            holder: l.holder.clone(),
            state: l.state,
            ttl: l.ttl,
            acquired_at: l.acquired_at,
            expires_at: l.expires_at,
            heartbeats: l.heartbeats,
            last_heartbeat_at: l.heartbeat_at,
            heartbeat_details: l.details.clone(),
            ended_at: l.ended_at,
            result: l.result.clone(),
            pruned_at: l.pruned_at,
        }
    }
}

/// The outcome of `lease acquire`.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Acquired {
    #[serde(flatten)]
    pub lease: LeaseView,
    /// `true` when the holder already held this lease (nothing changed).
    pub reacquired: bool,
}

/// The outcome of `lease complete`.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Completed {
    #[serde(flatten)]
    pub lease: LeaseView,
    /// The plan diff of the completed lease.
    pub diff: crate::ops::work::plan::Diff,
    /// `true` when the lease had already been completed with the same result.
    pub replayed: bool,
}

/// The outcome of `lease release`.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Released {
    #[serde(flatten)]
    pub lease: LeaseView,
    /// `true` when the lease had already been released.
    pub replayed: bool,
}

/// `lease show`: a work item's newest lease and how many there have been.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WorkStatus {
    /// How many leases the work item has had (the newest fencing token).
    pub attempts: u64,
    /// The newest plan version, if a plan was committed.
    pub plan_version: Option<u64>,
    #[serde(flatten)]
    pub lease: LeaseView,
}

/// `lease list`.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LeaseList {
    pub leases: Vec<LeaseView>,
}

/// `lease reap`.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Reaped {
    /// The leases turned into `abandoned`, by scope, work item and fencing token.
    pub abandoned: Vec<LeaseView>,
}

/// Most leases one `lease list` returns.
pub const MAX_LIST_LIMIT: u64 = 10_000;

/// The holder a lease is acquired for: an agent is always itself; the operator names one
/// (default `operator`); an anonymous caller names one (default `anonymous`) that is no
/// registered agent's name, since an agent's leases are taken with its token.
fn resolve_holder(tx: &dyn Tx, actor: &Actor, holder: Option<&str>) -> OpResult<String> {
    let holder = match holder {
        Some(h) if !actor.speaks_for_any_holder() && h != actor.name => {
            return Err(OpError::forbidden(format!(
                "agent {} cannot acquire a lease for {h}",
                actor.name
            )))
        }
        Some(h) => h.to_owned(),
        None => actor.name.clone(),
    };
    work::check_holder(&holder).map_err(bad)?;
    if !actor.is_operator() && holder != actor.name && tx.agent(&holder)?.is_some() {
        return Err(OpError::forbidden(format!(
            "{holder} is a registered agent: a lease for it is taken with its token"
        ))
        .hint(
            "Send that agent's token: `Authorization: Bearer TOKEN` (remote CLI: `LOCKER_TOKEN`).",
        ));
    }
    Ok(holder)
}

fn lease_held(l: &LeaseRow, now: i64) -> OpError {
    OpError::new(
        ErrorKind::Conflict,
        "lease_held",
        format!(
            "work item {} is leased by {} (fencing token {}) for another {} s unless renewed",
            l.work,
            l.holder,
            l.fence,
            l.expires_at - now
        ),
    )
    .with("work", l.work.as_str())
    .with("holder", l.holder.as_str())
    .with("expires_at", l.expires_at)
    .with("fence", l.fence)
    .hint("Wait for the lease to be completed, released or to expire, then acquire again.")
}

/// Acquires the work item for `holder` (see the module rules).
pub fn acquire(
    ctx: &mut Ctx<'_>,
    work: &str,
    ttl: i64,
    holder: Option<&str>,
    reopen: bool,
) -> OpResult<Acquired> {
    check_work(work)?;
    work::check_ttl(ttl).map_err(|e| OpError::unprocessable(e.0))?;
    write_work(ctx, work, |tx, actor, now| {
        let holder = resolve_holder(tx, actor, holder)?;
        let newest = tx.newest_lease(&actor.scope, work)?;
        if let Some(l) = &newest {
            match l.state {
                LeaseState::Active if l.holder == holder => {
                    return Ok(Acquired { lease: l.into(), reacquired: true });
                }
                LeaseState::Active => return Err(lease_held(l, now)),
                LeaseState::Completed if !reopen => {
                    return Err(OpError::new(
                        ErrorKind::Conflict,
                        "work_completed",
                        format!("work item {work} was completed by {}", l.holder),
                    )
                    .with("work", work)
                    .with("holder", l.holder.as_str())
                    .with("completed_at", l.ended_at)
                    .with("fence", l.fence)
                    .hint("Pass `--reopen` to lease a completed work item again."));
                }
                _ => {}
            }
        }
        let fence = newest.as_ref().map_or(1, |l| l.fence + 1);
        let lease = LeaseRow {
            id: random_id(),
            scope: actor.scope.clone(),
            work: work.to_owned(),
            fence,
            holder: holder.clone(),
            state: LeaseState::Active,
            ttl,
            acquired_at: now,
            expires_at: now.saturating_add(ttl),
            heartbeats: 0,
            heartbeat_at: None,
            details: None,
            ended_at: None,
            result: None,
            pruned_at: None,
        };
        tx.insert_lease(&lease)?;
        journal::append(
            tx,
            actor,
            now,
            LeaseAcquire {
                lease_id: lease.id.clone(),
                work: work.to_owned(),
                fence,
                holder: holder.clone(),
                ttl,
                expires_at: lease.expires_at,
                reopened: newest.is_some_and(|l| l.state == LeaseState::Completed),
            },
        )?;
        Ok(Acquired { lease: (&lease).into(), reacquired: false })
    })
}

fn check_optional_text(what: &str, t: Option<&str>) -> OpResult<()> {
    t.map_or(Ok(()), |t| work::check_text(what, t).map_err(bad))
}

/// Extends the work item's current lease by its TTL from now.
pub fn heartbeat(
    ctx: &mut Ctx<'_>,
    work: &str,
    lease_id: &str,
    details: Option<&str>,
) -> OpResult<LeaseView> {
    check_work(work)?;
    check_optional_text("the heartbeat details", details)?;
    write_work(ctx, work, |tx, actor, now| {
        let mut lease = current_lease(tx, actor, work, lease_id)?;
        lease.expires_at = now.saturating_add(lease.ttl);
        lease.heartbeats += 1;
        lease.heartbeat_at = Some(now);
        lease.details = details.map(str::to_owned);
        tx.update_lease(&lease)?;
        journal::append(
            tx,
            actor,
            now,
            LeaseHeartbeat {
                lease_id: lease.id.clone(),
                work: work.to_owned(),
                fence: lease.fence,
                expires_at: lease.expires_at,
                details: None,
                details_sha256: sha256_of(lease.details.as_deref()),
            },
        )?;
        Ok((&lease).into())
    })
}

/// Completes the work item's current lease, keeping `result`; returns its plan diff. Completing
/// again with the same result is a replay.
pub fn complete(
    ctx: &mut Ctx<'_>,
    work: &str,
    lease_id: &str,
    result: Option<&str>,
) -> OpResult<Completed> {
    check_work(work)?;
    check_optional_text("the result", result)?;
    write_work(ctx, work, |tx, actor, now| {
        let lease = find_lease(tx, &actor.scope, work, lease_id)?;
        if lease.state == LeaseState::Completed && lease.result.as_deref() == result {
            check_holder(tx, actor, &lease)?;
            let diff = crate::ops::work::plan::diff_of(tx, &lease)?;
            return Ok(Completed { lease: (&lease).into(), diff, replayed: true });
        }
        let mut lease = require_current(tx, actor, lease)?;
        let diff = crate::ops::work::plan::diff_of(tx, &lease)?;
        lease.state = LeaseState::Completed;
        lease.ended_at = Some(now);
        lease.result = result.map(str::to_owned);
        tx.update_lease(&lease)?;
        journal::append(
            tx,
            actor,
            now,
            LeaseComplete {
                lease_id: lease.id.clone(),
                work: work.to_owned(),
                fence: lease.fence,
                result: lease.result.clone(),
                plan_version: diff.plan_version,
                holes: diff.holes.clone(),
                extras: diff.extras.clone(),
            },
        )?;
        Ok(Completed { lease: (&lease).into(), diff, replayed: false })
    })
}

/// Releases the work item's current lease without completing it; the work item can then be
/// acquired again. Releasing a released lease again is a replay.
pub fn release(ctx: &mut Ctx<'_>, work: &str, lease_id: &str) -> OpResult<Released> {
    check_work(work)?;
    write_work(ctx, work, |tx, actor, now| {
        let lease = find_lease(tx, &actor.scope, work, lease_id)?;
        if lease.state == LeaseState::Released {
            check_holder(tx, actor, &lease)?;
            return Ok(Released { lease: (&lease).into(), replayed: true });
        }
        let mut lease = require_current(tx, actor, lease)?;
        lease.state = LeaseState::Released;
        lease.ended_at = Some(now);
        tx.update_lease(&lease)?;
        journal::append(
            tx,
            actor,
            now,
            LeaseRelease { lease_id: lease.id.clone(), work: work.to_owned(), fence: lease.fence },
        )?;
        Ok(Released { lease: (&lease).into(), replayed: false })
    })
}

fn no_work(work: &str) -> OpError {
    OpError::new(ErrorKind::NotFound, "work_not_found", format!("work item {work} has no leases"))
        .with("work", work)
        .hint(format!("Acquire it with `locker lease acquire {work}`."))
}

/// The work item's newest lease, its attempt count and plan version.
pub fn show(ctx: &mut Ctx<'_>, work: &str) -> OpResult<WorkStatus> {
    check_work(work)?;
    let scope = ctx.actor.scope.clone();
    read_work(ctx, work, |tx, _| {
        let lease = tx.newest_lease(&scope, work)?.ok_or_else(|| no_work(work))?;
        let plan_version = tx.plans(&scope, work)?.last().map(|p| p.version);
        Ok(WorkStatus { attempts: lease.fence, plan_version, lease: (&lease).into() })
    })
}

/// Abandons every expired lease in the repository (each journaled); an agent sweeps only its
/// own scope.
pub fn reap(ctx: &mut Ctx<'_>) -> OpResult<Reaped> {
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    authorize(tx.as_ref(), &ctx.actor)?;
    let mut abandoned = Vec::new();
    let expired = tx.expired_leases(now)?;
    let mine = |l: &LeaseRow| ctx.actor.is_operator() || l.scope == ctx.actor.scope;
    for mut l in expired.into_iter().filter(mine) {
        abandon(tx.as_mut(), &ctx.actor, &mut l, now)?;
        abandoned.push((&l).into());
    }
    tx.commit()?;
    Ok(Reaped { abandoned })
}

/// Lists the actor's scope's leases (after reaping expired ones), optionally in one state.
pub fn list(ctx: &mut Ctx<'_>, state: Option<LeaseState>, limit: u64) -> OpResult<LeaseList> {
    if limit == 0 || limit > MAX_LIST_LIMIT {
        return Err(OpError::unprocessable(format!(
            "limit must be between 1 and {MAX_LIST_LIMIT}"
        )));
    }
    let now = ctx.now();
    let scope = ctx.actor.scope.clone();
    let needs_reap = {
        let tx = ctx.store.read()?;
        authorize(tx.as_ref(), &ctx.actor)?;
        tx.expired_leases(now)?.iter().any(|l| l.scope == scope)
    };
    if needs_reap {
        reap(ctx)?;
    }
    let tx = ctx.store.read()?;
    let q = LeaseQuery { scope: Some(ctx.actor.scope.clone()), state, limit };
    Ok(LeaseList { leases: tx.leases(&q)?.iter().map(LeaseView::from).collect() })
}

/// Parses a `--fence WORK:TOKEN` argument (the work item name may itself contain `:`).
pub fn parse_fence(s: &str) -> OpResult<Fence> {
    let parsed = s.rsplit_once(':').and_then(|(w, t)| {
        let t: u64 = t.parse().ok().filter(|t| *t >= 1)?;
        Some((w.to_owned(), t))
    });
    let (work, token) = parsed.ok_or_else(|| {
        OpError::bad_request(format!(
            "a fence must be WORK:TOKEN with a positive integer token, got `{s}`"
        ))
    })?;
    check_work(&work)?;
    Ok(Fence { work, token })
}

/// Refuses a fencing token older than the work item's newest lease (`stale_fence`, exit 4),
/// and a token that was never issued (`unknown_fence`, exit 3), in the actor's scope.
///
/// Call it inside the write transaction that publishes under the fence, so that no newer
/// lease can slip in between the check and the write. Like every access to a work item, it
/// first reaps the work item's expired lease (journaled `lease.abandon`, kept if the caller
/// commits). A token equal to the newest lease's passes even when that lease has ended: only a
/// newer lease makes a token stale (SPEC §4).
pub fn check_fence(
    tx: &mut dyn Tx,
    actor: &Actor,
    now: i64,
    work: &str,
    token: u64,
) -> OpResult<()> {
    check_work(work)?;
    reap_in(tx, actor, work, now)?;
    let newest = tx.newest_lease(&actor.scope, work)?;
    match newest {
        Some(n) if token == n.fence => Ok(()),
        Some(n) if token < n.fence => Err(OpError::new(
            ErrorKind::Conflict,
            "stale_fence",
            format!(
                "fencing token {token} on work item {work} is stale: lease {} holds token {}",
                n.id, n.fence
            ),
        )
        .with("work", work)
        .with("fence", token)
        .with("current_fence", n.fence)
        .with("current_holder", n.holder.as_str())
        .with("current_state", n.state.as_str())
        .hint("A newer lease replaced yours; re-read the work item's state before writing.")),
        _ => Err(OpError::new(
            ErrorKind::NotFound,
            "unknown_fence",
            format!("work item {work} never issued fencing token {token}"),
        )
        .with("work", work)
        .with("fence", token)),
    }
}

#[cfg(test)]
mod tests;

/// The lease state machine against a model of its rules (module docs), on random sequences
/// of operations, holders, TTLs and clock moves; the journal replay (`verify`) stays clean.
#[cfg(test)]
mod proptests;
