//! agentstate's wire conventions, shared by the lease and plan routes: a bearer token makes
//! the request act as the token's agent (the lease's holder); without one it acts anonymously,
//! naming a `holder` in the body if it wants to, unless the server runs with
//! `--require-token`. Bodies are JSON objects read with clear errors, and responses carry
//! locker's fields plus agentstate's names (`lease`, `status`, `work_ref`, …).

use axum::body::Body;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Serialize;
use serde_json::Value;

use super::http::{self, anonymous, read_body};
use super::wire::{Fields, MAX_LEASE_BODY_BYTES};
use super::AppState;
use crate::domain::secret::Secret;
use crate::ops::{self, OpError, OpResult};

/// The caller's bearer token; `None` to act anonymously (refused with `--require-token`).
pub fn caller(s: &AppState, headers: &HeaderMap) -> OpResult<Option<Secret>> {
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
pub async fn act<T, F>(s: &AppState, headers: &HeaderMap, f: F) -> OpResult<T>
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
pub async fn act_write<T, F>(s: &AppState, headers: &HeaderMap, f: F) -> OpResult<T>
where
    T: Send + 'static,
    F: FnOnce(&mut ops::Ctx<'_>) -> OpResult<T> + Send + 'static,
{
    match caller(s, headers)? {
        Some(t) => s.write_as_token(t, f).await,
        None => s.write(anonymous(), f).await,
    }
}

pub async fn body(s: &AppState, headers: &HeaderMap, body: Body) -> Result<Fields, Response> {
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
pub fn with_aliases<T: Serialize>(
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

pub fn lease_aliases(m: &mut serde_json::Map<String, Value>) {
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

pub fn diff_aliases(diff: &mut Value) {
    if let Some(d) = diff.as_object_mut() {
        if let Some(h) = d.get("has_plan").cloned() {
            d.insert("has_manifest".into(), h);
        }
    }
}

/// The body's fields, or return the response refusing it.
macro_rules! fields {
    ($s:expr, $headers:expr, $body:expr) => {
        match $crate::server::agentstate::body(&$s, &$headers, $body).await {
            Ok(f) => f,
            Err(r) => return r,
        }
    };
}
pub(crate) use fields;

/// The value, or return the error's response.
macro_rules! ok_or_respond {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return $crate::server::http::error_response(&e),
        }
    };
}
pub(crate) use ok_or_respond;
