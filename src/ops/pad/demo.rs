//! The demo pad `demo-pad-v1`: sealed, readable without a ticket, its write key published, and
//! its blocks byte for byte the peer's, seeded by `locker serve`.

use serde::{Deserialize, Serialize};

use crate::domain::chain;
use crate::domain::digest::Digest;
use crate::domain::event::PadDeposit;
use crate::domain::limits::MAX_PAD_BYTES;
use crate::domain::pad::StoredState;
use crate::domain::secret::Secret;
use crate::ops::log::journal;
use crate::ops::{Ctx, OpResult};
use crate::store::{BlockRow, PadRow};

use super::block_record;

/// The pad readable without a ticket (seeded by `locker serve`, as the peer does).
pub const DEMO_PAD_ID: &str = "demo-pad-v1";

/// The demo pad's published write key.
pub const DEMO_WRITE_KEY: &str = "demo-write-key";

/// The demo pad's blocks, byte for byte the peer's, so that its head is the peer's too
/// (`5f77fb57…512b`): the envelope as Python's `json.dumps` writes it, then two lines of text.
pub const DEMO_BLOCKS: [(&str, &str); 3] = [
    (
        r#"{"schema": "locker.handoff.v1", "task_id": "demo-pad-v1", "from_agent": "lockerd-demo", "to_agent": "you", "constraints": ["read-only demo", "illustrates hash-chain integrity"], "artifacts": [{"name": "demo-payload.txt", "size": 45}], "budget_usd": 0.0}"#,
        "application/json",
    ),
    ("Permanent read-only demo handoff pad.\n", "text/plain"),
    ("Read it freely: GET /v1/pads/demo-pad-v1/blocks\n", "text/plain"),
];

/// Seconds until the demo pad would expire (100 years; it is sealed, so it never does).
pub const DEMO_TTL_SECONDS: i64 = 100 * 365 * 24 * 3600;

/// What seeding the demo pad did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DemoSeeded {
    pub pad_id: String,
    /// `false` when the pad already existed (nothing changed).
    pub created: bool,
    pub head_hash: Digest,
}

/// Creates the sealed, read-only demo pad `demo-pad-v1` if it is missing, as the peer's
/// daemon does at start. It is readable without a ticket and its write key is published.
pub fn seed_demo(ctx: &mut Ctx<'_>) -> OpResult<DemoSeeded> {
    let now = ctx.now();
    let mut tx = ctx.store.write()?;
    if let Some(p) = tx.pad(DEMO_PAD_ID)? {
        return Ok(DemoSeeded { pad_id: p.id, created: false, head_hash: p.head_hash });
    }
    let mut prev = Digest::ZERO;
    let mut rows = Vec::with_capacity(DEMO_BLOCKS.len());
    let mut total = 0u64;
    for (seq, (payload, ct)) in DEMO_BLOCKS.iter().enumerate() {
        let curr = chain::link(&prev, payload.as_bytes());
        rows.push(BlockRow {
            pad_id: DEMO_PAD_ID.to_owned(),
            seq: seq as u64,
            prev_hash: prev,
            curr_hash: curr,
            content_type: (*ct).to_owned(),
            payload: payload.as_bytes().to_vec(),
            created_at: now,
            pruned_bytes: None,
        });
        total += payload.len() as u64;
        prev = curr;
    }
    let max_blocks = crate::domain::limits::DEFAULT_MAX_BLOCKS;
    let pad = PadRow {
        id: DEMO_PAD_ID.to_owned(),
        scope: ctx.actor.scope.clone(),
        created_at: now,
        expires_at: now.saturating_add(DEMO_TTL_SECONDS),
        max_blocks,
        max_bytes: MAX_PAD_BYTES,
        block_count: rows.len() as u64,
        current_bytes: total,
        state: StoredState::Sealed,
        write_key_hash: Secret::new(DEMO_WRITE_KEY).digest(),
        head_hash: prev,
        sealed_at: Some(now),
        pruned_at: None,
    };
    tx.insert_pad(&pad)?;
    for b in &rows {
        tx.insert_block(b)?;
    }
    journal::append(
        tx.as_mut(),
        &ctx.actor,
        now,
        PadDeposit {
            pad_id: DEMO_PAD_ID.to_owned(),
            demo: true,
            ttl_seconds: DEMO_TTL_SECONDS,
            max_blocks: u64::from(max_blocks),
            max_bytes: None,
            expires_at: pad.expires_at,
            write_key_hash: None,
            ticket_id: None,
            ticket_type: None,
            blocks: rows.iter().map(block_record).collect(),
            head_hash: prev,
            total_bytes: total,
            payment: None,
        },
    )?;
    tx.commit()?;
    Ok(DemoSeeded { pad_id: DEMO_PAD_ID.to_owned(), created: true, head_hash: prev })
}
