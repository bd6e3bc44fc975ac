//! agentstate's wire conventions, shared by the lease and plan routes: who acts is decided by
//! [`super::caller`] (a bearer token's agent, or an anonymous caller naming a `holder` in the
//! body, unless the server runs with `--require-token`). Bodies are JSON objects read with
//! clear errors, and responses carry locker's fields plus agentstate's names (`lease`,
//! `status`, `work_ref`, …).

use axum::body::Body;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Serialize;
use serde_json::Value;

use super::http::{self, read_body};
use super::wire::{Fields, MAX_LEASE_BODY_BYTES};
use super::AppState;
use crate::ops::{OpError, OpResult};

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
