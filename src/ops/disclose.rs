//! Least disclosure: what a reader who is not the operator may see of the journal, of the
//! verification report and of the leases. One rule for every front end (HTTP, MCP, a CLI with
//! `LOCKER_TOKEN`):
//!
//! - an agent (a token) sees its own scope: a page of the journal keeps its place in the chain,
//!   with every entry of another scope shown as a redacted placeholder (its sequence number and
//!   hashes, so that the links still verify, and nothing else);
//! - an anonymous HTTP caller sees the `default` scope the same way, and never the metadata
//!   that is a credential's digest or a capability: write-key hashes, ticket ids, token ids and
//!   lease ids are replaced by `"redacted"`;
//! - the verification report keeps its verdicts and counts for anyone, but only the operator
//!   learns what is broken (subjects and details name agents, scopes and keys of every scope);
//! - the operator may look into every scope, anyone else into its own ([`scopes`]).

use serde_json::Value;

use crate::ops::log::journal::{self, LogEntry, LogPage};
use crate::ops::verify::{Problem, RepoReport};
use crate::ops::work::lease::{LeaseList, LeaseView, WorkStatus};
use crate::ops::{authorize, Actor, ActorKind, Ctx, OpError, OpResult};
use crate::store::{Flow, JournalQuery};

/// What stands in for a withheld value.
pub const REDACTED: &str = "redacted";

/// Body fields that are a credential's digest or a capability: never shown to an anonymous
/// caller.
const SECRET_FIELDS: &[&str] = &["write_key_hash", "ticket_id", "token_id", "lease_id"];

/// Replaces the value of every field named in `SECRET_FIELDS` (write-key hashes, ticket, token
/// and lease ids) in `v`, at any depth.
pub fn redact_secrets(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if SECRET_FIELDS.contains(&k.as_str()) && !x.is_null() {
                    *x = Value::String(REDACTED.into());
                } else {
                    redact_secrets(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(redact_secrets),
        _ => {}
    }
}

/// A journal entry of another scope: its place in the chain and nothing else.
fn placeholder(e: LogEntry) -> LogEntry {
    LogEntry {
        kind: REDACTED.into(),
        actor: String::new(),
        scope: String::new(),
        subject: String::new(),
        body: Value::Null,
        ..e
    }
}

/// A page of the journal as `ctx.actor` may see it (see the module rules).
pub fn journal(ctx: &mut Ctx<'_>, q: &JournalQuery) -> OpResult<LogPage> {
    if ctx.actor.is_operator() {
        return journal::log(ctx, q);
    }
    let own = ctx.actor.scope.clone();
    let anonymous = ctx.actor.kind == ActorKind::Anonymous;
    let unfiltered = q.kind.is_none()
        && q.subject.is_none()
        && q.actor.is_none()
        && q.scope.as_ref().is_none_or(|s| *s == own);
    let mut page = if unfiltered {
        // The whole range, other scopes' entries as placeholders: the chain still links.
        if q.limit == 0 || q.limit > journal::MAX_LOG_LIMIT {
            return Err(OpError::unprocessable(format!(
                "limit must be between 1 and {}",
                journal::MAX_LOG_LIMIT
            )));
        }
        let tx = ctx.store.read()?;
        authorize(tx.as_ref(), &ctx.actor)?;
        let rows = tx.journal(&JournalQuery { scope: None, ..q.clone() })?;
        let entries = rows
            .into_iter()
            .map(LogEntry::from_row)
            .map(|e| if e.scope == own { e } else { placeholder(e) })
            .collect();
        LogPage { entries }
    } else {
        // A filtered page is no stretch of the chain: only the own scope's entries.
        journal::log(ctx, q)?
    };
    if anonymous {
        for e in &mut page.entries {
            redact_secrets(&mut e.body);
        }
    }
    Ok(page)
}

/// The verification report as `actor` may see it: what is broken is named to the operator
/// only.
pub fn report(actor: &Actor, mut r: RepoReport) -> RepoReport {
    if actor.is_operator() {
        return r;
    }
    let hide = |p: &mut Problem| {
        p.subject = REDACTED.into();
        p.detail = "redacted: the operator's `locker verify` names what is broken".into();
    };
    r.problems.iter_mut().for_each(hide);
    r.first_broken.values_mut().for_each(hide);
    r
}

fn lease_view(actor: &Actor, v: &mut LeaseView) {
    if actor.kind == ActorKind::Anonymous {
        v.lease_id = REDACTED.into();
    }
}

/// A lease listing as `actor` may see it: no lease ids for an anonymous caller (a lease id is
/// the capability agentstate's anonymous callers act with).
pub fn leases(actor: &Actor, mut l: LeaseList) -> LeaseList {
    l.leases.iter_mut().for_each(|v| lease_view(actor, v));
    l
}

/// A work item's status as `actor` may see it (see [`leases`]).
pub fn work_status(actor: &Actor, mut w: WorkStatus) -> WorkStatus {
    lease_view(actor, &mut w.lease);
    w
}

/// The scopes `ctx.actor` may look into: every scope that has agents, leases or artifacts (and
/// `default`) for the operator; its own scope for anyone else.
pub fn scopes(ctx: &mut Ctx<'_>) -> OpResult<Vec<String>> {
    if !ctx.actor.is_operator() {
        return Ok(vec![ctx.actor.scope.clone()]);
    }
    let tx = ctx.store.read()?;
    let mut all = std::collections::BTreeSet::new();
    all.insert(crate::domain::token::DEFAULT_SCOPE.to_owned());
    tx.for_each_agent(&mut |a| {
        all.insert(a.scope);
        Flow::Continue(())
    })?;
    tx.for_each_lease(&mut |l| {
        all.insert(l.scope);
        Flow::Continue(())
    })?;
    tx.for_each_artifact_head(&mut |h| {
        all.insert(h.scope);
        Flow::Continue(())
    })?;
    Ok(all.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_at_any_depth() {
        let mut v = serde_json::json!({
            "pad_id": "p", "write_key_hash": "ab", "ticket_id": "cd", "ticket_type": "read_once",
            "blocks": [{"seq": 0, "lease_id": "l"}], "signed": null, "token_id": null,
        });
        redact_secrets(&mut v);
        assert_eq!(
            v,
            serde_json::json!({
                "pad_id": "p", "write_key_hash": "redacted", "ticket_id": "redacted",
                "ticket_type": "read_once", "blocks": [{"seq": 0, "lease_id": "redacted"}],
                "signed": null, "token_id": null,
            })
        );
    }
}
