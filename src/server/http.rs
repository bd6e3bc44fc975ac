//! Request and response plumbing shared by the routes: capped body reading, credentials from
//! headers, JSON responses and the one mapping from [`OpError`] to a response.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use http_body_util::BodyExt as _;
use serde::Serialize;
use serde_json::{json, Value};

use crate::domain::secret::Secret;
use crate::ops::{ErrorKind, OpError};

/// The route a response came from (for the access log).
#[derive(Debug, Clone)]
pub struct RouteName(pub String);

/// The error code of a failed request (for the access log).
#[derive(Debug, Clone)]
pub struct ErrorCode(pub String);

/// What an internal failure was (for the access log only).
#[derive(Debug, Clone)]
pub struct InternalDetail(pub String);

/// A JSON response.
pub fn json<T: Serialize>(status: u16, body: &T) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => raw_json(status, bytes),
        Err(e) => error_response(&OpError::internal(format!("cannot encode the response: {e}"))),
    }
}

/// A response whose body is already JSON.
pub fn raw_json(status: u16, bytes: Vec<u8>) -> Response {
    let mut r = Response::new(Body::from(bytes));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

/// The body an error is sent with: the CLI's JSON error object (`{"error", "detail", ...}`,
/// the peer's shape). Internal failures are not described to the client.
pub fn error_body(e: &OpError) -> Value {
    if undescribed(e) {
        return json!({"error": e.code, "detail": "internal server error"});
    }
    e.to_json()
}

/// Whether an error is an internal failure, which a client is not told the details of (they
/// are for the server's log): a bug, or damage to the store (whose rows and columns are the
/// operator's to know, through the log and `locker verify`).
pub fn undescribed(e: &OpError) -> bool {
    e.kind == ErrorKind::Internal && (e.code == "internal" || e.code == crate::ops::CORRUPT_STORE)
}

/// The response for a failed operation; its status comes from [`ErrorKind::http_status`].
pub fn error_response(e: &OpError) -> Response {
    let mut r = json(e.kind.http_status(), &error_body(e));
    tag_error(&mut r, &e.code);
    if e.kind == ErrorKind::Internal {
        r.extensions_mut().insert(InternalDetail(e.detail.clone()));
    }
    if e.kind == ErrorKind::TooLarge {
        // The rest of an oversized body is never read: the connection cannot be reused.
        r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    r
}

/// Marks a response with its error code for the access log.
pub fn tag_error(r: &mut Response, code: &str) {
    r.extensions_mut().insert(ErrorCode(code.to_owned()));
}

/// Either the outcome as JSON with `status`, or the error.
pub fn respond<T: Serialize>(status: u16, result: Result<T, OpError>) -> Response {
    match result {
        Ok(v) => json(status, &v),
        Err(e) => error_response(&e),
    }
}

/// Why a body could not be read.
pub enum BodyError {
    /// More than the cap arrived (or was announced); the number is what was seen.
    TooLarge(u64),
    /// The body did not arrive in time.
    Timeout,
    /// The connection failed while reading.
    Broken,
}

/// The response for a body that could not be read (`too_large` builds the 413 from the size).
pub fn body_error(e: BodyError, too_large: impl FnOnce(u64) -> OpError) -> Response {
    match e {
        BodyError::TooLarge(n) => error_response(&too_large(n)),
        BodyError::Timeout => {
            let mut r = json(
                408,
                &json!({"error": "request_timeout",
                        "detail": "the request body did not arrive in time"}),
            );
            r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            tag_error(&mut r, "request_timeout");
            r
        }
        BodyError::Broken => error_response(&OpError::bad_request("the request body was cut off")),
    }
}

/// Reads a body of at most `cap` bytes within `deadline`. A `Content-Length` over the cap is
/// refused before anything is read; otherwise reading stops as soon as more than `cap` bytes
/// have arrived.
pub async fn read_body(
    headers: &HeaderMap,
    body: Body,
    cap: usize,
    deadline: Duration,
) -> Result<Bytes, BodyError> {
    let cap64 = cap as u64;
    if let Some(len) = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        if len > cap64 {
            return Err(BodyError::TooLarge(len));
        }
    }
    let read = async move {
        let mut body = body;
        let mut buf: Vec<u8> = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|_| BodyError::Broken)?;
            if let Ok(data) = frame.into_data() {
                if buf.len() + data.len() > cap {
                    return Err(BodyError::TooLarge((buf.len() + data.len()) as u64));
                }
                buf.extend_from_slice(&data);
            }
        }
        Ok(Bytes::from(buf))
    };
    tokio::time::timeout(deadline, read).await.unwrap_or(Err(BodyError::Timeout))
}

