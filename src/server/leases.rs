//! agentstate's lease API (`POST /lease`, `/heartbeat`, `/manifest`, `/event`, `/complete`,
//! `GET /ledger`) with locker's semantics: exclusive leases with a holder and a fencing
//! token, a current lease required for every write, plans as their own records, and
//! locker's status codes and `{"error", "detail"}` bodies. Responses carry locker's fields
//! plus agentstate's names (`lease`, `status`, `work_ref`, `committed`, `logged`, …).
//!
//! A bearer token makes the request act as the token's agent (the lease's holder); without
//! one the request acts anonymously, naming a `holder` in the body if it wants to, unless the
//! server runs with `--require-token`.

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Serialize;
use serde_json::{json, Value};

use super::http::{self, read_body, Query};
use super::pads::anonymous;
use super::AppState;
use crate::domain::secret::Secret;
use crate::domain::work::{LeaseState, DEFAULT_LEASE_TTL};
use crate::ops::step::StepInput;
use crate::ops::wire::{Fields, MAX_LEASE_BODY_BYTES};
use crate::ops::{self, lease, ledger, plan, step, OpError, OpResult};

/// The caller's bearer token; `None` to act anonymously (refused with `--require-token`).
fn caller(s: &AppState, headers: &HeaderMap) -> OpResult<Option<Secret>> {
    match http::bearer_token(headers) {
        Some(t) => Ok(Some(t)),
        None if s.options().require_token => Err(OpError::unauthorized(
            "this server requires a bearer token on the lease routes",
        )
        .hint("Send `Authorization: Bearer TOKEN` (remote CLI: set `LOCKER_TOKEN`); `locker token create` makes one.")),
        None => Ok(None),
    }
}

/// Runs `f` as the token's agent, or anonymously when no token is sent and none is required.
async fn act<T, F>(s: &AppState, headers: &HeaderMap, f: F) -> OpResult<T>
where
    T: Send + 'static,
    F: FnOnce(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
{
    match caller(s, headers)? {
        Some(t) => s.run_as_token(t, f).await,
        None => s.run(anonymous(), f).await,
    }
}

/// Like [`act`], for an operation that writes: it runs in the writer's next group commit.
async fn act_write<T, F>(s: &AppState, headers: &HeaderMap, f: F) -> OpResult<T>
where
    T: Send + 'static,
    F: FnOnce(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
{
    match caller(s, headers)? {
        Some(t) => s.write_as_token(t, f).await,
        None => s.write(anonymous(), f).await,
    }
}

async fn body(s: &AppState, headers: &HeaderMap, body: Body) -> Result<Fields, Response> {
    let raw = read_body(headers, body, MAX_LEASE_BODY_BYTES, s.options().body_timeout)
        .await
        .map_err(|e| {
            http::body_error(e, |_| {
                OpError::too_large(format!("request body exceeds {MAX_LEASE_BODY_BYTES} bytes"))
            })
        })?;
    Fields::parse(&raw).map_err(|e| http::error_response(&e))
}

/// The outcome as JSON with agentstate's names added.
fn with_aliases<T: Serialize>(
    result: OpResult<T>,
    add: impl FnOnce(&mut serde_json::Map<String, Value>),
) -> Response {
    match result {
        Ok(v) => {
            let mut value = serde_json::to_value(&v).unwrap_or(Value::Null);
            if let Some(m) = value.as_object_mut() {
                add(m);
            }
            http::json(200, &value)
        }
        Err(e) => http::error_response(&e),
    }
}

fn lease_aliases(m: &mut serde_json::Map<String, Value>) {
    if let Some(id) = m.get("lease_id").cloned() {
        m.insert("lease".into(), id);
    }
    if let Some(state) = m.get("state").cloned() {
        m.insert("status".into(), state);
    }
    if let Some(work) = m.get("work").cloned() {
        m.insert("work_ref".into(), work);
    }
}

fn diff_aliases(diff: &mut Value) {
    if let Some(d) = diff.as_object_mut() {
        if let Some(h) = d.get("has_plan").cloned() {
            d.insert("has_manifest".into(), h);
        }
    }
}

macro_rules! fields {
    ($s:expr, $headers:expr, $body:expr) => {
        match body(&$s, &$headers, $body).await {
            Ok(f) => f,
            Err(r) => return r,
        }
    };
}

macro_rules! ok_or_respond {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return http::error_response(&e),
        }
    };
}

