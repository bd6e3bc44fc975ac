//! A work item's plan and steps: agentstate's `POST /manifest` (commit a plan) and
//! `POST /event` (record a step) under the current lease, and locker's own `GET /v1/manifest`
//! and `GET /v1/manifest/diff`. (agentstate calls a plan a manifest; the routes keep its
//! names.)

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::{json, Value};

use super::agentstate::{fields, ok_or_respond, with_aliases};
use super::caller::{act, act_write};
use super::http::{self, Query};
use super::AppState;
use crate::api::{CommitPlan, Locker as _, RecordStep, ShowPlan};
use crate::ops::keys;
use crate::ops::work::step::StepInput;

/// `POST /manifest {work_ref, lease, steps}`: commit the plan (a new version if it differs).
pub async fn commit(State(s): State<AppState>, headers: HeaderMap, b: Body) -> Response {
    let f = fields!(s, headers, b);
    let work = ok_or_respond!(f.required_any(&["work_ref", "work"]));
    let id = ok_or_respond!(f.required_any(&["lease", "lease_id"]));
    let steps = ok_or_respond!(f.strings("steps"));
    let result = act_write(&s, &headers, move |ctx| {
        ctx.plan_commit(CommitPlan { work: &work, lease: &id, steps: &steps })
    })
    .await;
    with_aliases(result, |m| {
        let n = m.get("steps").and_then(Value::as_array).map_or(0, Vec::len);
        m.insert("committed".into(), json!(n));
        if let Some(w) = m.get("work").cloned() {
            m.insert("work_ref".into(), w);
        }
    })
}

/// `POST /event {work_ref, lease, step, planned?, executed?, gate?}`: record one step under the
/// current lease (the identical record again is a replay, a different one a conflict).
pub async fn step(State(s): State<AppState>, headers: HeaderMap, b: Body) -> Response {
    let f = fields!(s, headers, b);
    let work = ok_or_respond!(f.required_any(&["work_ref", "work"]));
    let id = ok_or_respond!(f
        .required_any(&["lease", "lease_id"])
        .map_err(|e| e.hint("locker records a step only under the work item's current lease.")));
    let name = ok_or_respond!(f.required("step"));
    let planned = ok_or_respond!(f.text("planned"));
    let executed = ok_or_respond!(f.text("executed"));
    let gate = ok_or_respond!(f.text("gate"));
    let signer = ok_or_respond!(f.text("signer"));
    let signature = ok_or_respond!(f.text("signature"));
    let signing = ok_or_respond!(keys::from_fields(signer.as_deref(), signature.as_deref()));
    let result = act_write(&s, &headers, move |ctx| {
        let step = StepInput {
            step: &name,
            planned: planned.as_deref(),
            executed: executed.as_deref(),
            gate: gate.as_deref(),
            signing: signing.as_ref(),
        };
        ctx.step_record(RecordStep { work: &work, lease: &id, step })
    })
    .await;
    with_aliases(result, |m| {
        if let Some(st) = m.get("step").cloned() {
            m.insert("logged".into(), st);
        }
        if let Some(w) = m.get("work").cloned() {
            m.insert("work_ref".into(), w);
        }
    })
}

/// `GET /v1/manifest?work=W[&version=V]`: a plan version (default: the newest).
pub async fn show(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let work = q.get("work").unwrap_or_default().to_owned();
    let version = ok_or_respond!(q.int("version")).map(|v| u64::try_from(v).unwrap_or(0));
    let result = act(&s, &headers, move |ctx| ctx.plan_show(ShowPlan { work: &work, version }));
    http::respond(200, result.await)
}

/// `GET /v1/manifest/diff?work=W`: planned steps, holes and extras.
pub async fn diff(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let work = q.get("work").unwrap_or_default().to_owned();
    http::respond(200, act(&s, &headers, move |ctx| ctx.plan_diff(&work)).await)
}
