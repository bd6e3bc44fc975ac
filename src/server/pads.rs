//! Pads: agent-locker's pad API, wire-compatible with its daemon (`lockerd` 0.1.5: the same
//! routes, status codes, bodies and order of checks), and locker's own pad routes (listing,
//! atomic deposit, verification, export and log proofs). The rules are the operations'; this
//! module only moves bytes.

use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap};
use axum::response::Response;
use serde_json::json;

use super::caller::{act, act_write};
use super::http::{self, anonymous, read_body, Query};
use super::{payments, wire, AppState};
use crate::api::{
    AppendBlock, CreatePad, Deposit, ListPads, Locker as _, PadKey, PadLogProofs, PadPayment,
    ReadBlocks, ReadPad, VerifyPad,
};
use crate::domain::limits::{MAX_BLOCK_BYTES, MAX_JSON_BODY_BYTES};
use crate::domain::pad::PadState;
use crate::ops::keys::{self, SIGNATURE_HEADER, SIGNER_HEADER};
use crate::ops::pad as op;
use crate::ops::verify::parse_expected_head;
use crate::ops::{NoProgress, OpError};

fn too_large_json(_: u64) -> OpError {
    wire::json_body_too_large()
}

fn too_large_block(n: u64) -> OpError {
    op::check_block_size(n).err().unwrap_or_else(|| OpError::too_large("payload too large"))
}

/// `POST /v1/pads`: 413, 422, then the pad with its write key and `read_once` ticket (201).
/// With an agent's bearer token the pad is the agent's; `--require-token` demands one.
pub async fn create(State(s): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    let raw = match read_body(&headers, body, MAX_JSON_BODY_BYTES, s.options().body_timeout).await {
        Ok(b) => b,
        Err(e) => return http::body_error(e, too_large_json),
    };
    let limits = match wire::create_request(&raw) {
        Ok(l) => l,
        Err(e) => return http::error_response(&e),
    };
    let payment = match payments::gate(&s, &headers, false).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    // An agent's token makes the pad the agent's (journaled as it, in its scope).
    let result = act_write(&s, &headers, move |ctx| {
        let payment = payment.as_ref().map_or(PadPayment::None, PadPayment::Verified);
        ctx.pad_create(CreatePad { limits, payment })
    })
    .await;
    payments::created(result)
}

/// `POST /v1/pads/{id}/append`: the raw body is the block; its `Content-Type` is stored. An
/// agent's signature may come in `X-Locker-Signer` and `X-Locker-Signature`.
pub async fn append(
    State(s): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let key = http::write_key(&headers);
    let content_type = http::header_text(&headers, header::CONTENT_TYPE);
    let payload = match read_body(&headers, body, MAX_BLOCK_BYTES, s.options().body_timeout).await {
        Ok(b) => b,
        Err(e) => return http::body_error(e, too_large_block),
    };
    // locker's extension: an agent's signature over the block, in two headers.
    let signing = keys::from_fields(
        http::header_text(&headers, header::HeaderName::from_static(SIGNER_HEADER)).as_deref(),
        http::header_text(&headers, header::HeaderName::from_static(SIGNATURE_HEADER)).as_deref(),
    );
    let signing = match signing {
        Ok(s) => s,
        Err(e) => return http::error_response(&e),
    };
    let result = s
        .write(anonymous(), move |ctx| {
            ctx.pad_append(AppendBlock {
                pad: &id,
                key: key.as_ref(),
                payload: &payload,
                content_type: content_type.as_deref(),
                signing: signing.as_ref(),
            })
        })
        .await;
    http::respond(201, result)
}

/// `POST /v1/pads/{id}/seal` (a body is never read).
pub async fn seal(
    State(s): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let key = http::write_key(&headers);
    let result =
        s.write(anonymous(), move |ctx| ctx.pad_seal(PadKey { pad: &id, key: key.as_ref() })).await;
    http::respond(200, result)
}

/// `GET /v1/pads/{id}/manifest` (no credential).
pub async fn manifest(State(s): State<AppState>, Path(id): Path<String>) -> Response {
    http::respond(200, s.run(anonymous(), move |ctx| ctx.pad_manifest(&id)).await)
}

/// FastAPI's 422 for query parameters that are not integers.
fn query_int_errors(q: &Query, names: &[&str]) -> Result<Vec<Option<i64>>, Response> {
    let mut values = Vec::new();
    let mut errors = Vec::new();
    for name in names {
        match q.get(name) {
            None => values.push(None),
            Some(v) => match wire::lax_int_str(v) {
                Some(n) => values.push(Some(n)),
                None => {
                    values.push(None);
                    errors.push(json!({
                        "type": "int_parsing",
                        "loc": ["query", name],
                        "msg": "Input should be a valid integer, unable to parse string as an integer",
                        "input": v,
                    }));
                }
            },
        }
    }
    if errors.is_empty() {
        Ok(values)
    } else {
        let mut r = http::json(422, &json!({ "detail": errors }));
        http::tag_error(&mut r, "int_parsing");
        Err(r)
    }
}