/// `POST /lease {work_ref, ttl?, holder?, reopen?}`: acquire the work item, or get back the
/// caller's own live lease.
pub async fn acquire(State(s): State<AppState>, headers: HeaderMap, b: Body) -> Response {
    let f = fields!(s, headers, b);
    let work = ok_or_respond!(f.required_any(&["work_ref", "work"]));
    let ttl = ok_or_respond!(f.int("ttl")).unwrap_or(DEFAULT_LEASE_TTL);
    let holder = ok_or_respond!(f.text("holder"));
    let reopen = ok_or_respond!(f.flag("reopen"));
    let result = act_write(&s, &headers, move |ctx| {
        lease::acquire(ctx, &work, ttl, holder.as_deref(), reopen)
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
    let result =
        act_write(&s, &headers, move |ctx| lease::heartbeat(ctx, &work, &id, details.as_deref()))
            .await;
    with_aliases(result, lease_aliases)
}

/// `POST /complete {work_ref, lease, result?}`: end the lease as done; returns the plan diff.
pub async fn complete(State(s): State<AppState>, headers: HeaderMap, b: Body) -> Response {
    let f = fields!(s, headers, b);
    let work = ok_or_respond!(f.required_any(&["work_ref", "work"]));
    let id = ok_or_respond!(f.required_any(&["lease", "lease_id"]));
    let text = ok_or_respond!(f.text("result"));
    let result =
        act_write(&s, &headers, move |ctx| lease::complete(ctx, &work, &id, text.as_deref())).await;
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

/// `POST /manifest {work_ref, lease, steps}`: commit the plan (a new version if it differs).
pub async fn manifest(State(s): State<AppState>, headers: HeaderMap, b: Body) -> Response {
    let f = fields!(s, headers, b);
    let work = ok_or_respond!(f.required_any(&["work_ref", "work"]));
    let id = ok_or_respond!(f.required_any(&["lease", "lease_id"]));
    let steps = ok_or_respond!(f.strings("steps"));
    let result = act_write(&s, &headers, move |ctx| plan::commit(ctx, &work, &id, steps)).await;
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
pub async fn event(State(s): State<AppState>, headers: HeaderMap, b: Body) -> Response {
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
    let signing =
        ok_or_respond!(crate::ops::sign::from_fields(signer.as_deref(), signature.as_deref()));
    let result = act_write(&s, &headers, move |ctx| {
        let input = StepInput {
            step: &name,
            planned: planned.as_deref(),
            executed: executed.as_deref(),
            gate: gate.as_deref(),
            signing: signing.as_ref(),
        };
        step::record(ctx, &work, &id, &input)
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
        let history = ledger::history(ctx, &work)?;
        let diff = if want_diff { plan::diff(ctx, &work).ok() } else { None };
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
    let result = act_write(&s, &headers, move |ctx| lease::release(ctx, &work, &id)).await;
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
    http::respond(200, act(&s, &headers, move |ctx| lease::show(ctx, &work)).await)
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
    http::respond(200, act(&s, &headers, move |ctx| lease::list(ctx, state, limit)).await)
}

/// `POST /v1/leases/reap`: turn every expired lease of the caller's scope into `abandoned`.
pub async fn reap(State(s): State<AppState>, headers: HeaderMap) -> Response {
    http::respond(200, act_write(&s, &headers, lease::reap).await)
}

/// `GET /v1/manifest?work=W[&version=V]`: a plan version (default: the newest).
pub async fn plan_show(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let work = q.get("work").unwrap_or_default().to_owned();
    let version = ok_or_respond!(q.int("version")).map(|v| u64::try_from(v).unwrap_or(0));
    http::respond(200, act(&s, &headers, move |ctx| plan::show(ctx, &work, version)).await)
}

/// `GET /v1/manifest/diff?work=W`: planned steps, holes and extras.
pub async fn plan_diff(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let work = q.get("work").unwrap_or_default().to_owned();
    http::respond(200, act(&s, &headers, move |ctx| plan::diff(ctx, &work)).await)
}
