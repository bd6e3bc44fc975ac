//! `locker gc`: retention. Removes what the operator's policy allows, without breaking
//! verification.
//!
//! - **Pads** sealed (or expired) longer ago than `pads_older_than`: their blocks' payloads
//!   go; their hashes, lengths, counts, heads, tickets and journal entries stay, so the chain
//!   still links, `locker verify` still checks every hash against the journal, and reads
//!   answer `pruned` (gone) instead of content. The demo pad is never pruned.
//! - **Blobs** no artifact version names, and stray blob files (what a process killed between
//!   writing a blob file and committing its row leaves behind). Listed under the write lock,
//!   so no writer is between those two steps.
//!
//! - **Abandoned work**: leases abandoned (expired without being completed or released) at
//!   least `abandoned_older_than` ago lose their text, and so do the plans committed and the
//!   steps logged under them: heartbeat details, plan steps, planned and executed. A lease
//!   whose plan is still its work item's current plan is kept whole: retention never weakens
//!   the `manifest diff` gate (and a plan pruned by an older locker makes the diff fail
//!   closed). The rows stay with their fencing tokens, versions, step names and times (later
//!   leases and plans number on from them), marked `pruned_at`. The journal records these
//!   texts by digest only (see `verify::work::text_sha256`), so nothing of them is left;
//!   entries written before that hold the text itself and keep it.
//!
//! Every run that is not a dry run writes one `repo.gc` journal entry listing what went, in
//! the same transaction, then checkpoints the store's write-ahead log. At most
//! [`MAX_ITEMS`] pads and as many blobs go per run (`more` says to run again), so the write
//! lock is never held for long.

use serde::{Deserialize, Serialize};

use crate::domain::digest::Digest;
use crate::domain::event::{self, GcBlob, GcLease, GcPad, GcPolicy, GcStrayFile, RepoGc};
use crate::domain::pad::StoredState;
use crate::domain::work::LeaseState;
use crate::ops::log::journal;
use crate::ops::{Ctx, OpError, OpResult, Progress};
use crate::store::Flow;

/// Most pads, and most blobs and stray files, one run removes.
pub const MAX_ITEMS: usize = 1000;

/// The kind of a gc run's journal entry.
pub const KIND: &str = event::kind::REPO_GC;

/// What the operator allows to go.
#[derive(Debug, Clone, Copy, Default)]
pub struct Retention {
    /// Prune pads sealed or expired at least this many seconds ago.
    pub pads_older_than: Option<i64>,
    /// Remove unreferenced blobs and stray blob files.
    pub blobs: bool,
    /// Prune the text of leases abandoned at least this many seconds ago, with their plans
    /// and steps.
    pub abandoned_older_than: Option<i64>,
    /// Only report what would go.
    pub dry_run: bool,
}

/// A pad whose payloads went (or would go).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct PrunedPad {
    pub pad_id: String,
    pub scope: String,
    /// `sealed` or `expired`.
    pub reason: String,
    /// When it was sealed, or expired.
    pub since: i64,
    pub blocks: u64,
    pub bytes: u64,
}

/// An abandoned lease whose text, and its plans' and steps', went (or would go).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct PrunedWork {
    pub lease_id: String,
    pub scope: String,
    pub work: String,
    pub fence: u64,
    pub holder: String,
    /// When it was abandoned.
    pub abandoned_at: i64,
    /// Plans committed and steps logged under it.
    pub plans: u64,
    pub steps: u64,
    /// Bytes of text removed.
    pub bytes: u64,
}

/// A blob that went (or would go).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct RemovedBlob {
    pub sha256: Digest,
    pub size: u64,
    /// `inline`, or `objects/ab/cdef…`.
    pub location: String,
}

/// A stray blob file that went (or would go).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct RemovedFile {
    pub location: String,
    pub bytes: u64,
}

/// The write-ahead log checkpoint after a run.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct WalCheckpoint {
    pub busy: bool,
    pub wal_bytes_before: u64,
    pub wal_bytes_after: u64,
}

/// What a run removed, or with `dry_run` would remove.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GcOutcome {
    pub dry_run: bool,
    pub pads_older_than: Option<i64>,
    pub blobs_policy: bool,
    pub abandoned_older_than: Option<i64>,
    pub pads: Vec<PrunedPad>,
    /// Abandoned leases pruned, with their plans and steps.
    pub leases: Vec<PrunedWork>,
    pub blobs: Vec<RemovedBlob>,
    pub stray_files: Vec<RemovedFile>,
    /// Payload bytes of the pruned pads.
    pub payload_bytes: u64,
    /// Bytes of the removed blobs and stray files.
    pub blob_bytes: u64,
    /// Bytes of text of the pruned leases, plans and steps.
    pub work_bytes: u64,
    /// More was eligible than one run removes: run gc again.
    pub more: bool,
    /// Abandoned leases kept because a plan committed under them is still their work item's
    /// current plan (what `manifest diff` compares): pruned once a newer plan replaces it.
    #[serde(default)]
    pub current_plans_kept: u64,
    /// The `repo.gc` journal entry (absent in a dry run).
    pub journal_seq: Option<u64>,
    pub checkpoint: Option<WalCheckpoint>,
}

