//! The publication audit of a scope: every accepted, replayed and rejected publish, newest
//! first, read from the journal (questlock's `GET /v1/audit`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::journal::LogEntry;
use super::{authorize, Ctx, ErrorKind, OpError, OpResult};
use crate::store::JournalQuery;

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

fn int(body: &Value, k: &str) -> i64 {
    body.get(k).and_then(Value::as_i64).unwrap_or(0)
}

fn text(body: &Value, k: &str) -> String {
    body.get(k).and_then(Value::as_str).unwrap_or_default().to_owned()
}

impl AuditEntry {
    fn of(e: LogEntry) -> Option<Self> {
        let b = &e.body;
        let (outcome, current) = match e.kind.as_str() {
            "artifact.publish" => ("accepted".to_owned(), int(b, "version")),
            "artifact.replay" => ("replayed".to_owned(), int(b, "current_version")),
            "artifact.reject" => (text(b, "reason"), int(b, "current_version")),
            _ => return None,
        };
        Some(Self {
            id: e.seq,
            agent_id: e.actor,
            scope: e.scope,
            key: text(b, "key"),
            operation_id: text(b, "op_id"),
            outcome,
            expected_version: int(b, "expected_version"),
            current_version: current,
            created_at: e.time,
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
    let entries =
        tx.journal(&q)?.into_iter().filter_map(|r| AuditEntry::of(LogEntry::from_row(r))).collect();
    Ok(AuditLog { scope: actor.scope, entries })
}
