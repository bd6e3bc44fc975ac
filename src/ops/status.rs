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
    let key_id = ctx.log.and_then(|l| crate::ops::log::key(l).ok()).map(|k| k.key_id);
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