/// Refuses a policy that removes nothing, or a negative age (exit 2), before anything is read.
pub fn check_policy(policy: &Retention) -> OpResult<()> {
    if policy.pads_older_than.is_none() && !policy.blobs && policy.abandoned_older_than.is_none() {
        return Err(OpError::usage("gc needs a policy: nothing would be removed").hint(
            "Pass `--pads-older-than 30d`, `--abandoned-older-than 30d`, `--blobs`, or several.",
        ));
    }
    if policy.pads_older_than.is_some_and(|a| a < 0)
        || policy.abandoned_older_than.is_some_and(|a| a < 0)
    {
        return Err(OpError::usage("the age must not be negative"));
    }
    Ok(())
}

/// Runs one gc under `policy` (operator only). `progress` hears of the scan, then of the pads,
/// leases and blobs as they go.
pub fn gc(ctx: &mut Ctx<'_>, policy: &Retention, progress: &dyn Progress) -> OpResult<GcOutcome> {
    crate::ops::auth::operator_only(&ctx.actor, "run gc")?;
    check_policy(policy)?;
    progress.start("looking for what the policy removes", 0, "");
    let now = ctx.now();
    let actor = ctx.actor.clone();
    let mut tx = ctx.store.write()?;
    let mut more = false;

    let mut pads = Vec::new();
    if let Some(age) = policy.pads_older_than {
        let cutoff = now.saturating_sub(age);
        tx.for_each_pad(&mut |p| {
            if p.id == crate::ops::pad::DEMO_PAD_ID || p.pruned_at.is_some() || p.block_count == 0 {
                return Flow::Continue(());
            }
            let (reason, since) = match (p.state, p.sealed_at) {
                (StoredState::Sealed, Some(at)) => ("sealed", at),
                _ if p.expires_at <= now => ("expired", p.expires_at),
                _ => return Flow::Continue(()),
            };
            if since > cutoff {
                return Flow::Continue(());
            }
            if pads.len() >= MAX_ITEMS {
                more = true;
                return Flow::Break(());
            }
            pads.push(PrunedPad {
                pad_id: p.id,
                scope: p.scope,
                reason: reason.to_owned(),
                since,
                blocks: p.block_count,
                bytes: p.current_bytes,
            });
            Flow::Continue(())
        })?;
    }

    let mut leases = Vec::new();
    let mut kept_current_plans = 0u64;
    if let Some(age) = policy.abandoned_older_than {
        let cutoff = now.saturating_sub(age);
        // The lease each work item's current plan was committed under: that plan is what
        // `manifest diff` gates on, so neither it nor its lease is pruned (until a newer plan
        // replaces it). Known before the scan, so kept leases never use up a run's quota.
        let mut current = std::collections::HashSet::new();
        let mut last: Option<(String, String, String)> = None;
        tx.for_each_plan(&mut |p| {
            if last.as_ref().is_some_and(|(s, w, _)| (s, w) != (&p.scope, &p.work)) {
                current.extend(last.take().map(|(_, _, lease)| lease));
            }
            last = Some((p.scope, p.work, p.lease_id));
            Flow::Continue(())
        })?;
        current.extend(last.map(|(_, _, lease)| lease));
        let mut found = Vec::new();
        tx.for_each_lease(&mut |l| {
            let abandoned = l.state == LeaseState::Abandoned && l.pruned_at.is_none();
            match l.ended_at {
                Some(at) if abandoned && at <= cutoff => {
                    if current.contains(&l.id) {
                        kept_current_plans += 1;
                        return Flow::Continue(());
                    }
                    if found.len() >= MAX_ITEMS {
                        more = true;
                        return Flow::Break(());
                    }
                    found.push(l);
                }
                _ => {}
            }
            Flow::Continue(())
        })?;
        for l in found {
            let len = |t: &Option<String>| t.as_ref().map_or(0, |t| t.len() as u64);
            let plans: Vec<_> =
                tx.plans(&l.scope, &l.work)?.into_iter().filter(|p| p.lease_id == l.id).collect();
            let steps: Vec<_> = tx
                .work_steps(&l.scope, &l.work)?
                .into_iter()
                .filter(|s| s.lease_id == l.id)
                .collect();
            let bytes = len(&l.details)
                + len(&l.result)
                + plans.iter().map(|p| p.steps_json.len() as u64).sum::<u64>()
                + steps.iter().map(|s| len(&s.planned) + len(&s.executed)).sum::<u64>();
            leases.push(PrunedWork {
                abandoned_at: l.ended_at.unwrap_or(l.expires_at),
                lease_id: l.id,
                scope: l.scope,
                work: l.work,
                fence: l.fence,
                holder: l.holder,
                plans: plans.len() as u64,
                steps: steps.len() as u64,
                bytes,
            });
        }
    }

    let mut blobs = Vec::new();
    let mut stray_files = Vec::new();
    if policy.blobs {
        let mut unreferenced = tx.unreferenced_blobs()?;
        // A store that keeps every blob in its database (PostgreSQL) has no file to stray.
        let mut strays = match tx.blob_files() {
            Some(files) => files.stray_files()?,
            None => Vec::new(),
        };
        if unreferenced.len() > MAX_ITEMS || strays.len() > MAX_ITEMS {
            more = true;
            unreferenced.truncate(MAX_ITEMS);
            strays.truncate(MAX_ITEMS);
        }
        if !policy.dry_run {
            if !unreferenced.is_empty() {
                progress.start("removing blobs", unreferenced.len() as u64, "blobs");
            }
            for b in &unreferenced {
                tx.delete_blob(&b.digest)?;
                progress.advance(1);
            }
            if let Some(files) = tx.blob_files() {
                files.remove_stray_files(&strays)?;
            }
        }
        blobs = unreferenced
            .into_iter()
            .map(|b| RemovedBlob { sha256: b.digest, size: b.size, location: b.location })
            .collect();
        stray_files = strays
            .into_iter()
            .map(|f| RemovedFile { location: f.location, bytes: f.bytes })
            .collect();
    }
    let payload_bytes = pads.iter().map(|p| p.bytes).sum();
    let blob_bytes = blobs.iter().map(|b| b.size).chain(stray_files.iter().map(|f| f.bytes)).sum();
    let work_bytes = leases.iter().map(|l| l.bytes).sum();
    let mut outcome = GcOutcome {
        dry_run: policy.dry_run,
        pads_older_than: policy.pads_older_than,
        blobs_policy: policy.blobs,
        abandoned_older_than: policy.abandoned_older_than,
        pads,
        leases,
        blobs,
        stray_files,
        payload_bytes,
        blob_bytes,
        work_bytes,
        more,
        current_plans_kept: kept_current_plans,
        journal_seq: None,
        checkpoint: None,
    };
    if policy.dry_run {
        // Dropping the transaction rolls it back: nothing changed.
        progress.finish();
        return Ok(outcome);
    }
    if !outcome.pads.is_empty() {
        progress.start("pruning pads", outcome.pads.len() as u64, "pads");
    }
    for p in &outcome.pads {
        tx.prune_pad(&p.pad_id, now)?;
        progress.advance(1);
    }
    if !outcome.leases.is_empty() {
        progress.start("pruning abandoned leases", outcome.leases.len() as u64, "leases");
    }
    for l in &outcome.leases {
        tx.prune_lease_work(&l.lease_id, now)?;
        progress.advance(1);
    }
    progress.start("committing", 0, "");
    // Runs that prune abandoned work say so; the others keep the body they always had.
    let work = policy.abandoned_older_than.is_some();
    let event = RepoGc {
        policy: GcPolicy {
            pads_older_than: policy.pads_older_than,
            blobs: policy.blobs,
            abandoned_older_than: policy.abandoned_older_than,
        },
        pads: outcome
            .pads
            .iter()
            .map(|p| GcPad {
                pad_id: p.pad_id.clone(),
                scope: p.scope.clone(),
                reason: p.reason.clone(),
                since: p.since,
                blocks: p.blocks,
                bytes: p.bytes,
            })
            .collect(),
        blobs: outcome
            .blobs
            .iter()
            .map(|b| GcBlob { sha256: b.sha256, size: b.size, location: b.location.clone() })
            .collect(),
        stray_files: outcome
            .stray_files
            .iter()
            .map(|f| GcStrayFile { location: f.location.clone(), bytes: f.bytes })
            .collect(),
        payload_bytes: outcome.payload_bytes,
        blob_bytes: outcome.blob_bytes,
        more: outcome.more,
        leases: work.then(|| {
            outcome
                .leases
                .iter()
                .map(|l| GcLease {
                    lease_id: l.lease_id.clone(),
                    scope: l.scope.clone(),
                    work: l.work.clone(),
                    fence: l.fence,
                    abandoned_at: l.abandoned_at,
                    plans: l.plans,
                    steps: l.steps,
                    bytes: l.bytes,
                })
                .collect()
        }),
        work_bytes: work.then_some(outcome.work_bytes),
    };
    let row = journal::append(tx.as_mut(), &actor, now, event)?;
    tx.commit()?;
    outcome.journal_seq = Some(row.seq);
    // Housekeeping after the fact: a checkpoint that fails changes nothing that matters. A
    // store without housekeeping (PostgreSQL checkpoints its own log) has nothing to fold in.
    outcome.checkpoint = match ctx.store.maintenance() {
        Some(m) => m.checkpoint().ok().map(|c| WalCheckpoint {
            busy: c.busy,
            wal_bytes_before: c.wal_bytes_before,
            wal_bytes_after: c.wal_bytes_after,
        }),
        None => Some(WalCheckpoint { busy: false, wal_bytes_before: 0, wal_bytes_after: 0 }),
    };
    progress.finish();
    Ok(outcome)
}

/// Parses an age: `90s`, `45m`, `12h`, `30d`, `2w`, or plain seconds (the one duration syntax).
pub use crate::domain::time::parse_age;
