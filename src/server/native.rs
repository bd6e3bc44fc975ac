//! locker's own routes, for what the peers lack: the journal, verification, pad listing,
//! atomic deposit, ticket revocation and the OpenAPI document.

use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;

use super::http::{self, read_body, Query};
use super::pads::anonymous;
use super::AppState;
use crate::domain::limits::MAX_JSON_BODY_BYTES;
use crate::domain::pad::PadState;
use crate::ops::bundle;
use crate::ops::pad as op;
use crate::ops::wire::{self, DepositRequest, RevokeRequest, MAX_DEPOSIT_BODY_BYTES};
use crate::ops::{journal, verify, NoProgress, OpError};
use crate::store::JournalQuery;

fn bad(e: OpError) -> Response {
    http::error_response(&e)
}

/// `GET /v1/pads?state=&limit=`: pads with their manifests.
pub async fn list(State(s): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    let q = Query::parse(raw.as_deref());
    let state = match q.get("state") {
        None => None,
        Some("open") => Some(PadState::Open),
        Some("sealed") => Some(PadState::Sealed),
        Some("expired") => Some(PadState::Expired),
        Some(_) => return bad(OpError::bad_request("state must be open, sealed or expired")),
    };
    let limit = match q.int("limit") {
        Ok(l) => l.unwrap_or(1000),
        Err(e) => return bad(e),
    };
    let Ok(limit) = usize::try_from(limit) else {
        return bad(OpError::bad_request("limit must be a positive integer"));
    };
    http::respond(200, s.run(anonymous(), move |ctx| op::list(ctx, state, limit)).await)
}

/// `GET /v1/journal?kind=&subject=&actor=&scope=&after=&before=&limit=&reverse=`: a page of
/// the journal, newest first unless `reverse`.
pub async fn journal(State(s): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    let q = Query::parse(raw.as_deref());
    let unsigned = |name: &str| -> Result<Option<u64>, OpError> {
        q.int(name)?
            .map(|v| {
                u64::try_from(v).map_err(|_| {
                    OpError::bad_request(format!("query parameter `{name}` must not be negative"))
                })
            })
            .transpose()
    };
    let query = (|| {
        Ok::<_, OpError>(JournalQuery {
            kind: q.get("kind").map(str::to_owned),
            subject: q.get("subject").map(str::to_owned),
            actor: q.get("actor").map(str::to_owned),
            scope: q.get("scope").map(str::to_owned),
            after: unsigned("after")?,
            before: unsigned("before")?,
            ascending: q.flag("reverse"),
            limit: unsigned("limit")?.unwrap_or(50),
        })
    })();
    let query = match query {
        Ok(q) => q,
        Err(e) => return bad(e),
    };
    http::respond(200, s.run(anonymous(), move |ctx| journal::log(ctx, &query)).await)
}

fn expected_head(q: &Query) -> Result<Option<crate::domain::digest::Digest>, OpError> {
    q.get("expect_head").map(verify::parse_expected_head).transpose()
}

/// `GET /v1/verify?expect_head=&require_signed=`: the whole repository, like `locker verify`. The report's
/// `ok` says whether everything is intact; the status is 200 either way.
pub async fn verify_repository(State(s): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    let q = Query::parse(raw.as_deref());
    let expect = match expected_head(&q) {
        Ok(e) => e,
        Err(e) => return bad(e),
    };
    let require_signed = q.flag("require_signed");
    let key = s.options().log.as_ref().and_then(|l| l.signer().ok()).map(|k| k.verifier());
    let result = s
        .run(anonymous(), move |ctx| {
            verify::repository_with(ctx, expect, &NoProgress, key.as_ref(), require_signed)
        })
        .await;
    http::respond(200, result)
}

/// `GET /v1/pads/{id}/verify?expect_head=`: one pad, like `locker verify PAD`.
pub async fn verify_pad(
    State(s): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let expect = match expected_head(&Query::parse(raw.as_deref())) {
        Ok(e) => e,
        Err(e) => return bad(e),
    };
    http::respond(200, s.run(anonymous(), move |ctx| verify::pad(ctx, &id, expect)).await)
}

/// `POST /v1/deposit`: create, fill and seal a pad in one transaction (201).
pub async fn deposit(State(s): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    let raw = match read_body(&headers, body, MAX_DEPOSIT_BODY_BYTES, s.options().body_timeout)
        .await
    {
        Ok(b) => b,
        Err(e) => {
            return http::body_error(e, |_| {
                OpError::too_large(format!("request body exceeds {MAX_DEPOSIT_BODY_BYTES} bytes"))
            })
        }
    };
    let (envelope, artifacts, ttl) = match DepositRequest::parse(&raw) {
        Ok(r) => r,
        Err(e) => return bad(e),
    };
    let payment = match super::pads::gate(&s, &headers).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let result = s
        .write(anonymous(), move |ctx| {
            op::deposit_paid(ctx, &envelope, &artifacts, ttl, payment.as_ref())
        })
        .await;
    match result {
        Ok(d) => http::json(201, &d),
        Err(e) => super::pads::payment_error(&e),
    }
}

/// `POST /v1/pads/{id}/tickets/revoke` with the write key: `{"ticket": TICKET_OR_ID}`.
pub async fn revoke_ticket(
    State(s): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let raw = match read_body(&headers, body, MAX_JSON_BODY_BYTES, s.options().body_timeout).await {
        Ok(b) => b,
        Err(e) => return http::body_error(e, |_| wire::json_body_too_large()),
    };
    let req = match RevokeRequest::parse(&raw) {
        Ok(r) => r,
        Err(e) => return bad(e),
    };
    let key = http::write_key(&headers);
    let result = s
        .write(anonymous(), move |ctx| op::revoke_ticket(ctx, &id, key.as_ref(), &req.ticket))
        .await;
    http::respond(200, result)
}

/// `GET /openapi.json`: the OpenAPI document of every route.
pub async fn openapi() -> Response {
    http::raw_json(200, super::OPENAPI_JSON.as_bytes().to_vec())
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
    let log = s.options().log.clone();
    let exported = s
        .run(anonymous(), move |ctx| {
            let mut b = bundle::export(ctx, &id, ticket.as_ref())?;
            if let Some(log) = &log {
                bundle::attach_log(ctx, log, &mut b)?;
            }
            Ok(b)
        })
        .await;
    match exported {
        Ok(b) => {
            let mut r = Response::new(Body::from(crate::domain::bundle::encode(&b)));
            r.headers_mut().insert(
                axum::http::header::CONTENT_TYPE,
                axum::http::HeaderValue::from_static("application/x-ndjson"),
            );
            r
        }
        Err(e) => bad(e),
    }
}

/// `GET /v1/keys`: the registered agent keys, the repository id and the signing policy (public;
/// with a bearer token, `scope` is the token's scope), what a client needs to sign its writes.
pub async fn keys(State(s): State<AppState>, headers: HeaderMap) -> Response {
    let result = match http::bearer_token(&headers) {
        Some(t) => s.run_as_token(t, crate::ops::sign::list).await,
        None => s.run(anonymous(), crate::ops::sign::list).await,
    };
    http::respond(200, result)
}
