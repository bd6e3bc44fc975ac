//! agent-locker's pad API, wire-compatible with its daemon (`lockerd` 0.1.5): the same routes,
//! status codes, bodies and order of checks. The checks themselves are in [`crate::ops::pad`]
//! and [`crate::ops::wire`]; this module only moves bytes.

use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap};
use axum::response::Response;
use serde::Serialize;
use serde_json::{json, Value};

use super::http::{self, read_body, Query};
use super::AppState;
use crate::domain::limits::{MAX_BLOCK_BYTES, MAX_JSON_BODY_BYTES};
use crate::ops::pad::{self as op, PadCounts};
use crate::ops::{payment, wire, Actor, OpError};

/// Who acts on the pad routes: whoever holds the pad's capabilities, with no identity (the
/// journal names them `anonymous`). Pad operations check only the pad's key and tickets; no
/// route that acts as `anonymous` calls an operation reserved to the operator.
pub fn anonymous() -> Actor {
    Actor::anonymous()
}

fn too_large_json(_: u64) -> OpError {
    wire::json_body_too_large()
}

fn too_large_block(n: u64) -> OpError {
    op::check_block_size(n).err().unwrap_or_else(|| OpError::too_large("payload too large"))
}

/// `POST /v1/pads`: 413, 422, then the pad with its write key and `read_once` ticket (201).
pub async fn create(State(s): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    let raw = match read_body(&headers, body, MAX_JSON_BODY_BYTES, s.options().body_timeout).await {
        Ok(b) => b,
        Err(e) => return http::body_error(e, too_large_json),
    };
    let limits = match wire::create_request(&raw) {
        Ok(l) => l,
        Err(e) => return http::error_response(&e),
    };
    let payment = match gate(&s, &headers).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let result =
        s.write(anonymous(), move |ctx| op::create_paid(ctx, limits, payment.as_ref())).await;
    match result {
        Ok(created) => http::json(201, &created),
        Err(e) => payment_error(&e),
    }
}

/// Pay-per-pad's gate on the routes that create a pad, checked after the request body so
/// a bad body never spends a payment: `Ok(None)` when payments are off, the verified
/// payment to redeem with the pad, or the response refusing the request (402 challenge, 400,
/// 409, 402, 502).
pub async fn gate(
    s: &AppState,
    headers: &HeaderMap,
) -> Result<Option<payment::Verified>, Response> {
    let Some(cfg) = s.options().payment.clone() else { return Ok(None) };
    let proof = http::header_text(headers, header::HeaderName::from_static("x-payment-proof"))
        .filter(|p| !p.trim().is_empty());
    let Some(proof) = proof else { return Err(challenge(&cfg)) };
    let hash = payment::parse_proof(&proof).map_err(|e| payment_error(&e))?;
    let h = hash.clone();
    s.run(anonymous(), move |ctx| payment::check_unspent(ctx, &h))
        .await
        .map_err(|e| payment_error(&e))?;
    let verified = tokio::task::spawn_blocking(move || {
        payment::verify(&cfg, &hash, &mut |m| crate::output::log_line(&format!("locker: {m}")))
    })
    .await
    .unwrap_or_else(|_| Err(payment::rpc_unreachable()));
    verified.map(Some).map_err(|e| payment_error(&e))
}

/// The 402 challenge: the peer's body and `WWW-Authenticate: Locker-Txid …` header.
fn challenge(cfg: &payment::PaymentConfig) -> Response {
    let (body, www) = cfg.challenge();
    let mut r = http::json(402, &body);
    if let Ok(v) = header::HeaderValue::from_str(&www) {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    http::tag_error(&mut r, "payment_required");
    r
}

/// A refused payment gets the peer's `{"detail": …}` body; any other error its usual one.
pub fn payment_error(e: &OpError) -> Response {
    if !payment::REFUSAL_CODES.contains(&e.code.as_ref()) {
        return http::error_response(e);
    }
    let mut r = http::json(e.kind.http_status(), &json!({ "detail": e.detail }));
    http::tag_error(&mut r, &e.code);
    r
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
    let signing = crate::ops::sign::from_fields(
        http::header_text(
            &headers,
            header::HeaderName::from_static(crate::ops::sign::SIGNER_HEADER),
        )
        .as_deref(),
        http::header_text(
            &headers,
            header::HeaderName::from_static(crate::ops::sign::SIGNATURE_HEADER),
        )
        .as_deref(),
    );
    let signing = match signing {
        Ok(s) => s,
        Err(e) => return http::error_response(&e),
    };
    let result = s
        .write(anonymous(), move |ctx| {
            op::append_signed(
                ctx,
                &id,
                key.as_ref(),
                &payload,
                content_type.as_deref(),
                signing.as_ref(),
            )
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
    http::respond(200, s.write(anonymous(), move |ctx| op::seal(ctx, &id, key.as_ref())).await)
}

/// `POST /v1/pads/{id}/tickets`: the body is checked (413, 422) before the pad and the key.
pub async fn tickets(
    State(s): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let raw = match read_body(&headers, body, MAX_JSON_BODY_BYTES, s.options().body_timeout).await {
        Ok(b) => b,
        Err(e) => return http::body_error(e, too_large_json),
    };
    let ticket_type = match wire::ticket_request(&raw) {
        Ok(t) => t,
        Err(e) => return http::error_response(&e),
    };
    let key = http::write_key(&headers);
    let result =
        s.write(anonymous(), move |ctx| op::mint_ticket(ctx, &id, key.as_ref(), ticket_type)).await;
    http::respond(201, result)
}

/// `GET /v1/pads/{id}/manifest` (no credential).
pub async fn manifest(State(s): State<AppState>, Path(id): Path<String>) -> Response {
    http::respond(200, s.run(anonymous(), move |ctx| op::manifest(ctx, &id)).await)
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
    let result = s.run(anonymous(), move |ctx| op::read(ctx, &id, ticket.as_ref(), from, to)).await;
    http::respond(200, result)
}

/// `GET /health`'s body: the peer's shape.
#[derive(Debug, Serialize)]
struct Health {
    status: &'static str,
    version: &'static str,
    database: Value,
    rpc: Value,
    pads: PadCounts,
}

/// `GET /health` (and `HEAD`): liveness plus pad counts, in the peer's shape.
pub async fn health(State(s): State<AppState>) -> Response {
    // In txid mode `rpc.reachable` is a 2-second `eth_chainId` probe (the right chain too).
    let rpc = match s.options().payment.clone() {
        None => json!({"network": "base", "reachable": true}),
        Some(cfg) => {
            let network = cfg.network();
            let up = tokio::task::spawn_blocking(move || {
                payment::probe(&cfg, std::time::Duration::from_secs(2)).is_ok()
            })
            .await
            .unwrap_or(false);
            json!({"network": network, "reachable": up})
        }
    };
    match s.run(anonymous(), op::counts).await {
        Ok(pads) => http::json(
            200,
            &Health {
                status: "ok",
                version: env!("CARGO_PKG_VERSION"),
                database: json!({"writable": true, "wal_mode": true}),
                rpc,
                pads,
            },
        ),
        Err(e) => {
            let mut r = http::json(
                503,
                &json!({
                    "status": "unavailable",
                    "version": env!("CARGO_PKG_VERSION"),
                    "database": {"writable": false, "wal_mode": Value::Null},
                    "rpc": {"network": "base", "reachable": Value::Null},
                    "pads": PadCounts::default(),
                }),
            );
            http::tag_error(&mut r, &e.code);
            r
        }
    }
}
