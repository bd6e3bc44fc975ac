//! A pad's read tickets: minting (agent-locker's `POST /v1/pads/{id}/tickets`) and revoking
//! (locker's own `POST /v1/pads/{id}/tickets/revoke`), both with the pad's write key.

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;

use super::http::{self, anonymous, read_body};
use super::{wire, AppState};
use crate::api::{Locker as _, MintTicket, RevokeTicket};
use crate::domain::limits::MAX_JSON_BODY_BYTES;

/// `POST /v1/pads/{id}/tickets`: the body is checked (413, 422) before the pad and the key.
pub async fn mint(
    State(s): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let raw = match read_body(&headers, body, MAX_JSON_BODY_BYTES, s.options().body_timeout).await {
        Ok(b) => b,
        Err(e) => return http::body_error(e, |_| wire::json_body_too_large()),
    };
    let ticket_type = match wire::ticket_request(&raw) {
        Ok(t) => t,
        Err(e) => return http::error_response(&e),
    };
    let key = http::write_key(&headers);
    let result = s
        .write(anonymous(), move |ctx| {
            ctx.ticket_mint(MintTicket { pad: &id, key: key.as_ref(), ticket_type })
        })
        .await;
    http::respond(201, result)
}

/// `POST /v1/pads/{id}/tickets/revoke` with the write key: `{"ticket": TICKET_OR_ID}`.
pub async fn revoke(
    State(s): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let raw = match read_body(&headers, body, MAX_JSON_BODY_BYTES, s.options().body_timeout).await {
        Ok(b) => b,
        Err(e) => return http::body_error(e, |_| wire::json_body_too_large()),
    };
    let req = match wire::revoke_request(&raw) {
        Ok(r) => r,
        Err(e) => return http::error_response(&e),
    };
    let key = http::write_key(&headers);
    let result = s
        .write(anonymous(), move |ctx| {
            ctx.ticket_revoke(RevokeTicket { pad: &id, key: key.as_ref(), ticket: &req.ticket })
        })
        .await;
    http::respond(200, result)
}
