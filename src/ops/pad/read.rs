//! Reading pads: a pad's manifest, the list of pads, a slice of blocks (planned, then, for the
//! first read with a `read_once` ticket, decided again under the write lock as it opens the
//! ticket's read lease), and counts by state.

use crate::domain::event::PadReadLease;
use crate::domain::limits::{MAX_SLICE_BLOCKS, MAX_SLICE_BYTES};
use crate::domain::pad::PadState;
use crate::domain::secret::Secret;
use crate::ops::log::journal;
use crate::ops::pad::tickets::check_read_ticket;
use crate::ops::{Ctx, OpError, OpResult};
use crate::store::{Flow, TicketRow, Tx};

use super::{check_pad_id, load, pruned, BlockSlice, BlockView, Manifest, PadCounts, PadList};

/// A pad's manifest (no credential needed, as with the peer).
pub fn manifest(ctx: &mut Ctx<'_>, pad_id: &str) -> OpResult<Manifest> {
    check_pad_id(pad_id)?;
    let now = ctx.now();
    let tx = ctx.store.read()?;
    let pad = load(tx.as_ref(), pad_id)?;
    Ok(Manifest::of(&pad, now))
}

/// Lists pads, optionally only those in `state`.
pub fn list(
    ctx: &mut Ctx<'_>,
    state: Option<PadState>,
    limit: usize,
    after: Option<&str>,
) -> OpResult<PadList> {
    let now = ctx.now();
    let mut pads = Vec::new();
    if limit == 0 {
        return Ok(PadList { pads });
    }
    // The operator sees every pad; an agent (or an anonymous caller) its own scope's.
    let scope = (!ctx.actor.is_operator()).then(|| ctx.actor.scope.clone());
    let tx = ctx.store.read()?;
    tx.for_each_pad(&mut |p| {
        // Pads come in id order: a page starts after the previous page's last id.
        if after.is_some_and(|a| p.id.as_str() <= a)
            || scope.as_ref().is_some_and(|s| *s != p.scope)
        {
            return Flow::Continue(());
        }
        let m = Manifest::of(&p, now);
        if state.is_none_or(|s| s == m.state) {
            pads.push(m);
        }
        if pads.len() >= limit {
            Flow::Break(())
        } else {
            Flow::Continue(())
        }
    })?;
    Ok(PadList { pads })
}

/// What a read decided, before any lease is recorded.
struct ReadPlan {
    slice: BlockSlice,
    /// A `read_once` ticket whose lease this read opens.
    open_lease: Option<TicketRow>,
}

fn plan_read(
    tx: &dyn Tx,
    pad_id: &str,
    ticket: Option<&Secret>,
    from: Option<i64>,
    to: Option<i64>,
    lease_seconds: i64,
    now: i64,
) -> OpResult<ReadPlan> {
    let pad = load(tx, pad_id)?;
    let open_lease = check_read_ticket(tx, &pad, ticket, lease_seconds, now)?;
    if let Some(at) = pad.pruned_at {
        return Err(pruned(&pad.id, at));
    }
    let total = pad.block_count;
    let start = from.unwrap_or(0);
    let empty = |f: i64| BlockSlice {
        pad_id: pad.id.clone(),
        from: f,
        to: f,
        count: 0,
        total_blocks: total,
        blocks: Vec::new(),
    };
    if total == 0 {
        return Ok(ReadPlan { slice: empty(start), open_lease: None });
    }
    if start < 0 || to.is_some_and(|t| t < start) {
        return Err(OpError::unprocessable("invalid from/to range"));
    }
    let start_u = u64::try_from(start).unwrap_or(u64::MAX);
    if start_u >= total {
        return Ok(ReadPlan { slice: empty(start), open_lease: None });
    }
    let end = to.map_or(total - 1, |t| u64::try_from(t).unwrap_or(u64::MAX).min(total - 1));
    if end - start_u + 1 > MAX_SLICE_BLOCKS {
        return Err(OpError::too_large(format!(
            "slice exceeds {MAX_SLICE_BLOCKS} blocks; narrow from/to"
        )));
    }
    if tx.blocks_bytes(&pad.id, start_u, end)? > MAX_SLICE_BYTES {
        return Err(OpError::too_large(format!(
            "slice payload exceeds {MAX_SLICE_BYTES} bytes; narrow from/to"
        )));
    }
    let blocks: Vec<BlockView> =
        tx.blocks(&pad.id, start_u, end)?.into_iter().map(BlockView::of).collect();
    let slice = BlockSlice {
        pad_id: pad.id.clone(),
        from: start,
        to: i64::try_from(end).unwrap_or(i64::MAX),
        count: blocks.len() as u64,
        total_blocks: total,
        blocks,
    };
    Ok(ReadPlan { slice, open_lease })
}

/// Reads blocks `from..=to` with a read ticket, in the peer's check order. The first
/// successful, non-empty read with a `read_once` ticket opens its read lease.
pub fn read(
    ctx: &mut Ctx<'_>,
    pad_id: &str,
    ticket: Option<&Secret>,
    from: Option<i64>,
    to: Option<i64>,
) -> OpResult<BlockSlice> {
    check_pad_id(pad_id)?;
    let now = ctx.now();
    let lease = ctx.settings.read_lease_seconds;
    let plan = {
        let tx = ctx.store.read()?;
        plan_read(tx.as_ref(), pad_id, ticket, from, to, lease, now)?
    };
    if plan.open_lease.is_none() {
        return Ok(plan.slice);
    }
    // Opening the lease is a write: decide again under the write lock.
    let mut tx = ctx.store.write()?;
    crate::ops::authorize(tx.as_ref(), &ctx.actor)?;
    let plan = plan_read(tx.as_ref(), pad_id, ticket, from, to, lease, now)?;
    if let Some(mut row) = plan.open_lease {
        row.lease_started_at = Some(now);
        tx.update_ticket(&row)?;
        journal::append(
            tx.as_mut(),
            &ctx.actor,
            now,
            PadReadLease { pad_id: pad_id.to_owned(), ticket_id: row.digest, lease_seconds: lease },
        )?;
        tx.commit()?;
    }
    Ok(plan.slice)
}

/// Counts the pads by their state now.
pub fn counts(ctx: &mut Ctx<'_>) -> OpResult<PadCounts> {
    let now = ctx.now();
    let tx = ctx.store.read()?;
    let mut c = PadCounts::default();
    tx.for_each_pad(&mut |p| {
        c.total += 1;
        match PadState::at(p.state, p.expires_at, now) {
            PadState::Open => c.unsealed += 1,
            PadState::Sealed => c.sealed += 1,
            PadState::Expired => {}
        }
        Flow::Continue(())
    })?;
    Ok(c)
}
