//! Artifacts: questlock's artifact API (`GET/POST /v1/artifact`, `GET /v1/artifacts`,
//! `GET /v1/audit`): bearer tokens, questlock's error shape
//! `{"code", "message", "current_version"}` and its response headers. With `?format=locker`
//! the same routes speak locker's own shapes (the remote CLI uses them); `GET
//! /v1/artifact/log` is locker's own.

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::Response;
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::http::{self, read_body, Query};
use super::{wire, AppState};
use crate::api::{ArtifactHistory, GetArtifact, ListArtifacts, Locker as _};
use crate::domain::secret::Secret;
use crate::ops::artifact::{ArtifactView, PublishRequest, MAX_LIST_LIMIT};
use crate::ops::{ErrorKind, OpError, OpResult};
use crate::output::rfc3339;

/// questlock's headers on every response of its routes.
fn questlock_headers(r: &mut Response) {
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json; charset=utf-8"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
}

pub(super) fn qjson<T: Serialize>(status: u16, body: &T) -> Response {
    let mut r = http::json(status, body);
    questlock_headers(&mut r);
    r
}

/// questlock's error body: `{"code", "message", "current_version"?}` (the version only when
/// it is not 0). Internal failures are not described.
pub(super) fn qerror(e: &OpError) -> Response {
    let mut body = Map::new();
    let internal = http::undescribed(e);
    body.insert("code".into(), Value::String(e.code.to_string()));
    let message = if internal { "internal server error".to_owned() } else { e.detail.clone() };
    body.insert("message".into(), Value::String(message));
    if let Some(v) = e.fields.get("current_version").filter(|v| v.as_i64() != Some(0)) {
        body.insert("current_version".into(), v.clone());
    }
    let mut r = qjson(e.kind.http_status(), &body);
    if e.kind == ErrorKind::Unauthorized {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    http::tag_error(&mut r, &e.code);
    r
}

/// Whether the caller asked for locker's own shapes.
fn native(q: &Query) -> bool {
    q.get("format") == Some("locker")
}

fn fail(native: bool, e: &OpError) -> Response {
    if native {
        let mut r = http::error_response(e);
        if e.kind == ErrorKind::Unauthorized {
            r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        r
    } else {
        qerror(e)
    }
}

fn answer<T: Serialize>(
    native: bool,
    result: OpResult<T>,
    quest: impl FnOnce(T) -> Value,
) -> Response {
    match result {
        Ok(v) if native => http::json(200, &v),
        Ok(v) => qjson(200, &quest(v)),
        Err(e) => fail(native, &e),
    }
}

fn token(headers: &HeaderMap) -> OpResult<Secret> {
    http::bearer_token(headers)
        .ok_or_else(|| {
            OpError::unauthorized("valid bearer token required")
                .hint("Send `Authorization: Bearer TOKEN` (remote CLI: set `LOCKER_TOKEN`); `locker token create` makes one.")
        })
}

/// An artifact version in questlock's shape (its fields, `updated_at` as RFC 3339), with
/// locker's fields beside them.
fn questlock_view(v: &ArtifactView) -> Value {
    let mut value = serde_json::to_value(v).unwrap_or(Value::Null);
    if let Some(m) = value.as_object_mut() {
        m.insert("updated_at".into(), Value::String(rfc3339(v.updated_at)));
    }
    value
}

/// `GET /v1/artifact?key=K[&version=V]`: a key's head (or one version) with its content.
pub async fn get(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let native = native(&q);
    let token = match token(&headers) {
        Ok(t) => t,
        Err(e) => return fail(native, &e),
    };
    let key = q.get("key").unwrap_or_default().to_owned();
    let version = q.int("version");
    let result = s
        .run_as_token(token, move |ctx| {
            let version =
                version.map_err(|e| OpError::new(ErrorKind::BadRequest, "invalid", e.detail))?;
            ctx.artifact_get(GetArtifact { key: &key, version })
        })
        .await;
    answer(native, result, |v| questlock_view(&v))
}

/// `POST /v1/artifact`: publish against the expected version, idempotent per operation id.
pub async fn publish(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let native = native(&q);
    let token = match token(&headers) {
        Ok(t) => t,
        Err(e) => return fail(native, &e),
    };
    let raw =
        match read_body(&headers, body, wire::MAX_PUBLISH_BODY_BYTES, s.options().body_timeout)
            .await
        {
            Ok(b) => b,
            Err(e) => {
                return match e {
                    http::BodyError::TooLarge(_) => fail(native, &wire::publish_too_large()),
                    other => http::body_error(other, |_| wire::publish_too_large()),
                }
            }
        };
    let result = s
        .write_as_token(token, move |ctx| {
            let b = wire::publish_request(&raw, native)?;
            let fence = b.fence.as_deref().map(crate::ops::work::lease::parse_fence).transpose()?;
            let signing =
                crate::ops::keys::from_fields(b.signer.as_deref(), b.signature.as_deref())?;
            let req = PublishRequest {
                key: &b.key,
                expected_version: b.expected_version,
                op_id: &b.operation_id,
                content: &b.content,
                fence: fence.as_ref(),
                signing: signing.as_ref(),
            };
            ctx.artifact_publish(req)
        })
        .await;
    answer(
        native,
        result,
        |p| json!({"artifact": questlock_view(&p.artifact), "replayed": p.replayed}),
    )
}

/// `GET /v1/artifacts`: the scope's keys by key. questlock's form: an array of up to 1000
/// artifacts with empty `content`; locker's form (`format=locker&after=&limit=`): a page.
pub async fn list(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let native = native(&q);
    let token = match token(&headers) {
        Ok(t) => t,
        Err(e) => return fail(native, &e),
    };
    let after = if native { q.get("after").map(str::to_owned) } else { None };
    let limit = if native { q.int("limit") } else { Ok(Some(1000)) };
    let result = s
        .run_as_token(token, move |ctx| {
            let limit = u64::try_from(limit?.unwrap_or(1000)).map_err(|_| {
                OpError::new(ErrorKind::BadRequest, "invalid", "limit must be positive")
            })?;
            ctx.artifact_list(ListArtifacts { after: after.as_deref(), limit })
        })
        .await;
    answer(native, result, |l| {
        Value::Array(
            l.artifacts
                .into_iter()
                .map(|a| {
                    json!({
                        "scope": l.scope, "key": a.key, "version": a.version, "content": "",
                        "updated_at": rfc3339(a.updated_at), "sha256": a.sha256, "size": a.size,
                        "actor": a.actor,
                    })
                })
                .collect(),
        )
    })
}

/// `GET /v1/artifact/log?key=K&after=&limit=`: a key's versions, oldest first (locker's).
pub async fn log(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let token = match token(&headers) {
        Ok(t) => t,
        Err(e) => return fail(true, &e),
    };
    let key = q.get("key").unwrap_or_default().to_owned();
    let after = q.int("after");
    let limit = q.int("limit");
    let result = s
        .run_as_token(token, move |ctx| {
            let bad = |e: OpError| OpError::new(ErrorKind::BadRequest, "invalid", e.detail);
            let after = u64::try_from(after.map_err(bad)?.unwrap_or(0)).unwrap_or(0);
            let limit =
                u64::try_from(limit.map_err(bad)?.unwrap_or(MAX_LIST_LIMIT as i64)).unwrap_or(0);
            ctx.artifact_log(ArtifactHistory { key: &key, after, limit })
        })
        .await;
    http::respond(200, result)
}

/// `GET /v1/audit[?limit=N]`: the scope's publish outcomes, newest first. `limit` (default
/// 100) must occur at most once and be an integer 1–1000.
pub async fn audit(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let native = native(&q);
    let token = match token(&headers) {
        Ok(t) => t,
        Err(e) => return fail(native, &e),
    };
    let limit = match (q.count("limit"), q.get("limit")) {
        (0, _) => Some(100),
        (1, Some(v)) => v.parse::<u64>().ok().filter(|n| (1..=1000).contains(n)),
        _ => None,
    };
    let result = s
        .run_as_token(token, move |ctx| {
            let limit = limit.ok_or_else(|| {
                OpError::new(
                    ErrorKind::BadRequest,
                    "invalid",
                    "limit must be an integer between 1 and 1000",
                )
            })?;
            ctx.artifact_audit(limit)
        })
        .await;
    answer(native, result, |a| {
        Value::Array(
            a.entries
                .into_iter()
                .map(|e| {
                    json!({
                        "id": e.id, "agent_id": e.agent_id, "scope": e.scope, "key": e.key,
                        "operation_id": e.operation_id, "outcome": e.outcome,
                        "expected_version": e.expected_version,
                        "current_version": e.current_version,
                        "created_at": rfc3339(e.created_at),
                    })
                })
                .collect(),
        )
    })
}
