//! `POST /mcp`: MCP over Streamable HTTP, the tools of `locker mcp` for agents that run
//! elsewhere ([`crate::mcp::http`] speaks the protocol); and `GET /mcp/sse` with
//! `POST /mcp/messages`, MCP's 2024-11-05 transport, for clients that speak nothing newer.
//!
//! The edge is every route's: the browser guard has checked `Host` and `Origin` (and the JSON
//! body type) before the route; the caller is the agent of the request's bearer token, checked
//! here first so that a bad token is a 401 (with `WWW-Authenticate: Bearer`) rather than a
//! failed tool, or an anonymous caller when no token is sent and `--require-token` is off; the
//! body is read whole under a cap and the body deadline. Each tool then runs as that caller,
//! the way a route runs its operation: a read-only tool on a pooled store, any other in the
//! writer's group commit, the token checked again inside the operation's transaction.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, Request, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::Response;

use super::http::{self, anonymous, read_body, Query};
use super::{access, caller, AppState};
use crate::domain::secret::Secret;
use crate::mcp::http::MAX_BODY_BYTES;
use crate::mcp::{Access, Caller, Done, Host, Job};
use crate::ops::{Actor, ErrorKind, OpError};

/// Who calls: the caller's token (`None` for an anonymous caller) and the agent it acts as,
/// known before the body is read, so that a bad token is refused at once and the access log
/// names the caller even though each tool runs apart from the request.
async fn who(s: &AppState, headers: &HeaderMap) -> Result<(Option<Secret>, Actor), Response> {
    let token = caller::caller(s, headers).map_err(|e| refused(&e))?;
    let actor = match &token {
        Some(t) => {
            s.run_as_token(t.clone(), |ctx| Ok(ctx.actor.clone())).await.map_err(|e| refused(&e))?
        }
        None => {
            let a = anonymous();
            access::note(access::acting().as_ref(), &a);
            a
        }
    };
    Ok((token, actor))
}

/// A request's body, read whole under the MCP cap and the body deadline.
async fn message(s: &AppState, headers: &HeaderMap, body: Body) -> Result<Bytes, Response> {
    read_body(headers, body, MAX_BODY_BYTES, s.options().body_timeout).await.map_err(|e| {
        http::body_error(e, |n| {
            OpError::too_large(format!(
                "the MCP message is {n} bytes; the most this server takes is {MAX_BODY_BYTES}"
            ))
            .with("max_bytes", MAX_BODY_BYTES)
        })
    })
}

/// The tools of one request act as its caller.
fn caller_for(s: &AppState, token: Option<Secret>) -> Caller {
    Caller(Arc::new(Served { state: s.clone(), token }))
}

/// `POST /mcp`: one JSON-RPC message (a request, a notification or a response).
pub async fn serve(State(s): State<AppState>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let (token, _) = match who(&s, &parts.headers).await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let bytes = match message(&s, &parts.headers, body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let answer = s.mcp().handle(parts, bytes, caller_for(&s, token)).await;
    json_refusal(answer.map(Body::new)).await
}

/// The name a 2024-11-05 session knows its opener by: the agent and its scope.
fn owner(actor: &Actor) -> String {
    serde_json::json!([actor.name, actor.scope]).to_string()
}

/// `GET /mcp/sse`: a session of MCP's 2024-11-05 transport, as a stream of server-sent events;
/// the first names where to post (`messages?session_id=…`).
pub async fn sse(State(s): State<AppState>, headers: HeaderMap) -> Response {
    match who(&s, &headers).await {
        Ok((_, actor)) => s.mcp().open_sse(owner(&actor)).map(Body::new),
        Err(r) => r,
    }
}

/// `POST /mcp/messages?session_id=ID`: one message to a 2024-11-05 session, from the caller
/// that opened it; 202, and the answer comes on the session's stream.
pub async fn messages(
    State(s): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let (token, actor) = match who(&s, &headers).await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let bytes = match message(&s, &headers, body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let q = Query::parse(raw.as_deref());
    let Some(id) = q.get("session_id") else {
        return http::error_response(
            &OpError::bad_request("query parameter `session_id` is required")
                .hint("Post to the endpoint the session's first event named."),
        );
    };
    let answer = s.mcp().post_sse(id, &owner(&actor), &bytes, caller_for(&s, token)).await;
    answer.map(Body::new)
}

/// The MCP transport's own refusals (a missing `Accept` type, an unsupported
/// `MCP-Protocol-Version`, …) come as text: they are sent as every other refusal of the
/// server is, a JSON error object with the same status.
async fn json_refusal(r: Response) -> Response {
    let typed = r
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    if r.status().as_u16() < 400 || typed {
        return r;
    }
    let status = r.status().as_u16();
    let text = match axum::body::to_bytes(r.into_body(), 64 * 1024).await {
        Ok(b) => String::from_utf8_lossy(&b).trim().to_owned(),
        Err(_) => String::new(),
    };
    let (code, hint) = match status {
        403 => ("forbidden", None),
        404 => ("not_found", None),
        405 => ("method_not_allowed", None),
        406 => (
            "not_acceptable",
            Some("Send `Accept: application/json, text/event-stream`, as MCP clients do."),
        ),
        413 => ("too_large", None),
        415 => ("unsupported_media_type", None),
        500.. => ("internal", None),
        _ => ("bad_request", None),
    };
    let detail = if code == "internal" {
        tracing::warn!(detail = %text, "the MCP transport failed");
        "internal server error".to_owned()
    } else {
        text
    };
    let mut body = serde_json::json!({"error": code, "detail": detail});
    if let Some(h) = hint {
        body["hints"] = serde_json::json!([h]);
    }
    let mut r = http::json(status, &body);
    http::tag_error(&mut r, code);
    r
}

/// A refusal before any MCP is spoken, as every route answers it; a 401 says how to
/// authenticate (`WWW-Authenticate: Bearer`), as the MCP authorization spec asks.
fn refused(e: &OpError) -> Response {
    let mut r = http::error_response(e);
    if e.kind == ErrorKind::Unauthorized {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    r
}

/// Where the tools of one `/mcp` request run: this server, as the request's caller.
struct Served {
    state: AppState,
    /// The caller's bearer token; `None` for an anonymous caller.
    token: Option<Secret>,
}

impl Host for Served {
    fn run(&self, access: Access, mut job: Job) -> Done {
        let (s, token) = (self.state.clone(), self.token.clone());
        Box::pin(async move {
            let result = match access {
                Access::Write => caller::act_write_as(&s, token, move |ctx| job(ctx)).await,
                Access::Read | Access::ReadLog => {
                    if access == Access::ReadLog {
                        // As the checkpoint and proof routes do: the signer covers every write
                        // made before this read.
                        s.caught_up().await;
                    }
                    let r = caller::act_as(&s, token, move |ctx| job(ctx)).await;
                    // A first read with a `read_once` ticket journals its read lease.
                    s.journal_may_have_grown();
                    r
                }
            };
            result.map_err(|e| {
                if http::undescribed(&e) {
                    tracing::warn!(detail = %e.detail, "an MCP tool failed inside the server");
                    OpError::new(e.kind, e.code, "internal server error")
                } else {
                    e
                }
            })
        })
    }
}