/// A header's value as text (a non-ASCII value is read as Latin-1, as Starlette reads it).
pub fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    headers.get(name).map(|v| match v.to_str() {
        Ok(s) => s.to_owned(),
        Err(_) => v.as_bytes().iter().map(|&b| char::from(b)).collect(),
    })
}

/// The write key on the pad's write routes, read like FastAPI's `HTTPBearer`: the scheme
/// `Bearer` in any case, then everything after the first space. Anything else is no key.
pub fn write_key(headers: &HeaderMap) -> Option<Secret> {
    let auth = header_text(headers, header::AUTHORIZATION)?;
    let (scheme, credentials) = auth.split_once(' ')?;
    if scheme.is_empty() || credentials.is_empty() || !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    Some(Secret::new(credentials))
}

/// The read ticket on the blocks route: a non-empty `?ticket=` wins, else an
/// `Authorization: Bearer ` header (the scheme case-sensitive, as with the peer).
pub fn read_ticket(headers: &HeaderMap, query_ticket: Option<&str>) -> Option<Secret> {
    if let Some(t) = query_ticket.filter(|t| !t.is_empty()) {
        return Some(Secret::new(t));
    }
    let auth = header_text(headers, header::AUTHORIZATION)?;
    let t = auth.strip_prefix("Bearer ")?.trim();
    (!t.is_empty()).then(|| Secret::new(t))
}

/// A bearer token on the artifact and lease routes, read like questlock: exactly two fields,
/// the first `Bearer` in any case.
pub fn bearer_token(headers: &HeaderMap) -> Option<Secret> {
    let auth = header_text(headers, header::AUTHORIZATION)?;
    let mut fields = auth.split_whitespace();
    let (Some(scheme), Some(token), None) = (fields.next(), fields.next(), fields.next()) else {
        return None;
    };
    scheme.eq_ignore_ascii_case("bearer").then(|| Secret::new(token))
}

/// Who acts on the routes that take no bearer token: whoever holds the capabilities the
/// request carries (a pad's key and tickets), with no identity (the journal names them
/// `anonymous`). No route that acts as `anonymous` calls an operation reserved to the operator.
pub fn anonymous() -> crate::ops::Actor {
    crate::ops::Actor::anonymous()
}

/// The query's parameters in order (the last of a repeated name wins when looked up).
pub struct Query(Vec<(String, String)>);

impl Query {
    pub fn parse(raw: Option<&str>) -> Self {
        Self(
            raw.map(|q| {
                form_urlencoded::parse(q.as_bytes())
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect()
            })
            .unwrap_or_default(),
        )
    }

    /// How many times a parameter occurs.
    pub fn count(&self, name: &str) -> usize {
        self.0.iter().filter(|(k, _)| k == name).count()
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// An optional integer parameter; a value that is not one is a 400 naming it.
    pub fn int(&self, name: &str) -> Result<Option<i64>, OpError> {
        self.get(name)
            .map(|v| {
                v.trim().parse::<i64>().map_err(|_| {
                    OpError::bad_request(format!("query parameter `{name}` must be an integer"))
                })
            })
            .transpose()
    }

    /// An optional non-negative integer parameter; a negative one is a 400 naming it.
    pub fn unsigned(&self, name: &str) -> Result<Option<u64>, OpError> {
        self.int(name)?
            .map(|v| {
                u64::try_from(v).map_err(|_| {
                    OpError::bad_request(format!("query parameter `{name}` must not be negative"))
                })
            })
            .transpose()
    }

    /// An optional flag parameter: present and not `0`/`false`/empty.
    pub fn flag(&self, name: &str) -> bool {
        self.get(name).is_some_and(|v| !matches!(v, "" | "0" | "false" | "no"))
    }
}
