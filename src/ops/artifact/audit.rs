//! The publication audit of a scope: every accepted, replayed and rejected publish, newest
//! first, read from the journal (questlock's `GET /v1/audit`).

use serde::{Deserialize, Serialize};

use crate::domain::event::Event;
use crate::domain::journal::Entry;
use crate::ops::{authorize, Ctx, ErrorKind, OpError, OpResult};
use crate::store::{JournalQuery, JournalRow};

/// Most audit entries one call returns.
pub const MAX_AUDIT_LIMIT: u64 = 1000;

/// One publish outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// The journal entry's sequence number.
    pub id: u64,
    pub agent_id: String,
    pub scope: String,
    pub key: String,
    pub operation_id: String,
    /// `accepted`, `replayed`, or the rejection (`version_conflict`, `operation_conflict`, …).
    pub outcome: String,
    pub expected_version: i64,
    /// The key's version after the publish (accepted), or its head when it was decided.
    pub current_version: i64,
    pub created_at: i64,
}

/// A scope's publish outcomes, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AuditLog {
    pub scope: String,
    pub entries: Vec<AuditEntry>,
}

/// A version number as the audit shows it (0 if it does not fit).
fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(0)
}

impl AuditEntry {
    /// The audit line of an `artifact.*` entry (its kind, actor, scope and time from the index
    /// columns, its body from the hashed bytes); `None` for other entries and for bodies that
    /// do not decode.
    fn of(row: &JournalRow) -> Option<Self> {
        let body = Entry::decode(&row.entry).ok()?.body;
        let (key, op_id, outcome, expected, current) = match Event::decode(&row.kind, &body).ok()? {
            Event::ArtifactPublish(b) => {
                (b.key, b.op_id, "accepted".to_owned(), b.expected_version, b.version)
            }
            Event::ArtifactReplay(b) => {
                (b.key, b.op_id, "replayed".to_owned(), b.expected_version, b.current_version)
            }
            Event::ArtifactReject(b) => {
                (b.key, b.op_id, b.reason, b.expected_version, b.current_version)
            }
            _ => return None,
        };
        Some(Self {
            id: row.seq,
            agent_id: row.actor.clone(),
            scope: row.scope.clone(),
            key,
            operation_id: op_id,
            outcome,
            expected_version: int(expected),
            current_version: int(current),
            created_at: row.time,
        })
    }
}

/// The newest `limit` publish outcomes of the actor's scope, by every agent.
pub fn audit(ctx: &mut Ctx<'_>, limit: u64) -> OpResult<AuditLog> {
    if limit == 0 || limit > MAX_AUDIT_LIMIT {
        return Err(OpError::new(
            ErrorKind::BadRequest,
            "invalid",
            format!("limit must be an integer between 1 and {MAX_AUDIT_LIMIT}"),
        ));
    }
    let actor = ctx.actor.clone();
    let tx = ctx.store.read()?;
    authorize(tx.as_ref(), &actor)?;
    let q = JournalQuery {
        kind: Some("artifact.".into()),
        scope: Some(actor.scope.clone()),
        limit,
        ..JournalQuery::default()
    };
    let entries = tx.journal(&q)?.iter().filter_map(AuditEntry::of).collect();
    Ok(AuditLog { scope: actor.scope, entries })
}
