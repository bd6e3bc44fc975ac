//! A pad as a person inspects it without any of its credentials (the web view's pad page): its
//! manifest and scope, the hashes of its blocks (never their payloads) and the state of each
//! read ticket (never the ticket, nor its id). The operator sees every pad; anyone else only the
//! pads of their own scope (another scope's pad is not found, as if it did not exist).

use serde::Serialize;

use crate::domain::digest::Digest;
use crate::domain::event::{kind, subject};
use crate::domain::pad::{read_lease_over, TicketType};
use crate::ops::{authorize, Ctx, OpResult};
use crate::store::{Flow, JournalQuery};

use super::{check_pad_id, load, pad_not_found, Manifest};

/// One block's place in the chain: hashes, size and type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockMeta {
    pub seq: u64,
    pub prev_hash: Digest,
    pub curr_hash: Digest,
    pub content_type: String,
    pub bytes: u64,
    pub created_at: i64,
    /// `locker gc` removed its payload (the hashes stay).
    pub pruned: bool,
}

/// What a read ticket can still do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TicketStatus {
    /// A `read_unlimited` ticket that is not revoked.
    Active,
    /// A `read_once` ticket never used yet.
    Unused,
    /// A `read_once` ticket whose read lease is open.
    Reading,
    /// A `read_once` ticket whose read lease is over.
    Used,
    Revoked,
    /// The journal names it but the store no longer holds it.
    Missing,
}

impl TicketStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Unused => "unused",
            Self::Reading => "reading",
            Self::Used => "used",
            Self::Revoked => "revoked",
            Self::Missing => "missing",
        }
    }
}

/// One read ticket, numbered in the order it was minted; no ticket id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TicketState {
    /// 1 for the pad's first ticket.
    pub number: usize,
    pub ticket_type: TicketType,
    pub status: TicketStatus,
    pub minted_at: i64,
    /// Who minted it (the journal's actor).
    pub minted_by: String,
    pub lease_started_at: Option<i64>,
    /// When a `read_once` ticket's read lease ends (or ended).
    pub lease_ends_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

/// A pad without its secrets.
#[derive(Debug, Clone, Serialize)]
pub struct PadInspection {
    pub scope: String,
    pub manifest: Manifest,
    pub blocks: Vec<BlockMeta>,
    pub tickets: Vec<TicketState>,
}

/// The entries that mint a ticket (their bodies carry `ticket_id` and `ticket_type`).
const MINTS: &[&str] = &[kind::PAD_CREATE, kind::PAD_DEPOSIT, kind::PAD_IMPORT, kind::PAD_TICKET];

/// Inspects a pad as `ctx.actor` may see it (see the module rules).
pub fn inspect(ctx: &mut Ctx<'_>, pad_id: &str) -> OpResult<PadInspection> {
    check_pad_id(pad_id)?;
    let now = ctx.now();
    let lease_seconds = ctx.settings.read_lease_seconds;
    let tx = ctx.store.read()?;
    authorize(tx.as_ref(), &ctx.actor)?;
    let pad = load(tx.as_ref(), pad_id)?;
    if !ctx.actor.is_operator() && pad.scope != ctx.actor.scope {
        return Err(pad_not_found());
    }
    let mut blocks = Vec::new();
    tx.for_each_block(&pad.id, &mut |b| {
        blocks.push(BlockMeta {
            seq: b.seq,
            prev_hash: b.prev_hash,
            curr_hash: b.curr_hash,
            bytes: b.pruned_bytes.unwrap_or(b.payload.len() as u64),
            content_type: b.content_type,
            created_at: b.created_at,
            pruned: b.pruned_bytes.is_some(),
        });
        Flow::Continue(())
    })?;
    // The tickets, in the order the journal minted them (it records each by its id).
    let mut minted: Vec<(Digest, TicketType, i64, String)> = Vec::new();
    let mut q = JournalQuery {
        subject: Some(subject::pad(&pad.id)),
        ascending: true,
        limit: 1000,
        // No append mints a ticket; without them, the subject index answers.
        skip_appends: true,
        ..JournalQuery::default()
    };
    loop {
        let page = tx.journal(&q)?;
        let Some(last) = page.last() else { break };
        q.after = Some(last.seq);
        for row in page {
            if !MINTS.contains(&row.kind.as_str()) {
                continue;
            }
            let entry = crate::ops::log::journal::LogEntry::from_row(row);
            let id = entry.body.get("ticket_id").and_then(|v| v.as_str());
            let Some(id) = id.and_then(|s| Digest::parse(s).ok()) else { continue };
            let t = entry.body.get("ticket_type").cloned();
            let Some(t) = t.and_then(|t| serde_json::from_value::<TicketType>(t).ok()) else {
                continue;
            };
            if !minted.iter().any(|(d, ..)| *d == id) {
                minted.push((id, t, entry.time, entry.actor));
            }
        }
    }
    let mut tickets = Vec::with_capacity(minted.len());
    for (i, (id, ticket_type, minted_at, minted_by)) in minted.into_iter().enumerate() {
        let row = tx.ticket(&id)?.filter(|r| r.pad_id == pad.id);
        let (status, started, revoked) = match &row {
            None => (TicketStatus::Missing, None, None),
            Some(r) => {
                let status = if r.revoked_at.is_some() {
                    TicketStatus::Revoked
                } else {
                    match r.ticket_type {
                        TicketType::ReadUnlimited => TicketStatus::Active,
                        TicketType::ReadOnce if r.lease_started_at.is_none() => {
                            TicketStatus::Unused
                        }
                        TicketType::ReadOnce
                            if read_lease_over(r.lease_started_at, lease_seconds, now) =>
                        {
                            TicketStatus::Used
                        }
                        TicketType::ReadOnce => TicketStatus::Reading,
                    }
                };
                (status, r.lease_started_at, r.revoked_at)
            }
        };
        tickets.push(TicketState {
            number: i + 1,
            ticket_type: row.as_ref().map_or(ticket_type, |r| r.ticket_type),
            status,
            minted_at: row.as_ref().map_or(minted_at, |r| r.created_at),
            minted_by,
            lease_started_at: started,
            lease_ends_at: started.map(|s| s.saturating_add(lease_seconds)),
            revoked_at: revoked,
        });
    }
    Ok(PadInspection {
        scope: pad.scope.clone(),
        manifest: Manifest::of(&pad, now),
        blocks,
        tickets,
    })
}
