//! What every operation on a work item checks first: the work item's name, its expired lease
//! reaped (every access reaps, reads included), and the caller's lease being the current, live
//! one and its own.

use crate::domain::event::LeaseAbandon;
use crate::domain::work::{self, expired, LeaseState};
use crate::ops::log::journal;
use crate::ops::{authorize, Actor, Ctx, ErrorKind, OpError, OpResult};
use crate::store::{LeaseRow, Tx};

pub(crate) fn bad(e: work::Invalid) -> OpError {
    OpError::bad_request(e.0)
}

pub(crate) fn check_work(work: &str) -> OpResult<()> {
    work::check_work(work).map_err(bad)
}

/// Turns `lease` (active, expired) into `abandoned` and journals `lease.abandon`.
pub(crate) fn abandon(tx: &mut dyn Tx, by: &Actor, lease: &mut LeaseRow, now: i64) -> OpResult<()> {
    lease.state = LeaseState::Abandoned;
    lease.ended_at = Some(now);
    tx.update_lease(lease)?;
    let actor = Actor { scope: lease.scope.clone(), ..by.clone() };
    journal::append(
        tx,
        &actor,
        now,
        LeaseAbandon {
            lease_id: lease.id.clone(),
            work: lease.work.clone(),
            fence: lease.fence,
            holder: lease.holder.clone(),
            expired_at: lease.expires_at,
        },
    )?;
    Ok(())
}

/// Abandons the work item's lease if it is active and expired; returns it if so.
pub(crate) fn reap_in(
    tx: &mut dyn Tx,
    actor: &Actor,
    work: &str,
    now: i64,
) -> OpResult<Option<LeaseRow>> {
    match tx.newest_lease(&actor.scope, work)? {
        Some(mut l) if l.state == LeaseState::Active && expired(l.expires_at, now) => {
            abandon(tx, actor, &mut l, now)?;
            Ok(Some(l))
        }
        _ => Ok(None),
    }
}

/// Runs `f` on the work item in one write transaction, after reaping its expired lease. When
/// `f` fails, its changes are rolled back but the reaping is still committed (in a fresh
/// transaction), so that every access reaps.
pub(crate) fn write_work<T>(
    ctx: &mut Ctx<'_>,
    work: &str,
    f: impl FnOnce(&mut dyn Tx, &Actor, i64) -> OpResult<T>,
) -> OpResult<T> {
    let now = ctx.now();
    let (err, reaped) = {
        let mut tx = ctx.store.write()?;
        authorize(tx.as_ref(), &ctx.actor)?;
        let reaped = reap_in(tx.as_mut(), &ctx.actor, work, now)?.is_some();
        match f(tx.as_mut(), &ctx.actor, now) {
            Ok(v) => {
                tx.commit()?;
                return Ok(v);
            }
            Err(e) => (e, reaped),
        }
    };
    if reaped {
        let mut tx = ctx.store.write()?;
        reap_in(tx.as_mut(), &ctx.actor, work, now)?;
        tx.commit()?;
    }
    Err(err)
}

/// Runs the read `f` on the work item after reaping its expired lease (in a write transaction,
/// only when there is one to reap).
pub(crate) fn read_work<T>(
    ctx: &mut Ctx<'_>,
    work: &str,
    f: impl FnOnce(&dyn Tx, i64) -> OpResult<T>,
) -> OpResult<T> {
    let now = ctx.now();
    let needs_reap = {
        let tx = ctx.store.read()?;
        authorize(tx.as_ref(), &ctx.actor)?;
        tx.newest_lease(&ctx.actor.scope, work)?
            .is_some_and(|l| l.state == LeaseState::Active && expired(l.expires_at, now))
    };
    if needs_reap {
        let mut tx = ctx.store.write()?;
        reap_in(tx.as_mut(), &ctx.actor, work, now)?;
        tx.commit()?;
    }
    let tx = ctx.store.read()?;
    f(tx.as_ref(), now)
}