/// `GET /v1/pads/{id}/blocks?from=&to=&ticket=`: the ticket from the query or a
/// `Bearer` header; the demo pad needs none.
pub async fn blocks(
    State(s): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let (from, to) = match query_int_errors(&q, &["from", "to"]) {
        Ok(v) => (v[0], v[1]),
        Err(r) => return r,
    };
    let ticket = http::read_ticket(&headers, q.get("ticket"));
    let result = s
        .run(anonymous(), move |ctx| {
            ctx.pad_read(ReadBlocks { pad: &id, ticket: ticket.as_ref(), from, to })
        })
        .await;
    // A first read with a `read_once` ticket journals its read lease: that grew the journal.
    s.journal_may_have_grown();
    http::respond(200, result)
}

/// `GET /v1/pads?state=&limit=&after=`: pads with their manifests, in id order (a page starts
/// after `after`).
pub async fn list(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let state = match q.get("state") {
        None => None,
        Some("open") => Some(PadState::Open),
        Some("sealed") => Some(PadState::Sealed),
        Some("expired") => Some(PadState::Expired),
        Some(_) => {
            return http::error_response(&OpError::bad_request(
                "state must be open, sealed or expired",
            ))
        }
    };
    let limit = match q.int("limit") {
        Ok(l) => l.unwrap_or(1000),
        Err(e) => return http::error_response(&e),
    };
    let Ok(limit) = usize::try_from(limit) else {
        return http::error_response(&OpError::bad_request("limit must be a positive integer"));
    };
    let after = q.get("after").map(str::to_owned);
    let result = act(&s, &headers, move |ctx| {
        ctx.pad_list(ListPads { state, limit, after: after.as_deref() })
    });
    http::respond(200, result.await)
}

/// `POST /v1/deposit`: create, fill and seal a pad in one transaction (201).
pub async fn deposit(State(s): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    let limit = wire::MAX_DEPOSIT_BODY_BYTES;
    let raw = match read_body(&headers, body, limit, s.options().body_timeout).await {
        Ok(b) => b,
        Err(e) => {
            return http::body_error(e, |_| {
                OpError::too_large(format!("request body exceeds {limit} bytes"))
            })
        }
    };
    let (envelope, artifacts, ttl_seconds) = match wire::deposit_request(&raw) {
        Ok(r) => r,
        Err(e) => return http::error_response(&e),
    };
    let payment = match payments::gate(&s, &headers, true).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let result = act_write(&s, &headers, move |ctx| {
        ctx.deposit(Deposit {
            envelope: &envelope,
            artifacts: &artifacts,
            ttl_seconds,
            payment: payment.as_ref().map_or(PadPayment::None, PadPayment::Verified),
        })
    })
    .await;
    payments::deposited(result)
}

/// `GET /v1/pads/{id}/verify?expect_head=`: one pad, like `locker verify PAD`.
pub async fn verify(
    State(s): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let expect_head = match q.get("expect_head").map(parse_expected_head).transpose() {
        Ok(e) => e,
        Err(e) => return http::error_response(&e),
    };
    let result = s.run(anonymous(), move |ctx| ctx.pad_verify(VerifyPad { pad: &id, expect_head }));
    http::respond(200, result.await)
}

/// `GET /v1/pads/{id}/export?ticket=`: the whole pad as a `locker.bundle.v1` file, the same
/// bytes `locker pad export` writes, read with a ticket (header or query, as for `/blocks`;
/// an anonymous caller always needs one).
pub async fn export(
    State(s): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let ticket = http::read_ticket(&headers, q.get("ticket"));
    s.caught_up().await;
    let exported = s
        .run(anonymous(), move |ctx| {
            ctx.pad_export(ReadPad { pad: &id, ticket: ticket.as_ref() }, &NoProgress)
        })
        .await;
    s.journal_may_have_grown();
    match exported {
        Ok(b) => {
            let mut r = Response::new(Body::from(crate::domain::bundle::encode(&b)));
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                header::HeaderValue::from_static("application/x-ndjson"),
            );
            r
        }
        Err(e) => http::error_response(&e),
    }
}

/// `GET /v1/pads/{pad_id}/log-proofs?blocks=N`: the latest signed checkpoint and the inclusion
/// proofs of the journal entries that recorded blocks `0..N` of the pad (default: all), as a
/// bundle carries them.
pub async fn log_proofs(
    State(s): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let blocks = match q.unsigned("blocks") {
        Ok(b) => b,
        Err(e) => return http::error_response(&e),
    };
    s.caught_up().await;
    let result =
        s.run(anonymous(), move |ctx| ctx.pad_log_proofs(PadLogProofs { pad: &id, blocks })).await;
    http::respond(200, result)
}
