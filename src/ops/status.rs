//! What `GET /health` reports, all of it read from the store: the pad counts (agent-locker's
//! shape), the store's backend, and the journal's size, head and signing key.

use serde::Serialize;

use crate::domain::digest::Digest;
use crate::ops::pad::{self, PadCounts};
use crate::ops::{Ctx, OpResult};

/// The journal as `/health` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct JournalStatus {
    /// How many entries it holds.
    pub entries: u64,
    /// The newest entry's chain hash (64 zeros when empty).
    pub head_hash: Digest,
    /// The id of the key its checkpoints are signed with (8 hex digits), if it has one.
    pub key_id: Option<String>,
}

/// The store's state.
#[derive(Debug, Clone, Serialize)]
pub struct StoreStatus {
    /// `sqlite` or `postgres`.
    pub backend: &'static str,
    /// Whether the store keeps a write-ahead log (SQLite's WAL).
    pub wal_mode: bool,
    pub pads: PadCounts,
    pub journal: JournalStatus,
}

/// Reads the store's state.
pub fn status(ctx: &mut Ctx<'_>) -> OpResult<StoreStatus> {
    let pads = pad::counts(ctx)?;
    let backend = ctx.store.kind();
    let wal_mode = backend == "sqlite";
    let head = ctx.store.read()?.journal_head()?;
    let log = ctx.log;
    let key_id = log.and_then(|l| crate::ops::log::key(ctx, l).ok()).map(|k| k.key_id);
    Ok(StoreStatus {
        backend,
        wal_mode,
        pads,
        journal: JournalStatus {
            entries: head.as_ref().map_or(0, |h| h.seq),
            head_hash: head.map_or(Digest::ZERO, |h| h.hash),
            key_id,
        },
    })
}

/// The newest signed checkpoint, as `locker status` shows it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CheckpointStatus {
    /// The tree size it signs.
    pub size: u64,
    /// When it was signed (Unix seconds).
    pub signed_at: i64,
    /// Seconds since then.
    pub age_seconds: i64,
    /// Journal entries newer than it (not yet covered by a signature).
    pub unsigned_entries: u64,
}

/// Leases by what they mean now.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct LeaseCounts {
    /// Active and not expired.
    pub active: u64,
    /// Still active in the store, but past their expiry (the next lease operation reaps them).
    pub expired: u64,
    /// Reaped after they expired: work whose holder went away.
    pub abandoned: u64,
}

/// Whether writes must be signed, and by how many agents' keys.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SigningStatus {
    /// `locker key require on`: every agent write must carry a valid signature.
    pub required: bool,
    /// Agents with at least one key that is not revoked.
    pub agents_with_keys: u64,
}

/// `locker status`: the repository at a glance.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RepoStatus {
    /// `sqlite` or `postgres`.
    pub backend: String,
    pub journal: JournalSummary,
    /// The newest signed checkpoint, if any.
    pub checkpoint: Option<CheckpointStatus>,
    pub pads: PadSummary,
    pub leases: LeaseCounts,
    pub signing: SigningStatus,
}

/// The journal's size and head.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct JournalSummary {
    pub entries: u64,
    /// The newest entry's chain hash (64 zeros when empty).
    pub head_hash: String,
}

/// Pads by state (expired pads are in `total` only).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PadSummary {
    pub total: u64,
    pub open: u64,
    pub sealed: u64,
}

/// Reads the repository's state for `locker status` (every scope: the operator's view).
pub fn repository(ctx: &mut Ctx<'_>) -> OpResult<RepoStatus> {
    use crate::store::Flow;

    let now = ctx.now();
    let pads = pad::counts(ctx)?;
    let backend = ctx.store.kind().to_owned();
    let tx = ctx.store.read()?;
    let head = tx.journal_head()?;
    let entries = head.as_ref().map_or(0, |h| h.seq);
    let checkpoint = tx.latest_checkpoint()?.map(|c| CheckpointStatus {
        size: c.size,
        signed_at: c.signed_at,
        age_seconds: (now - c.signed_at).max(0),
        unsigned_entries: entries.saturating_sub(c.size),
    });
    let counted = tx.lease_counts(now)?;
    let leases = LeaseCounts {
        active: counted.active,
        expired: counted.expired,
        abandoned: counted.abandoned,
    };
    let mut agents = std::collections::BTreeSet::new();
    tx.for_each_agent_key(&mut |k| {
        if k.revoked_at.is_none() {
            agents.insert(k.agent);
        }
        Flow::Continue(())
    })?;
    let required = crate::ops::keys::required(tx.as_ref())?;
    Ok(RepoStatus {
        backend,
        journal: JournalSummary {
            entries,
            head_hash: head.map_or(Digest::ZERO, |h| h.hash).to_hex(),
        },
        checkpoint,
        pads: PadSummary { total: pads.total, open: pads.unsealed, sealed: pads.sealed },
        leases,
        signing: SigningStatus { required, agents_with_keys: agents.len() as u64 },
    })
}

/// What `GET /metrics` reads of the repository at each scrape: [`repository`]'s view, and
/// when the newest journal entry was written.
#[derive(Debug, Clone)]
pub struct Gauges {
    pub status: RepoStatus,
    /// The newest journal entry's time (Unix seconds), if there is one.
    pub head_time: Option<i64>,
    /// Pads past their expiry and never sealed.
    pub expired_pads: u64,
}

/// Reads [`Gauges`].
pub fn gauges(ctx: &mut Ctx<'_>) -> OpResult<Gauges> {
    let status = repository(ctx)?;
    let newest = ctx
        .store
        .read()?
        .journal(&crate::store::JournalQuery { limit: 1, ..Default::default() })?;
    let expired_pads = status.pads.total.saturating_sub(status.pads.open + status.pads.sealed);
    Ok(Gauges { head_time: newest.first().map(|j| j.time), expired_pads, status })
}
