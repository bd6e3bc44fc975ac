//! `POST /mcp`: MCP over Streamable HTTP, the tools of `locker mcp` for agents that run
//! elsewhere ([`crate::mcp::http`] speaks the protocol).
//!
//! The edge is every route's: the browser guard has checked `Host` and `Origin` (and the JSON
//! body type) before the route; the caller is the agent of the request's bearer token, checked
//! here first so that a bad token is a 401 (with `WWW-Authenticate: Bearer`) rather than a
//! failed tool, or an anonymous caller when no token is sent and `--require-token` is off; the
//! body is read whole under a cap and the body deadline. Each tool then runs as that caller,
//! the way a route runs its operation: a read-only tool on a pooled store, any other in the
//! writer's group commit, the token checked again inside the operation's transaction.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue};
use axum::response::Response;

use super::http::{self, anonymous, read_body};
use super::{access, caller, AppState};
use crate::domain::secret::Secret;
use crate::mcp::http::MAX_BODY_BYTES;
use crate::mcp::{Access, Caller, Done, Host, Job};
use crate::ops::{ErrorKind, OpError};

/// `POST /mcp`: one JSON-RPC message (a request, a notification or a response).
pub async fn serve(State(s): State<AppState>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let token = match caller::caller(&s, &parts.headers) {
        Ok(t) => t,
        Err(e) => return refused(&e),
    };
    // Who acts, known before the body is read: a bad token is refused at once, and the access
    // log names the caller even though each tool runs apart from the request.
    match &token {
        Some(t) => {
            if let Err(e) = s.run_as_token(t.clone(), |ctx| Ok(ctx.actor.clone())).await {
                return refused(&e);
            }
        }
        None => access::note(access::acting().as_ref(), &anonymous()),
    }
    let bytes =
        match read_body(&parts.headers, body, MAX_BODY_BYTES, s.options().body_timeout).await {
            Ok(b) => b,
            Err(e) => {
                return http::body_error(e, |n| {
                    OpError::too_large(format!(
                        "the MCP message is {n} bytes; the most this server takes is \
                         {MAX_BODY_BYTES}"
                    ))
                    .with("max_bytes", MAX_BODY_BYTES)
                })
            }
        };
    let host = Served { state: s.clone(), token };
    let answer = s.mcp().handle(parts, bytes, Caller(std::sync::Arc::new(host))).await;
    json_refusal(answer.map(Body::new)).await
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
    fn run(&self, access: Access, job: Job) -> Done {
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
                    OpError::internal("internal server error")
                } else {
                    e
                }
            })
        })
    }
}
