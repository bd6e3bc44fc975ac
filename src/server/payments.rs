//! Pay-per-pad: the payment gate of the routes that create a pad (`POST /v1/pads`,
//! `POST /v1/deposit`), in the peer's shapes.

use axum::http::{header, HeaderMap};
use axum::response::Response;
use serde_json::json;

use super::http::{self, anonymous};
use super::AppState;
use crate::ops::pad::payment;
use crate::ops::OpError;

/// Pay-per-pad's gate on the routes that create a pad, checked after the request body so
/// a bad body never spends a payment: `Ok(None)` when payments are off, the verified
/// payment to redeem with the pad, or the response refusing the request (402 challenge, 400,
/// 409, 402, 502; in the peer's `{"detail"}` shape unless `native`).
pub async fn gate(
    s: &AppState,
    headers: &HeaderMap,
    native: bool,
) -> Result<Option<payment::Verified>, Response> {
    let payment_error =
        |e: &OpError| if native { http::error_response(e) } else { payment_error(e) };
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
        crate::rpc::verify(&cfg, &hash, &mut |m| tracing::info!(target: "locker::payments", "{m}"))
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

/// The answer to agent-locker's `POST /v1/pads`: 201 with the outcome, or the payment's
/// (the peer's `{"detail"}`) or the operation's error.
pub fn created<T: serde::Serialize>(result: Result<T, OpError>) -> Response {
    match result {
        Ok(v) => http::json(201, &v),
        Err(e) => payment_error(&e),
    }
}

/// The answer to locker's own `POST /v1/deposit`: 201 with the outcome, or the error in
/// locker's flat shape (payment refusals included).
pub fn deposited<T: serde::Serialize>(result: Result<T, OpError>) -> Response {
    http::respond(201, result)
}
