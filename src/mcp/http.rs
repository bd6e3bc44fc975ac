//! MCP over Streamable HTTP: what `locker serve` answers at `/mcp`, with the same tools as
//! `locker mcp` and the official SDK's transport (`rmcp`'s).
//!
//! Both protocol eras are served: a client of the `initialize` handshake (2025-11-25 and
//! earlier) and a 2026-07-28 client (`server/discover`, per-request `_meta`) alike. The
//! endpoint keeps no MCP session (no `Mcp-Session-Id`): every POST is answered on its own,
//! with JSON, so any of several servers on one shared database can answer it, and who acts is
//! the request's own caller (its bearer token), never a session's. A `GET` (the stream a
//! server may push on) is not offered (405), as the transport allows; locker pushes nothing.
//!
//! The HTTP edge (the browser guard's `Host` and `Origin` checks, bearer tokens, body caps
//! and deadlines) is the server's own, as on every route: this module speaks only MCP, and
//! runs each tool where the request's [`Caller`] says.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::{Caller, McpServer, ToolSelection};

/// The largest request body (the server reads it whole first, under this cap and its body
/// deadline): a deposit's JSON route takes 512 KiB, and a JSON-RPC message carrying the same
/// blocks escapes some of their characters (`\u00e9`).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The MCP endpoints of `locker serve`: Streamable HTTP, and the 2024-11-05 transport's
/// event streams and message posts (the private `sse` module).
#[derive(Clone)]
pub struct Endpoint {
    service: StreamableHttpService<McpServer, NeverSessionManager>,
    selection: ToolSelection,
    sse: Arc<super::sse::Sessions>,
}

impl Endpoint {
    /// An endpoint offering the tools `selection` picks (refuse a selection that leaves no
    /// tool first, with [`super::check_selection`]: such an endpoint answers every request with a
    /// 500).
    pub fn new(selection: ToolSelection) -> Self {
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None)
            .with_max_request_body_bytes(MAX_BODY_BYTES)
            // The server's guard checks `Host` (with `--allow-host`) and `Origin` (with
            // `--allow-origin`) before any route: the SDK's own loopback-only check would
            // refuse the names the operator allowed.
            .disable_allowed_hosts();
        let factory = selection.clone();
        let service = StreamableHttpService::new(
            move || McpServer::served(factory.clone()).map_err(std::io::Error::other),
            Arc::new(NeverSessionManager::default()),
            config,
        );
        Self { service, selection, sse: Arc::default() }
    }

    /// Answers one HTTP request to the endpoint, whose body has been read whole; its tool
    /// calls run where `caller` says. A body that is no JSON-RPC message is answered here, 400
    /// with JSON-RPC's `-32700 Parse error` or `-32600 Invalid Request`, as `locker mcp`
    /// answers such a line.
    pub async fn handle(
        &self,
        parts: ::http::request::Parts,
        body: Bytes,
        caller: Caller,
    ) -> ::http::Response<BoxBody<Bytes, Infallible>> {
        if let Some(refusal) = super::frame::refusal(&body) {
            let mut r = ::http::Response::new(Full::new(Bytes::from(refusal.to_string())).boxed());
            *r.status_mut() = ::http::StatusCode::BAD_REQUEST;
            r.headers_mut().insert(
                ::http::header::CONTENT_TYPE,
                ::http::HeaderValue::from_static("application/json"),
            );
            return r;
        }
        let mut request = ::http::Request::from_parts(parts, Full::new(body));
        request.extensions_mut().insert(caller);
        self.service.handle(request).await
    }

    /// Opens a session of the 2024-11-05 transport for `owner` (the server's name for the
    /// caller, who alone may post to it): the response is its event stream.
    pub fn open_sse(&self, owner: String) -> ::http::Response<BoxBody<Bytes, Infallible>> {
        self.sse.open(self.selection.clone(), owner)
    }

    /// One message posted to the 2024-11-05 session `id` by `owner`, whose tools act as
    /// `caller`: 202, and the answer comes on the session's stream.
    pub async fn post_sse(
        &self,
        id: &str,
        owner: &str,
        body: &[u8],
        caller: Caller,
    ) -> ::http::Response<BoxBody<Bytes, Infallible>> {
        self.sse.post(id, owner, body, caller).await
    }

    /// Ends the 2024-11-05 sessions (the server is stopping), so that their streams end.
    pub fn close_sessions(&self) {
        self.sse.close_all();
    }
}
