//! Leases on work items: agentstate's lease API (`POST /lease`, `/heartbeat`, `/complete`,
//! `GET /ledger`) with locker's semantics (exclusive leases with a holder and a fencing
//! token, locker's status codes and `{"error", "detail"}` bodies), and locker's own lease
//! routes (release, show, list, reap).

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::{json, Value};

use super::agentstate::{diff_aliases, fields, lease_aliases, ok_or_respond, with_aliases};
use super::caller::{act, act_write};
use super::http::{self, Query};
use super::AppState;
use crate::api::{AcquireLease, CompleteLease, Heartbeat, LeaseRef, ListLeases, Locker as _};
use crate::domain::work::{LeaseState, DEFAULT_LEASE_TTL};
use crate::ops::OpError;

/// `POST /lease {work_ref, ttl?, holder?, reopen?}`: acquire the work item, or get back the
/// caller's own live lease.
pub async fn acquire(State(s): State<AppState>, headers: HeaderMap, b: Body) -> Response {
    let f = fields!(s, headers, b);
    let work = ok_or_respond!(f.required_any(&["work_ref", "work"]));
    let ttl = ok_or_respond!(f.int("ttl")).unwrap_or(DEFAULT_LEASE_TTL);
    let holder = ok_or_respond!(f.text("holder"));
    let reopen = ok_or_respond!(f.flag("reopen"));
    let result = act_write(&s, &headers, move |ctx| {
        ctx.lease_acquire(AcquireLease { work: &work, ttl, holder: holder.as_deref(), reopen })
    })
    .await;
    with_aliases(result, lease_aliases)
}

/// `POST /heartbeat {work_ref, lease, details?}`: extend the current lease by its TTL.
pub async fn heartbeat(State(s): State<AppState>, headers: HeaderMap, b: Body) -> Response {
    let f = fields!(s, headers, b);
    let work = ok_or_respond!(f.required_any(&["work_ref", "work"]));
    let id = ok_or_respond!(f.required_any(&["lease", "lease_id"]));
    let details = ok_or_respond!(f.text("details"));
    let result = act_write(&s, &headers, move |ctx| {
        ctx.lease_heartbeat(Heartbeat { work: &work, lease: &id, details: details.as_deref() })
    })
    .await;
    with_aliases(result, lease_aliases)
}

/// `POST /complete {work_ref, lease, result?}`: end the lease as done; returns the plan diff.
pub async fn complete(State(s): State<AppState>, headers: HeaderMap, b: Body) -> Response {
    let f = fields!(s, headers, b);
    let work = ok_or_respond!(f.required_any(&["work_ref", "work"]));
    let id = ok_or_respond!(f.required_any(&["lease", "lease_id"]));
    let text = ok_or_respond!(f.text("result"));
    let result = act_write(&s, &headers, move |ctx| {
        ctx.lease_complete(CompleteLease { work: &work, lease: &id, result: text.as_deref() })
    })
    .await;
    with_aliases(result, |m| {
        lease_aliases(m);
        if m.get("state").and_then(Value::as_str) == Some("completed") {
            m.insert("status".into(), Value::String("done".into()));
        }
        if let Some(d) = m.get_mut("diff") {
            diff_aliases(d);
        }
    })
}

/// `GET /ledger?work=W[&diff=1]`: the work item's history with its integrity verdict, and the
/// plan diff when `diff` is given and not empty.
pub async fn ledger(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let Some(work) = q.get("work").or_else(|| q.get("work_ref")).map(str::to_owned) else {
        return http::error_response(&OpError::bad_request("`work` is required"));
    };
    let want_diff = q.get("diff").is_some_and(|d| !d.is_empty());
    let result = act(&s, &headers, move |ctx| {
        let history = ctx.work_history(&work)?;
        let diff = if want_diff { ctx.plan_diff(&work).ok() } else { None };
        Ok((history, diff))
    })
    .await;
    match result {
        Ok((history, diff)) => {
            let mut v = serde_json::to_value(&history).unwrap_or(Value::Null);
            if let Some(m) = v.as_object_mut() {
                m.insert("work_ref".into(), json!(history.work));
                m.insert(
                    "first_broken_event_id".into(),
                    json!(history.first_broken.as_ref().and_then(|p| p.seq)),
                );
                let mut d = serde_json::to_value(&diff).unwrap_or(Value::Null);
                diff_aliases(&mut d);
                m.insert("diff".into(), d);
                m.insert("events".into(), json!(history.entries));
            }
            http::json(200, &v)
        }
        Err(e) => http::error_response(&e),
    }
}

/// `POST /v1/lease/release {work_ref, lease}`: end the lease without completing the work.
pub async fn release(State(s): State<AppState>, headers: HeaderMap, b: Body) -> Response {
    let f = fields!(s, headers, b);
    let work = ok_or_respond!(f.required_any(&["work_ref", "work"]));
    let id = ok_or_respond!(f.required_any(&["lease", "lease_id"]));
    let result =
        act_write(&s, &headers, move |ctx| ctx.lease_release(LeaseRef { work: &work, lease: &id }))
            .await;
    with_aliases(result, lease_aliases)
}

/// `GET /v1/lease?work=W`: the work item's newest lease and how many there were.
pub async fn show(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let work = q.get("work").unwrap_or_default().to_owned();
    http::respond(200, act(&s, &headers, move |ctx| ctx.lease_show(&work)).await)
}

/// `GET /v1/leases?state=&limit=`: the leases of the caller's scope.
pub async fn list(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let state = match q.get("state") {
        None => None,
        Some(v) => match serde_json::from_value::<LeaseState>(json!(v)) {
            Ok(st) => Some(st),
            Err(_) => {
                return http::error_response(&OpError::bad_request(format!(
                    "unknown lease state `{v}`"
                )))
            }
        },
    };
    let limit = ok_or_respond!(q.int("limit")).unwrap_or(1000);
    let limit = u64::try_from(limit).unwrap_or(0);
    let result = act(&s, &headers, move |ctx| ctx.lease_list(ListLeases { state, limit })).await;
    http::respond(200, result)
}

/// `POST /v1/leases/reap`: turn every expired lease of the caller's scope into `abandoned`.
pub async fn reap(State(s): State<AppState>, headers: HeaderMap) -> Response {
    http::respond(200, act_write(&s, &headers, |ctx| ctx.lease_reap()).await)
}