/// A lease of the work item by id, in the actor's scope.
pub(crate) fn find_lease(
    tx: &dyn Tx,
    scope: &str,
    work: &str,
    lease_id: &str,
) -> OpResult<LeaseRow> {
    tx.lease(lease_id)?.filter(|l| l.scope == scope && l.work == work).ok_or_else(|| {
        OpError::new(
            ErrorKind::NotFound,
            "lease_not_found",
            format!("work item {work} has no lease {lease_id}"),
        )
        .with("work", work)
        .with("lease_id", lease_id)
        .hint(format!("`locker lease show {work}` shows the work item's newest lease."))
    })
}

/// Who may use a lease: the operator any; an agent only its own; an anonymous caller
/// (agentstate's trust model: knowing the lease id) only a lease whose holder is no registered
/// agent, since a lease an agent took with its token needs that token.
pub(crate) fn check_holder(tx: &dyn Tx, actor: &Actor, lease: &LeaseRow) -> OpResult<()> {
    if actor.is_operator() || actor.name == lease.holder {
        return Ok(());
    }
    if actor.speaks_for_any_holder() {
        return match tx.agent(&lease.holder)? {
            None => Ok(()),
            Some(_) => Err(OpError::forbidden(format!(
                "lease {} is held by the agent {}: only its token can use it",
                lease.id, lease.holder
            ))
            .hint("Send that agent's token: `Authorization: Bearer TOKEN` (remote CLI: `LOCKER_TOKEN`).")),
        };
    }
    Err(OpError::forbidden(format!(
        "lease {} is held by {}, not by {}",
        lease.id, lease.holder, actor.name
    )))
}

/// Refuses a lease that is not the work item's current, live lease: an expired (abandoned)
/// one is `gone`, a completed or released one `stale_lease`. Agents may only use their own.
pub(crate) fn require_current(tx: &dyn Tx, actor: &Actor, lease: LeaseRow) -> OpResult<LeaseRow> {
    if lease.state == LeaseState::Active {
        check_holder(tx, actor, &lease)?;
        return Ok(lease);
    }
    let newest = tx.newest_lease(&lease.scope, &lease.work)?;
    let mut e = if lease.state == LeaseState::Abandoned {
        OpError::new(
            ErrorKind::Gone,
            "gone",
            format!(
                "lease {} on work item {} expired and was abandoned; it can no longer be used",
                lease.id, lease.work
            ),
        )
        .with("expired_at", lease.expires_at)
    } else {
        OpError::new(
            ErrorKind::Conflict,
            "stale_lease",
            format!(
                "lease {} on work item {} is {}; it can no longer be used",
                lease.id,
                lease.work,
                lease.state.as_str()
            ),
        )
    };
    e = e
        .with("work", lease.work.as_str())
        .with("lease_id", lease.id.as_str())
        .with("state", lease.state.as_str())
        .with("fence", lease.fence);
    match newest.filter(|n| n.fence > lease.fence) {
        Some(n) => {
            let hint = format!(
                "Lease {} (fencing token {}, holder {}, {}) replaced it; stop working on {}.",
                n.id,
                n.fence,
                n.holder,
                n.state.as_str(),
                lease.work
            );
            e = e
                .with("current_fence", n.fence)
                .with("current_holder", n.holder.as_str())
                .with("current_state", n.state.as_str())
                .hint(hint);
        }
        None => {
            e = e.hint(format!("Acquire a new lease with `locker lease acquire {}`.", lease.work));
        }
    }
    Err(e)
}

/// The current lease named by `lease_id`, or why it cannot be used.
pub(crate) fn current_lease(
    tx: &dyn Tx,
    actor: &Actor,
    work: &str,
    lease_id: &str,
) -> OpResult<LeaseRow> {
    let lease = find_lease(tx, &actor.scope, work, lease_id)?;
    require_current(tx, actor, lease)
}
